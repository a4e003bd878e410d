/**
 * One record of a bulk CSV file as the reader (csv-reader.ts) delivers it, and the ways the rest of the bulk
 * engine reads its cells: whole (recordCells), one at a time without splitting (recordCell), or, for a broken
 * record, leniently split from its first physical line (lenientSplit).
 */

import { QUOTE } from './csv-chars.ts';

/** One record of the file, in file order. */
export interface CsvRecord {
  /** 1-based physical line number where the record starts (the header is line 1 unless blank lines precede it). */
  line: number;
  /**
   * The cells; for a broken record, a lenient split of its first physical line. Empty when `raw` is set (a
   * reader created with `rawLines`).
   */
  cells: string[];
  /**
   * With `rawLines`: the text of a record that has no quote (one physical line, CR/LF removed); its cells are
   * `raw.split(',')`. The bulk pipeline forwards such lines as they are and lets the chunk's thread split them.
   */
  raw?: string;
  /** Present when the record is broken (see the recovery rule); the row becomes an error row with this text. */
  error?: string;
}

/** The cells of a record, whichever way the reader delivered them. */
export function recordCells(record: CsvRecord): string[] {
  return record.raw === undefined ? record.cells : record.raw.split(',');
}

/** Cell `index` of a record without splitting all of it ('' when the record is shorter). */
export function recordCell(record: CsvRecord, index: number): string {
  const raw = record.raw;
  if (raw === undefined) return record.cells[index] ?? '';
  let start = 0;
  for (let k = 0; k < index; k++) {
    const comma = raw.indexOf(',', start);
    if (comma === -1) return '';
    start = comma + 1;
  }
  const end = raw.indexOf(',', start);
  return end === -1 ? raw.slice(start) : raw.slice(start, end);
}

/** Lenient split of one physical line, for echoing the cells of a broken record. Never throws. */
export function lenientSplit(line: string, delimiter = ','): string[] {
  const DELIM = delimiter.charCodeAt(0);
  const cells: string[] = [];
  let i = 0;
  const n = line.length;
  for (;;) {
    if (i < n && line.charCodeAt(i) === QUOTE) {
      // Quoted: up to a quote followed by a comma or the end of the line; unclosed runs to the end of the line.
      let j = i + 1;
      let value = '';
      let closed = false;
      while (j < n) {
        const q = line.indexOf('"', j);
        if (q === -1) break;
        if (q + 1 < n && line.charCodeAt(q + 1) === QUOTE) {
          value += line.slice(j, q + 1);
          j = q + 2;
          continue;
        }
        if (q + 1 === n || line.charCodeAt(q + 1) === DELIM) {
          value += line.slice(j, q);
          j = q + 1;
          closed = true;
          break;
        }
        value += line.slice(j, q + 1);
        j = q + 1;
      }
      if (!closed) {
        // Never closed: read the field as if unquoted (up to the next comma), so later cells stay in place.
        const c = line.indexOf(delimiter, i + 1);
        if (c === -1) {
          cells.push(line.slice(i + 1));
          return cells;
        }
        cells.push(line.slice(i + 1, c));
        i = c + 1;
        continue;
      }
      cells.push(value);
      if (j >= n) return cells;
      i = j + 1; // past the comma
      if (i === n) {
        cells.push('');
        return cells;
      }
    } else {
      const c = line.indexOf(delimiter, i);
      if (c === -1) {
        cells.push(line.slice(i));
        return cells;
      }
      cells.push(line.slice(i, c));
      i = c + 1;
    }
  }
}
