/**
 * The parts of the domain's decimal (src/domain/decimal.ts) and the text on both sides of it: reading a number or
 * a decimal string into coefficient and scale as decimal.js reads it, and writing the parts back in normal or
 * exponent notation as decimal.js writes them. Plain functions over the parts, so that the class keeps only its
 * arithmetic; test/domain/decimal.test.ts checks both directions against decimal.js.
 */

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** 10^0 … 10^22: exact doubles. */
export const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);
const BIG_POW10: bigint[] = [];
export function bigPow10(k: number): bigint {
  for (let i = BIG_POW10.length; i <= k; i++) BIG_POW10.push(10n ** BigInt(i));
  return BIG_POW10[k]!;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

export function invalid(value: unknown): Error {
  return new Error(`[DecimalError] Invalid argument: ${String(value)}`);
}

export function negativeSign(c: number): boolean {
  return c < 0 || (c === 0 && 1 / c < 0);
}

/** A decimal's parts: value = coefficient × 10^-scale (`Dec` holds exactly these). */
export interface DecParts {
  /** The coefficient when `big` is null: a safe integer (may be -0). */
  readonly c: number;
  /** The coefficient when it is not a safe integer (never within the safe range). */
  readonly big: bigint | null;
  /** Digits after the point, ≥ 0. */
  readonly scale: number;
}

/** Zero (either sign). */
export function isZeroParts(x: DecParts): boolean {
  return x.big === null && x.c === 0;
}

/** Below zero, or -0, as decimal.js. */
export function isNegativeParts(x: DecParts): boolean {
  return x.big === null ? negativeSign(x.c) : x.big < 0n;
}

/** The parts of a number (through its shortest decimal form, as decimal.js) or of a decimal string. */
export function parseDecimal(value: number | string): DecParts {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && Math.abs(value) <= MAX_SAFE) return { c: value, big: null, scale: 0 };
    if (!Number.isFinite(value)) throw invalid(value);
    value = String(value);
  }
  const m = DECIMAL_TEXT.exec(value);
  if (m === null) throw invalid(value);
  const intPart = m[2]!;
  const fracPart = m[3] ?? '';
  if (intPart === '' && fracPart === '') throw invalid(value);
  let digits = intPart + fracPart;
  let s = fracPart.length - (m[4] === undefined ? 0 : Number(m[4]));
  let start = 0;
  while (start < digits.length - 1 && digits.charCodeAt(start) === 48) start++;
  let end = digits.length;
  while (s > 0 && end > start + 1 && digits.charCodeAt(end - 1) === 48) {
    end--;
    s--;
  }
  digits = digits.slice(start, end);
  if (digits === '0') s = 0;
  if (s < 0) {
    digits += '0'.repeat(-s);
    s = 0;
  }
  const negative = m[1] === '-';
  if (digits.length <= 15) {
    const n = Number(digits);
    return { c: negative ? -n : n, big: null, scale: s };
  }
  const b = BigInt(digits);
  const signed = negative ? -b : b;
  if (signed >= -9007199254740991n && signed <= 9007199254740991n) return { c: Number(signed), big: null, scale: s };
  return { c: 0, big: signed, scale: s };
}

/** The coefficient's digits without its sign (value = ± digits × 10^-scale). */
function magnitudeDigits(x: DecParts): string {
  return x.big === null ? String(Math.abs(x.c)) : String(x.big < 0n ? -x.big : x.big);
}

/** x in exponent notation when its exponent is ≥ 40 or ≤ -40 (decimal.js's toString), else null. */
export function exponentText(x: DecParts): string | null {
  if (isZeroParts(x)) return null;
  let digits = magnitudeDigits(x);
  const e = digits.length - 1 - x.scale;
  if (e > -40 && e < 40) return null;
  digits = digits.replace(/0+$/, '');
  const mantissa = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${isNegativeParts(x) ? '-' : ''}${mantissa}e${e < 0 ? '-' : '+'}${Math.abs(e)}`;
}

/** The digits of x in normal notation, without trailing zeros when `trim`; with "-" when x is below zero. */
export function plainText(x: DecParts, trim: boolean): string {
  const negative = isNegativeParts(x) && !isZeroParts(x);
  let digits = magnitudeDigits(x);
  let s = x.scale;
  if (trim) {
    let end = digits.length;
    while (s > 0 && end > 1 && digits.charCodeAt(end - 1) === 48) {
      end--;
      s--;
    }
    if (end !== digits.length) digits = digits.slice(0, end);
  }
  let text: string;
  if (s === 0) text = digits;
  else if (digits.length > s) text = `${digits.slice(0, digits.length - s)}.${digits.slice(digits.length - s)}`;
  else text = `0.${'0'.repeat(s - digits.length)}${digits}`;
  if (text === '0' || (trim && digits === '0')) return '0';
  return negative ? `-${text}` : text;
}

/** x, already rounded to at most dp places, written with exactly dp places; "-" when `negative`. */
export function fixedText(x: DecParts, dp: number, negative: boolean): string {
  const text = plainText(x.big === null ? { c: Math.abs(x.c), big: null, scale: x.scale } : absBig(x), false);
  const padded = dp > x.scale ? text + (x.scale === 0 ? '.' : '') + '0'.repeat(dp - x.scale) : text;
  return negative ? `-${padded}` : padded;
}

function absBig(x: DecParts): DecParts {
  return { c: 0, big: x.big! < 0n ? -x.big! : x.big, scale: x.scale };
}
