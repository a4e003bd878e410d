/**
 * The domain's decimal type (src/domain/decimal.ts, an exact scaled integer) against decimal.js (a dev dependency,
 * cloned at precision 60, half up, the settings the service has always computed at), operation by operation:
 * random operands including 0, -0, 6-decimal values, 100,000,000, products beyond 2^53 (the BigInt path), halves
 * for rounding, negatives, and quotients that do not end. Results are compared by valueOf(), which shows the sign
 * of zero ("-0").
 */

import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/domain/decimal.ts';
import { dec } from '../../src/domain/decimal-read.ts';
import { toJsonNumber } from '../../src/domain/output.ts';
import { mulberry32 } from '../support/prng.ts';

/** The reference: decimal.js at precision 60, half up, exponent notation from 10^40 and below 10^-39. */
const Old = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
type Old = InstanceType<typeof Old>;

/**
 * rules.md §8a written on decimal.js: a value becomes a JSON number when its exponent is below 15 and it has at most
 * 15 significant digits (then the double holds it exactly), -0 as 0; anything else is refused.
 */
function oldToJsonNumber(value: Old): number {
  if (value.e < 15 && value.sd() <= 15) {
    const n = value.toNumber();
    return Object.is(n, -0) ? 0 : n;
  }
  throw new Error(`toJsonNumber: ${value.toFixed()} cannot be represented exactly as a JSON number`);
}

const random = mulberry32(8_2026);
const int = (max: number) => Math.floor(random() * (max + 1));
const pick = <T>(items: readonly T[]): T => items[int(items.length - 1)]!;

const FIXED = [
  '0',
  '-0',
  '1',
  '-1',
  '0.5',
  '-0.5',
  '2.5',
  '-2.5',
  '0.000001',
  '-0.000001',
  '0.0000005',
  '100',
  '100000000',
  '-100000000',
  '99999999.999999',
  '1000',
  '12',
  '10.5',
  '0.125',
  '9007199254740991',
  '9007199254740992',
  '-9007199254740993',
  '123456789012345678901234567890',
  '0.123456789012345678901234',
  '1e-7',
  '1.5e3',
];

/** A random decimal string: integers, up to 6 (sometimes 12) decimals, halves, big, negative. */
function operand(): string {
  const kind = int(9);
  let text: string;
  switch (kind) {
    case 0:
      return pick(FIXED);
    case 1:
      text = String(int(100_000_000));
      break;
    case 2:
      text = `${int(1000)}.${String(int(999_999)).padStart(6, '0')}`;
      break;
    case 3:
      text = `${int(10_000)}.5`;
      break;
    case 4:
      text = `${int(100_000_000)}.${String(int(99)).padStart(2, '0')}`;
      break;
    case 5:
      text = `${int(1e9)}${String(int(1e9)).padStart(9, '0')}`; // up to 18 digits: beyond 2^53
      break;
    case 6:
      text = `${int(1e6)}.${String(int(1e9)).padStart(9, '0')}${String(int(999)).padStart(3, '0')}`;
      break;
    case 7:
      text = `0.${String(int(999_999)).padStart(6, '0')}5`;
      break;
    default:
      text = String(int(30));
  }
  return random() < 0.3 ? `-${text}` : text;
}

function same(ours: Dec, theirs: Old, what: string): void {
  const a = ours.valueOf();
  const b = theirs.valueOf();
  if (a !== b) expect(`${what} = ${a}`).toBe(`${what} = ${b}`);
}

/** Significant digits of an exact value (decimal.js at precision 60 keeps 60). */
function significantDigits(x: Dec): number {
  return x.abs().toFixed().replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
}

/** Up to 70 random digits with the point anywhere (or nowhere), either sign. */
function longOperand(): string {
  let digits = String(1 + int(8));
  const length = int(69);
  for (let i = 0; i < length; i++) digits += String(int(9));
  const point = int(digits.length);
  const text = point === digits.length ? digits : `${digits.slice(0, point) || '0'}.${digits.slice(point)}`;
  return random() < 0.3 ? `-${text}` : text;
}

const N = 20_000;
const MODES = [0, 1, 2, 3, 4, 5, 6, 7, 8];

