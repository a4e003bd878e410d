/**
 * JSON numbers judged by what the client wrote (rules.md §1, §8), not by the binary double JSON.parse makes of
 * them. `3500.0000000000001` parses to the double 3500 and `1e-400` to 0: read as doubles they would pass the
 * 6-decimal and bound rules although the client's value breaks them.
 *
 * V8's JSON.parse hands a reviver the source text of every primitive (`context.source`, Node ≥ 21). A number is
 * **exact** when its source text and the shortest text of its double denote the same decimal value; it then stays
 * the number it is. A number that is not exact cannot be in the service's domain: every in-bounds value with at
 * most 6 decimals has at most 15 significant digits, and every such decimal survives a double unchanged. So an
 * inexact number has either more than 6 decimal places or an integer part beyond every bound, and the reviver
 * replaces it with a stand-in number that the request schema rejects for the same reason
 * (INEXACT_PLACES_STANDIN: 7 decimal places; INEXACT_MAGNITUDE_STANDIN: beyond every bound), keeping its sign so a
 * negative value is still told it is negative where that check comes first. The stand-ins exist only on the way to
 * a 422: no calculation can ever receive one.
 */

/** Stand-in for an inexact number with more than 6 decimal places (0.0000001 has 7). */
export const INEXACT_PLACES_STANDIN = 1e-7;
/** Stand-in for an inexact number whose integer part is beyond every bound of rules.md §8. */
export const INEXACT_MAGNITUDE_STANDIN = 1e21;

/** A decimal value as sign, significant digits (no leading or trailing zeros) and the point's position. */
interface DecimalDigits {
  negative: boolean;
  /** Significant digits; '' for zero. */
  digits: string;
  /** The decimal point sits after this many of `digits` (may be negative or beyond the digits). */
  point: number;
}

const JSON_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Reads a JSON number's text (also what String(number) prints) exactly; null for anything else (Infinity). */
export function decimalDigits(text: string): DecimalDigits | null {
  const match = JSON_NUMBER.exec(text);
  if (match === null) return null;
  const int = match[2] ?? '';
  const frac = match[3] ?? '';
  const exponent = match[4] === undefined ? 0 : Number(match[4]);
  let all = int + frac;
  let point = int.length + exponent;
  let lead = 0;
  while (lead < all.length && all.charCodeAt(lead) === 48) lead++;
  all = all.slice(lead);
  point -= lead;
  let end = all.length;
  while (end > 0 && all.charCodeAt(end - 1) === 48) end--;
  all = all.slice(0, end);
  if (all.length === 0) return { negative: false, digits: '', point: 0 };
  return { negative: match[1] === '-', digits: all, point };
}

function sameValue(a: DecimalDigits, b: DecimalDigits): boolean {
  return a.negative === b.negative && a.digits === b.digits && a.point === b.point;
}

/**
 * The number JSON.parse should hand the schema for a number literal: `value` itself when `source` denotes the
 * same decimal, otherwise the stand-in for the rule the source breaks.
 */
export function exactJsonNumber(value: number, source: string): number {
  const written = decimalDigits(source);
  if (written === null) return value;
  const parsed = decimalDigits(String(value));
  if (parsed !== null && sameValue(written, parsed)) return value;
  const places = written.digits.length - written.point;
  const sign = written.negative ? -1 : 1;
  return sign * (places > 6 ? INEXACT_PLACES_STANDIN : INEXACT_MAGNITUDE_STANDIN);
}

/**
 * A point and 7 digits, 10 digits, or a digit and an exponent mark: `\.\d{7}|\d{10}|\d[eE]` with the two
 * alternatives that start with a digit merged, which lets V8's regex engine try one digit test per position
 * instead of three alternatives (same matches, about 2.8x faster on a request body).
 */
export const MAY_BE_INEXACT = /\d(?:\d{9}|[eE])|\.\d{7}/;

interface ReviverContext {
  source?: string;
}

function reviver(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  return exactJsonNumber(value, context.source);
}

type ParseWithSource = (
  text: string,
  reviver: (key: string, value: unknown, context?: ReviverContext) => unknown,
) => unknown;

/**
 * JSON.parse whose numbers are judged by their source text (see above). Throws SyntaxError like JSON.parse.
 *
 * V8 walks the reviver recursively, so a document nested tens of thousands of levels deep overflows the stack
 * there although JSON.parse itself is not recursive. Such a document can never be a valid request (no field of
 * one nests more than two levels), so it is parsed without the reviver and the schema rejects it as it would.
 */
export function parseJsonExact(text: string): unknown {
  // An inexact number has more than 6 decimals (7 digits after a point), 10 or more integer digits, or an
  // exponent (rules.md bounds, see above). A body without any of those shapes anywhere — string contents included,
  // which only ever sends a body to the slow path — has no inexact number, and the reviver (a third of the cost
  // of a request's parsing) is skipped.
  if (!MAY_BE_INEXACT.test(text)) return JSON.parse(text) as unknown;
  try {
    return (JSON.parse as ParseWithSource)(text, reviver);
  } catch (err) {
    if (err instanceof RangeError) return JSON.parse(text) as unknown;
    throw err;
  }
}
