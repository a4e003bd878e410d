/**
 * Decimals read from the schema layer's canonical strings (`dec`) and small whole numbers (`decInt`), with the
 * values the hot paths repeat shared instead of allocated again: bulk files hold the same few credit values
 * millions of times, and the term facts are memoised by decimal identity (terms.ts).
 */
import { Dec } from './decimal.ts';

const SMALL_INTEGERS: readonly Dec[] = Array.from({ length: 33 }, (_, i) => new Dec(i));

/** A whole number ≥ 0 as a decimal, shared for the small counts (term counts) that hot paths use. */
export function decInt(value: number): Dec {
  return SMALL_INTEGERS[value] ?? new Dec(value);
}

const PARSE_CACHE_LIMIT = 4096;
const parseCache = new Map<string, Dec>();

/** Shared decimals of the small values ≥ 0 with at most 2 places (credits, percentages): SMALL[scale][coefficient]. */
const SMALL_LIMIT = 2048;
const SMALL: (Dec | undefined)[][] = [[], [], []];

/**
 * A plain decimal string — an optional "-", at most 15 digits, at most one point — read without a regular
 * expression, as parseDecimal reads it (trailing zeros after the point dropped, zero at scale 0, "-0" is −0);
 * undefined for anything else.
 */
function plainDec(value: string): Dec | undefined {
  const n = value.length;
  if (n === 0 || n > 17) return undefined;
  const negative = value.charCodeAt(0) === 45; // '-'
  let c = 0;
  let digits = 0;
  let scale = 0;
  let point = false;
  for (let i = negative ? 1 : 0; i < n; i++) {
    const ch = value.charCodeAt(i);
    if (ch >= 48 && ch <= 57) {
      c = c * 10 + (ch - 48);
      digits++;
      if (point) scale++;
    } else if (ch === 46 && !point) {
      point = true;
    } else {
      return undefined;
    }
  }
  if (digits === 0 || digits > 15) return undefined;
  if (c === 0) scale = 0;
  else
    while (scale > 0 && c % 10 === 0) {
      c /= 10;
      scale--;
    }
  if (negative) return new Dec(-c, scale);
  if (c >= SMALL_LIMIT || scale > 2) return new Dec(c, scale);
  const row = SMALL[scale]!;
  return (row[c] ??= new Dec(c, scale));
}

/**
 * Parses a canonical decimal string from the schema layer. A plain decimal (the schema's canonical form) is read
 * directly, the small ones shared (bulk files repeat the same few credit values millions of times, and the term
 * facts are memoised by decimal identity: terms.ts); money amounts are as many as the students, so a cache of
 * them would only be cleared and refilled. Anything else is parsed as `new Dec` parses it, through a small
 * bounded cache.
 */
export function dec(value: string): Dec {
  const plain = plainDec(value);
  if (plain !== undefined) return plain;
  const cached = parseCache.get(value);
  if (cached !== undefined) return cached;
  let parsed: Dec;
  try {
    parsed = new Dec(value);
  } catch {
    throw new Error(`not a finite decimal: ${JSON.stringify(value)}`);
  }
  if (parseCache.size >= PARSE_CACHE_LIMIT) parseCache.clear();
  parseCache.set(value, parsed);
  return parsed;
}
