/**
 * Text from a request or an answer (student ids, term labels, warnings, error messages) shown inert: each
 * bidirectional-control character becomes a visible escape (‹U+202E›), the same escapes and the same characters as
 * the HTML and PDF worksheets (src/api/worksheet/content.ts showBidiControls), and the text sits in its own
 * isolate (`unicode-bidi: isolate`, class `inert` in page.css), so it cannot reorder what surrounds it. Only what
 * is shown changes: the values sent to the service are never touched.
 */

/**
 * Embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069), the left-to-right and right-to-left marks
 * (U+200E, U+200F) and the Arabic letter mark (U+061C): in a student id they reorder what a reader sees (a
 * right-to-left override shows "1234" as "4321").
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** True when `text` holds a bidirectional-control character. */
export function hasBidiControls(text: string): boolean {
  BIDI_CONTROLS.lastIndex = 0;
  const found = BIDI_CONTROLS.test(text);
  BIDI_CONTROLS.lastIndex = 0;
  return found;
}

/** `text` with each bidirectional-control character as a visible escape: "\u202E1234" → "‹U+202E›1234". */
export function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, (ch) => `‹U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}›`);
}
