/**
 * Decimal inputs (rules.md §1, §8): every credit and money field takes a JSON number or a decimal string, and the
 * service turns either into ONE canonical decimal string before the domain sees it, so `10.5` and `"10.5"` give
 * byte-identical answers and no binary floating point reaches a calculation.
 *
 * Canonical form: no sign for zero or positives, no leading zeros, no trailing fractional zeros, no dangling
 * point, no exponent: "+007.50" → "7.5", ".5" → "0.5", "5." → "5", "-0" → "0", "1.5000000" → "1.5".
 *
 * Rules applied to the VALUE in both forms: at most 6 decimal places once trailing zeros are dropped, not
 * negative ("-0" is zero), within the field's upper bound. The 32-character limit applies to decimal strings as
 * written. A JSON number is read through `String(n)` (the shortest text that round-trips the IEEE double);
 * exponent forms such as 1.5e-7 are expanded exactly and then checked like any other value. Every in-bounds
 * value (at most 9 integer digits and 6 decimals, so at most 15 significant digits) round-trips exactly through
 * a double, so a JSON number and its decimal string always yield the same canonical string.
 */

/** Decimal string grammar of rules.md §8: optional sign, digits, optional point and digits. */
export const DECIMAL_PATTERN = '^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)$';
const DECIMAL_RE = new RegExp(DECIMAL_PATTERN);

export const MAX_DECIMAL_STRING_LENGTH = 32;
export const MAX_DECIMAL_PLACES = 6;
/** Upper bound for credit fields (full_time_credits, credits_enrolled, actual_final_credits). */
export const MAX_CREDITS = 1000;
/** Upper bound for money fields (dollars). */
export const MAX_MONEY = 100_000_000;

export type DecimalKind = 'credits' | 'money';

export interface DecimalRule {
  kind: DecimalKind;
  /** true: the value must be > 0 (full_time_credits, total_limit); otherwise >= 0. */
  positive: boolean;
}

/** The four rules of the request's decimal fields: credits or money, zero allowed or not. */
export const CREDITS: DecimalRule = { kind: 'credits', positive: false };
export const CREDITS_POSITIVE: DecimalRule = { kind: 'credits', positive: true };
export const MONEY: DecimalRule = { kind: 'money', positive: false };
export const MONEY_POSITIVE: DecimalRule = { kind: 'money', positive: true };

export const MESSAGES = {
  type: 'must be a number or a decimal string',
  grammar:
    'must be a decimal number written as an optional sign, digits, an optional decimal point and digits ' +
    '(no spaces, exponents or thousands separators)',
  length: `must be at most ${MAX_DECIMAL_STRING_LENGTH} characters long when sent as a decimal string`,
  places: `must have at most ${MAX_DECIMAL_PLACES} decimal places`,
  finite: 'must be a finite number',
  negative: 'must not be negative',
  positive: 'must be greater than 0',
  maxCredits: `must be at most ${MAX_CREDITS.toLocaleString('en-US')} credits`,
  maxMoney: `must be at most ${MAX_MONEY.toLocaleString('en-US')} dollars`,
} as const;

export type DecimalOutcome = { ok: true; value: string } | { ok: false; message: string };

const MAX_INT_DIGITS = { credits: String(MAX_CREDITS).length, money: String(MAX_MONEY).length } as const;
const MAX_VALUE = { credits: MAX_CREDITS, money: MAX_MONEY } as const;

/**
 * Checks and canonicalises one credit or money value (a JSON number or a decimal string). Pure and allocation-
 * light: the bulk pipeline calls it for every cell of millions of rows.
 */
export function toCanonicalDecimal(input: unknown, rule: DecimalRule): DecimalOutcome {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, message: MESSAGES.finite };
    // Fast path: a whole number in bounds is already canonical (String(-0) is "0").
    if (Number.isInteger(input) && input >= 0 && input <= MAX_VALUE[rule.kind]) {
      if (rule.positive && input === 0) return { ok: false, message: MESSAGES.positive };
      return { ok: true, value: String(input) };
    }
    text = String(input);
    if (text.includes('e')) text = expandExponent(text);
  } else if (typeof input === 'string') {
    if (input.length > MAX_DECIMAL_STRING_LENGTH) return { ok: false, message: MESSAGES.length };
    if (!DECIMAL_RE.test(input)) return { ok: false, message: MESSAGES.grammar };
    text = input;
  } else {
    return { ok: false, message: MESSAGES.type };
  }
  return canonicalise(text, rule);
}

