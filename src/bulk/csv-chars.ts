/**
 * Character-level helpers of the CSV reader (csv-reader.ts): the character codes it looks for, and small scans
 * over its text buffer that allocate nothing.
 */

export const QUOTE = 34; // "
export const LF = 10;
export const CR = 13;

/** True when `text[start, end)` is only delimiters (a spreadsheet's `,,,,` line: not a row). */
export function onlyCommas(text: string, start: number, end: number, delimiter = 44): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) !== delimiter) return false;
  return true;
}

/** True when every cell is empty. */
export function allEmpty(cells: string[]): boolean {
  for (let i = 0; i < cells.length; i++) if (cells[i] !== '') return false;
  return true;
}

/**
 * Buffer length at which an incomplete record of `pending` characters is scanned again: twice as much (at least
 * 1 Ki more), so text arriving in tiny pieces is re-scanned a logarithmic number of times, never past the point
 * (max + 2) where the record size limit decides.
 */
export function retryLength(pending: number, max: number): number {
  return Math.min(pending + Math.max(1024, pending), max + 2);
}

/** `text.indexOf(ch, from)`, or -1 when it is at or past `end`. */
export function indexBefore(text: string, ch: string, from: number, end: number): number {
  const k = text.indexOf(ch, from);
  return k >= end ? -1 : k;
}
