/**
 * Canonical decimals (rules.md §1, §8): what is accepted, what it becomes, and what is rejected, for JSON
 * numbers and decimal strings alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandExponent, toCanonicalDecimal, type DecimalRule } from '../../src/schema/decimal.ts';

const CREDITS: DecimalRule = { kind: 'credits', positive: false };
const POSITIVE: DecimalRule = { kind: 'credits', positive: true };
const MONEY: DecimalRule = { kind: 'money', positive: false };

const ok = (input: unknown, rule: DecimalRule = CREDITS) => {
  const r = toCanonicalDecimal(input, rule);
  if (!r.ok) throw new Error(`${JSON.stringify(input)} rejected: ${r.message}`);
  return r.value;
};
const rejected = (input: unknown, rule: DecimalRule = CREDITS) => {
  const r = toCanonicalDecimal(input, rule);
  expect(r.ok, String(input)).toBe(false);
  return r.ok ? '' : r.message;
};

describe('canonical form', () => {
  it.each([
    ['10.5', '10.5'],
    [10.5, '10.5'],
    ['1.5000000', '1.5'],
    ['+007.50', '7.5'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['-0', '0'],
    ['-0.000', '0'],
    [-0, '0'],
    ['0', '0'],
    ['000', '0'],
    ['24.0', '24'],
    [24.0, '24'],
    ['1000', '1000'],
    ['999.999999', '999.999999'],
    [0.000001, '0.000001'],
    [1.2e1, '12'],
  ])('%j → %s', (input, expected) => {
    expect(ok(input)).toBe(expected);
  });

  it('money keeps up to 9 integer digits', () => {
    expect(ok('100000000', MONEY)).toBe('100000000');
    expect(ok(99_999_999.999999, MONEY)).toBe('99999999.999999');
  });
});

describe('rejections', () => {
  it.each(['+.', '1e3', ' 5', '5 ', '', '.', '+', '-', '1,5', '١', 'Infinity', '0x1', '1_000'])('grammar: %j', (s) => {
    expect(rejected(s)).toMatch(/decimal number/);
  });

  it('33 characters as written are rejected even when the value is fine', () => {
    expect(rejected('0'.repeat(32) + '1')).toMatch(/32 characters/);
    expect(ok('0'.repeat(31) + '1')).toBe('1');
  });

  it.each([6.1234567, '6.1234567', 1.5e-7, '0.0000001', 1e-7])('more than 6 decimals: %j', (v) => {
    expect(rejected(v)).toMatch(/6 decimal places/);
  });

  it.each([-1, '-0.5', -0.000001, '-1000'])('negative: %j', (v) => {
    expect(rejected(v)).toMatch(/negative/);
  });

  it.each([0, '0', '-0', '0.0', -3])('not positive where > 0 is required: %j', (v) => {
    expect(rejected(v, POSITIVE)).toMatch(/greater than 0/);
  });

  it.each([1000.000001, '1000.000001', 1001, '1000000000000000000000000', 1e21])('credits over 1,000: %j', (v) => {
    expect(rejected(v)).toMatch(/at most 1,000/);
  });

  it.each([100_000_000.01, '100000001', 1e9])('money over 100,000,000: %j', (v) => {
    expect(rejected(v, MONEY)).toMatch(/at most 100,000,000/);
  });

  it.each([Infinity, -Infinity, NaN])('non-finite %j', (v) => {
    expect(rejected(v)).toMatch(/finite/);
  });

  it.each([null, undefined, true, {}, [], 5n])('wrong type %s', (v) => {
    expect(rejected(v)).toMatch(/number or a decimal string/);
  });
});

describe('exponent expansion', () => {
  it.each([
    ['1.5e-7', '0.00000015'],
    ['1e+21', '1000000000000000000000'],
    ['-2.5e-3', '-0.0025'],
    ['1.23e+2', '123'],
    ['1.2345e+2', '123.45'],
  ])('%s → %s', (input, expected) => {
    expect(expandExponent(input)).toBe(expected);
  });
});

describe('properties', () => {
  it('a number and its decimal string give the same canonical value (or the same rejection)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -2_000_000, max: 2_000_000_000 }),
        fc.integer({ min: 0, max: 7 }),
        (units, scale) => {
          const n = units / 10 ** scale;
          const s = n.toFixed(scale);
          const a = toCanonicalDecimal(n, CREDITS);
          const b = toCanonicalDecimal(s, CREDITS);
          expect(a).toEqual(b);
        },
      ),
    );
  });

  it('canonical values are fixed points and never carry a sign, exponent or trailing zero', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[+-]?\d{0,4}(\.\d{0,7})?$/), (s) => {
        const r = toCanonicalDecimal(s, CREDITS);
        if (!r.ok) return;
        expect(r.value).toMatch(/^(0|[1-9]\d*)(\.\d*[1-9])?$/);
        expect(toCanonicalDecimal(r.value, CREDITS)).toEqual(r);
      }),
    );
  });
});