/** `text` matches DECIMAL_RE (strings) or is a plain expansion of String(number). */
function canonicalise(text: string, rule: DecimalRule): DecimalOutcome {
  let start = 0;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === 45 /* - */) {
    negative = true;
    start = 1;
  } else if (first === 43 /* + */) {
    start = 1;
  }
  const point = text.indexOf('.', start);
  let intEnd = point === -1 ? text.length : point;
  let intStart = start;
  while (intStart < intEnd && text.charCodeAt(intStart) === 48 /* 0 */) intStart++;
  let fracEnd = text.length;
  if (point !== -1) {
    while (fracEnd > point + 1 && text.charCodeAt(fracEnd - 1) === 48) fracEnd--;
  } else {
    intEnd = text.length;
  }
  const intDigits = text.slice(intStart, intEnd);
  const fracDigits = point === -1 ? '' : text.slice(point + 1, fracEnd);
  if (fracDigits.length > MAX_DECIMAL_PLACES) return { ok: false, message: MESSAGES.places };
  const isZero = intDigits.length === 0 && fracDigits.length === 0;
  if (isZero) {
    return rule.positive ? { ok: false, message: MESSAGES.positive } : { ok: true, value: '0' };
  }
  if (negative) return { ok: false, message: rule.positive ? MESSAGES.positive : MESSAGES.negative };
  const max = MAX_VALUE[rule.kind];
  if (
    intDigits.length > MAX_INT_DIGITS[rule.kind] ||
    Number(intDigits) > max ||
    (Number(intDigits) === max && fracDigits.length > 0)
  ) {
    return { ok: false, message: rule.kind === 'credits' ? MESSAGES.maxCredits : MESSAGES.maxMoney };
  }
  const whole = intDigits.length === 0 ? '0' : intDigits;
  return { ok: true, value: fracDigits.length === 0 ? whole : `${whole}.${fracDigits}` };
}

/**
 * Exact plain-decimal expansion of an exponent form produced by String(number), e.g. "1.5e-7" → "0.00000015",
 * "1e+21" → "1000000000000000000000". No floating point involved: only digit shuffling.
 */
export function expandExponent(text: string): string {
  const e = text.indexOf('e');
  const mantissa = text.slice(0, e);
  const exponent = Number(text.slice(e + 1));
  const negative = mantissa.startsWith('-');
  const unsigned = negative ? mantissa.slice(1) : mantissa;
  const point = unsigned.indexOf('.');
  const digits = point === -1 ? unsigned : unsigned.slice(0, point) + unsigned.slice(point + 1);
  const pointAt = (point === -1 ? unsigned.length : point) + exponent;
  let plain: string;
  if (pointAt <= 0) plain = `0.${'0'.repeat(-pointAt)}${digits}`;
  else if (pointAt >= digits.length) plain = digits + '0'.repeat(pointAt - digits.length);
  else plain = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return negative ? `-${plain}` : plain;
}

/**
 * The hot path of parseCalculationRequest (request.ts): the canonical string `toCanonicalDecimal` returns for a
 * value it accepts, or null for anything else — an invalid value, and also the rare valid forms this scan does not
 * handle (a "-0" string, a number below 1e-6), which the caller then hands to the zod path, where
 * toCanonicalDecimal decides. Never a different answer: test/schema/fast-path.test.ts compares the two on random
 * values. No outcome object, no regex, and a string that is already canonical ("12", "7.5") is returned as it is,
 * so the common case allocates nothing.
 */
export function canonicalDecimalOrNull(input: unknown, rule: DecimalRule): string | null {
  const max = rule.kind === 'credits' ? MAX_CREDITS : MAX_MONEY;
  if (typeof input === 'number') {
    // NaN fails both comparisons; -0 passes (String(-0) is "0").
    if (!(input >= 0 && input <= max)) return null;
    if (input === 0) return rule.positive ? null : '0';
    if (Number.isInteger(input)) return String(input);
    // A non-integer in (0, max): String() is plain decimal notation from 1e-6 up, already canonical (no leading or
    // trailing zeros); an exponent form ("4.4e-323", below 1e-6) has more than 6 decimal places anyway.
    const text = String(input);
    if (text.includes('e') || text.length - text.indexOf('.') - 1 > MAX_DECIMAL_PLACES) return null;
    return text;
  }
  if (typeof input !== 'string') return null;
  const n = input.length;
  if (n === 0 || n > MAX_DECIMAL_STRING_LENGTH) return null;
  let i = input.charCodeAt(0) === 43 /* + */ ? 1 : 0;
  const start = i;
  while (i < n && input.charCodeAt(i) === 48 /* 0 */) i++;
  const intStart = i;
  let whole = 0;
  let c = 0;
  while (i < n && (c = input.charCodeAt(i)) >= 48 && c <= 57) {
    whole = whole * 10 + (c - 48);
    i++;
  }
  const intEnd = i;
  let fracEnd = i;
  if (i < n) {
    if (c !== 46 /* . */) return null;
    i++;
    while (i < n && (c = input.charCodeAt(i)) >= 48 && c <= 57) i++;
    if (i < n) return null;
    fracEnd = n;
    while (fracEnd > intEnd + 1 && input.charCodeAt(fracEnd - 1) === 48) fracEnd--;
    // No digit at all ("+", ".", "+."): not a decimal.
    if (intEnd === start && n - intEnd === 1) return null;
  } else if (intEnd === start) {
    return null; // "" or "+"
  }
  const places = fracEnd === intEnd ? 0 : fracEnd - intEnd - 1;
  if (places > MAX_DECIMAL_PLACES) return null;
  if (intEnd - intStart > 9) return null; // beyond every bound (and beyond exact integer accumulation)
  if (whole > max || (whole === max && places > 0)) return null;
  if (whole === 0 && places === 0) return rule.positive ? null : '0';
  // Already canonical: no sign, no leading zero other than the one of "0.x", no trailing zero or dangling point.
  if (start === 0 && fracEnd === n && (places > 0 || intEnd === n)) {
    if ((intStart === 0 && intEnd > 0) || (intStart === 1 && intEnd === 1 && places > 0)) return input;
  }
  const wholeText = intEnd === intStart ? '0' : input.slice(intStart, intEnd);
  return places === 0 ? wholeText : `${wholeText}.${input.slice(intEnd + 1, fracEnd)}`;
}
