/** The request's size limits (rules.md §8), shared by the schema (request.ts) and its fast path. */

/** Most terms a request may hold (rules.md §8): an academic year has at most 4 terms. */
export const MAX_TERMS = 4;
/**
 * Terms inspected field by field when a request holds too many: the count error is reported at `terms`, and the
 * items past this index are not inspected (this bounds the work and the size of the error list for hostile
 * bodies; a request over MAX_TERMS must be resent with fewer terms anyway).
 */
export const MAX_INSPECTED_TERMS = 16;

/** A term's label: 1 to 100 characters (rules.md §8, revision 2026-27.3), counted as Unicode code points. */
export const MIN_LABEL_LENGTH = 1;
export const MAX_LABEL_LENGTH = 100;

/** The label's length in code points (an emoji is one character, as a registrar counts it). */
export function labelLength(label: string): number {
  if (label.length <= MAX_LABEL_LENGTH) {
    let surrogates = 0;
    for (let i = 0; i < label.length; i++) {
      const c = label.charCodeAt(i);
      if (c >= 0xdc00 && c <= 0xdfff && i > 0 && (label.charCodeAt(i - 1) & 0xfc00) === 0xd800) surrogates++;
    }
    return label.length - surrogates;
  }
  let count = 0;
  for (const _ of label) count++;
  return count;
}

/** True when a label is within MIN_LABEL_LENGTH..MAX_LABEL_LENGTH characters. */
export function isLabelLengthValid(label: string): boolean {
  if (label.length === 0) return false;
  if (label.length <= MAX_LABEL_LENGTH) return true;
  return labelLength(label) <= MAX_LABEL_LENGTH;
}
