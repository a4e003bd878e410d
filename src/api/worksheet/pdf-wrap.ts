/**
 * Linear-time line breaking for the PDF worksheet. pdfkit wraps a word wider than its line by measuring the rest of
 * the word again after every piece it cuts off, so one unbroken run of n characters costs O(n²) (a 40,000-character
 * label took 36 s on the event loop). `breakLongRuns` cuts every such run beforehand into pieces that each fit the
 * line, measuring each character once; pdfkit then only ever sees words that fit, and wraps in linear time.
 */

/** The width of one character in the font and size the text will be drawn in (points). */
export type CharWidth = (ch: string) => number;

/** Runs of characters pdfkit may not break inside, and the whitespace between them. */
const TOKENS = /\s+|\S+/g;

/**
 * `text` with a space inserted inside every run of non-whitespace characters wider than `maxWidth`, so that each
 * piece is at most `maxWidth` wide (a piece holds at least one character, even when one character is wider). Text
 * with no such run comes back unchanged. Each character is measured once: O(n) in the length of the text.
 */
export function breakLongRuns(text: string, maxWidth: number, charWidth: CharWidth): string {
  let out = '';
  let changed = false;
  for (const [token] of text.matchAll(TOKENS)) {
    if (/^\s/.test(token)) {
      out += token;
      continue;
    }
    const pieces: string[] = [];
    let piece = '';
    let width = 0;
    for (const ch of token) {
      const w = charWidth(ch);
      if (piece !== '' && width + w > maxWidth) {
        pieces.push(piece);
        piece = '';
        width = 0;
      }
      piece += ch;
      width += w;
    }
    pieces.push(piece);
    if (pieces.length > 1) changed = true;
    out += pieces.join(' ');
  }
  return changed ? out : text;
}

/** A CharWidth that measures each distinct character once with `measure` (pdfkit's widthOfString). */
export function cachedCharWidth(measure: (ch: string) => number): CharWidth {
  const widths = new Map<string, number>();
  return (ch) => {
    let w = widths.get(ch);
    if (w === undefined) {
      w = measure(ch);
      widths.set(ch, w);
    }
    return w;
  };
}