describe('Dec, operation by operation, against decimal.js (precision 60, half up)', () => {
  it('parses and prints as decimal.js (valueOf, toString, toFixed, toJSON, toNumber)', () => {
    const inputs: (string | number)[] = [...FIXED, 0, -0, 1.5, -2.25, 0.1, 1e21, 1e-7, 123456.789, 2 ** 53, -(2 ** 60)];
    for (let i = 0; i < N; i++) inputs.push(operand());
    // the schema's canonical strings and some that are not canonical (trailing zeros, a lone point, '+')
    inputs.push('10.50', '1.', '.5', '-.5', '+7', '007', '0.000', '-0.0', '123456789012345', '1234567890123456');
    for (const v of inputs) {
      const ours = new Dec(v);
      const theirs = new Old(v);
      same(ours, theirs, `Dec(${v})`);
      if (typeof v === 'string') same(dec(v), theirs, `dec('${v}')`);
      expect(ours.toString()).toBe(theirs.toString());
      expect(ours.toFixed()).toBe(theirs.toFixed());
      expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
      expect(Object.is(ours.toNumber(), theirs.toNumber())).toBe(true);
      expect([ours.isZero(), ours.isNegative(), ours.isPositive(), ours.isInteger()]).toEqual([
        theirs.isZero(),
        theirs.isNegative(),
        theirs.isPositive(),
        theirs.isInteger(),
      ]);
      for (const dp of [0, 2, 6]) expect(ours.toFixed(dp)).toBe(theirs.toFixed(dp));
    }
  });

  it('dec() reads a plain decimal string into the parts new Dec() makes, and shares equal small values', () => {
    const texts = ['0', '-0', '0.000', '-0.0', '12', '12.0', '7.50', '.5', '5.', '0.000001', '2047.99', '2048', '-3'];
    for (let i = 0; i < N; i++) {
      const whole = String(int(10 ** int(9)));
      const places = int(7);
      const text = places === 0 ? whole : `${whole}.${String(int(10 ** places)).padStart(places, '0')}`;
      texts.push(random() < 0.2 ? `-${text}` : text);
    }
    for (const text of texts) {
      const [a, b] = [dec(text), new Dec(text)];
      expect([a.c, a.big, a.scale, Object.is(a.c, -0)], text).toEqual([b.c, b.big, b.scale, Object.is(b.c, -0)]);
    }
    expect(dec('12.0')).toBe(dec('12'));
    expect(dec('-0')).not.toBe(dec('0'));
  });

  it('rejects what is not a finite decimal', () => {
    for (const bad of ['', '.', '-', 'abc', '1.2.3', '1..2', 'NaN', 'Infinity', '--1', '1e', '1-', ' 1']) {
      expect(() => new Dec(bad)).toThrow();
      expect(() => dec(bad)).toThrow(/not a finite decimal/);
    }
    expect(() => new Dec(Number.NaN)).toThrow();
    expect(() => new Dec(Number.POSITIVE_INFINITY)).toThrow();
  });

  it('+ − × ÷ divToInt mod and the comparisons agree on random pairs', () => {
    for (let i = 0; i < N; i++) {
      const x = operand();
      const y = operand();
      const [a, b] = [new Dec(x), new Dec(y)];
      const [c, d] = [new Old(x), new Old(y)];
      const pair = `${x} ? ${y}`;
      same(a.plus(b), c.plus(d), `${x} + ${y}`);
      same(a.minus(b), c.minus(d), `${x} - ${y}`);
      same(a.times(b), c.times(d), `${x} × ${y}`);
      // decimal.js rounds results beyond 60 significant digits; the domain's stay below 31 (see decimal.ts)
      if (significantDigits(a.times(b).times(b)) <= 60) {
        same(a.times(b).times(b), c.times(d).times(d), `${x} × ${y} × ${y}`);
      }
      same(a.times(b).plus(a), c.times(d).plus(c), `${x} × ${y} + ${x}`);
      if (significantDigits(a.times(b).minus(b.times(b))) <= 60 && significantDigits(b.times(b)) <= 60) {
        same(a.times(b).minus(b.times(b)), c.times(d).minus(d.times(d)), `${x} × ${y} − ${y}²`);
      }
      if (!b.isZero()) {
        same(a.divToInt(b), c.divToInt(d), `${x} divToInt ${y}`);
        same(a.times(b).divToInt(b), c.times(d).divToInt(d), `${x} × ${y} divToInt ${y}`);
        same(a.mod(b), c.mod(d), `${x} mod ${y}`);
        same(a.dividedBy(b), c.dividedBy(d), `${x} ÷ ${y}`);
      }
      expect(a.comparedTo(b), pair).toBe(c.comparedTo(d));
      expect([a.eq(b), a.lt(b), a.lte(b), a.gt(b), a.gte(b)], pair).toEqual([
        c.eq(d),
        c.lt(d),
        c.lte(d),
        c.gt(d),
        c.gte(d),
      ]);
      // number and string arguments, as decimal.js takes them
      same(a.plus(y), c.plus(y), `${x} + '${y}'`);
      same(a.times(12), c.times(12), `${x} × 12`);
      expect(a.eq(y)).toBe(c.eq(y));
    }
  });

  it('non-terminating and 60-digit quotients round half up at the 60th significant digit, as decimal.js', () => {
    const ones = `1${'0'.repeat(59)}`; // 10^59: 60 digits
    const pairs: [string, string][] = [
      ['1', '3'],
      ['2', '3'],
      ['-2', '3'],
      ['1', '7'],
      ['22', '7'],
      ['3500', '56'],
      ['1', '56'],
      ['0.000001', '999.999999'],
      ['100000000', '0.000003'],
      [`${ones}1`, '2'], // 61 digits ending in .5 after the 60th: a tie, rounds up
      [`-${ones}1`, '2'],
      [`${ones}3`, '4'],
      [`${ones}5`, '3'],
      [`${ones}0`, '3'],
      ['-0', '7'],
      ['0', '-7'],
      ['1', '7000000'], // leading zeros after the point: a whole step of zero digits
      ['1', '900000000000000'], // the largest divisor of the number path (one digit per step)
      ['1', '900000000000001'], // the first past it (the BigInt path)
      ['9007199254740991', '9007199254740990'],
      ['0.000001', '9007199254740991'],
      [`9${'9'.repeat(59)}`, '1.0000000000000000000000000000000000000000000000000000000000001'],
      ['999999', '999999.5'], // 60 nines before the rounding digit: the carry adds a digit
    ];
    for (let i = 0; i < 2_000; i++) pairs.push([operand(), String(1 + int(999_999))]);
    // long operands on both sides: quotients of 61 digits before rounding, divisors longer than the dividend
    for (let i = 0; i < 5_000; i++) pairs.push([longOperand(), longOperand()]);
    for (const [x, y] of pairs) same(new Dec(x).dividedBy(y), new Old(x).dividedBy(y), `${x} ÷ ${y}`);
  });

  it('the percentage of the `none` reading (num × 100 ÷ den, to 6 places) is as decimal.js computes it', () => {
    for (let i = 0; i < N; i++) {
      const den = `${1 + int(3000)}.${String(int(999_999)).padStart(6, '0')}`;
      const num = `${int(3000)}.${String(int(999_999)).padStart(6, '0')}`;
      const ours = new Dec(num).times(100).dividedBy(den).toDecimalPlaces(6, Dec.ROUND_HALF_UP);
      same(ours, new Old(num).times(100).dividedBy(den).toDecimalPlaces(6, Decimal.ROUND_HALF_UP), `${num}% of ${den}`);
    }
  });

  it('divisions by powers of ten (÷ 100 of a percentage) are exact shifts of the point', () => {
    for (let i = 0; i < N; i++) {
      const x = operand();
      for (const p of ['1', '10', '100', '-100', '1000000'])
        same(new Dec(x).dividedBy(p), new Old(x).dividedBy(p), `${x} ÷ ${p}`);
    }
  });

  it('rounding: toDecimalPlaces in every mode, floor, abs, negated, toFixed(dp)', () => {
    for (let i = 0; i < N; i++) {
      // a parsed value, or a product (its scale the sum of two: -0 × 0.5 is -0 with one decimal)
      const [x, y] = [operand(), operand()];
      const product = i % 2 === 1 && significantDigits(new Dec(x).times(y)) <= 60;
      const [a, c] = product ? [new Dec(x).times(y), new Old(x).times(y)] : [new Dec(x), new Old(x)];
      for (const dp of [0, 1, 2, 4, 6]) {
        for (const rm of MODES) {
          same(
            a.toDecimalPlaces(dp, rm),
            c.toDecimalPlaces(dp, rm as Parameters<typeof c.toDecimalPlaces>[1]),
            `${a.valueOf()} toDP(${dp}, ${rm})`,
          );
        }
        same(a.toDecimalPlaces(dp), c.toDecimalPlaces(dp), `${a.valueOf()} toDP(${dp})`);
        expect(a.toFixed(dp), x).toBe(c.toFixed(dp));
      }
      same(a.floor(), c.floor(), `floor ${a.valueOf()}`);
      same(a.abs(), c.abs(), `abs ${a.valueOf()}`);
      same(a.negated(), c.negated(), `negated ${a.valueOf()}`);
    }
  });

  it('toJsonNumber gives the previous numbers and refuses the same values', () => {
    const values: string[] = [...FIXED];
    for (let i = 0; i < N; i++) values.push(operand());
    for (const x of values) {
      for (const v of [x, new Old(x).times(new Old(x)).toFixed()]) {
        let ours: number | string;
        let theirs: number | string;
        try {
          ours = toJsonNumber(new Dec(v));
        } catch (e) {
          ours = (e as Error).message;
        }
        try {
          theirs = oldToJsonNumber(new Old(v));
        } catch (e) {
          theirs = (e as Error).message;
        }
        expect(Object.is(ours, theirs), `${v}: ${ours} vs ${theirs}`).toBe(true);
      }
    }
  });
});
