/**
 * Streaming CSV record reader for the bulk pipeline (RFC 4180, UTF-8, LF or CRLF, optional BOM).
 *
 * Why not csv-parse here: the bulk contract is that the output accounts for every input row, and csv-parse
 * cannot rewind: with `skip_records_with_error` a broken quote silently swallows every line up to the next
 * quote character (those rows are dropped, not reported), and without it the whole file fails. This reader
 * keeps the text of an unfinished record so it can apply the recovery rule below, and its fast path (a line
 * with no quote is `split(',')`) is several times faster than csv-parse, which matters because it runs on the
 * API's main thread. csv-parse remains the reference it is tested against on well-formed input.
 *
 * Rules (documented for registrars in the README):
 *  - A UTF-8 byte order mark at the start is ignored. Records end at LF or CRLF.
 *  - The delimiter is a comma unless `delimiter` says `;` or TAB (then every "comma" below is that character,
 *    and records always come as cells: raw lines are the comma form only).
 *  - Empty lines, and lines whose cells are all empty (`,,,,` as spreadsheets export), are ignored: they are not
 *    rows.
 *  - A field that starts with `"` is quoted: it may contain commas, CR/LF and doubled quotes `""`, and must be
 *    followed by a comma, the end of the line or the end of the file. A quote anywhere else in an unquoted field
 *    is an ordinary character.
 *  - Recovery rule: a record is *broken* when a quoted field is never closed (end of file, or it would make the
 *    record longer than `maxRecordChars`), when a closing quote is followed by anything other than a comma or a
 *    line end, or when a record that spans several physical lines does not have exactly the header's number of
 *    cells or has a cell longer than `maxCellChars`. A broken record becomes ONE error row made of its first
 *    physical line (its cells split leniently so the student_id can be echoed), and reading resumes at the very
 *    next physical line. So a stray quote costs exactly one row, never the rows after it.
 *  - A physical line longer than `maxRecordChars` becomes one error row and reading resumes after it; only its
 *    first `maxRecordChars` characters are kept (the rest is discarded as it arrives), and its cells are echoed
 *    from them. A record spanning several lines that would be longer than `maxRecordChars` is broken (above).
 *  - With `maxCellChars`: a cell longer than that makes its record an error row naming the column; every cell of
 *    that row is echoed cut to `maxCellChars` characters.
 *  - With `header`: the first record is the header; its width is the width every multi-line record must have
 *    from the very first data record on (`expectedCells`), and its cells name the columns in error messages.
 *
 * The records produced never depend on how the text is split into `push()` calls: every decision looks at most
 * `maxRecordChars + 2` characters past the start of a record, and waits until it has them (or the end of input).
 */

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

const NO_CELLS: string[] = [];

function onlyCommas(text: string, start: number, end: number, delimiter = 44): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) !== delimiter) return false;
  return true;
}

/** Longest record (and longest physical line) kept in memory; 4 Mi characters. */
export const DEFAULT_MAX_RECORD_CHARS = 4 * 1024 * 1024;

export interface CsvReaderOptions {
  /** Records without quotes come as `raw` text instead of `cells` (see CsvRecord.raw). */
  rawLines?: boolean;
  /** The first record is the header: it sets `expectedCells` and names the columns in messages. */
  header?: boolean;
  /** A longer cell makes its record an error row (cells echoed cut to this length). Default: no cell limit. */
  maxCellChars?: number;
  /** The cell delimiter: `,` (default), `;` or TAB. */
  delimiter?: string;
}

const QUOTE = 34; // "
const LF = 10;
const CR = 13;

const NEED_MORE = 0;
const DONE = 1;
const BROKEN = 2;
/** parseQuoted at the end of input: a quoted field is never closed. */
const UNCLOSED = 3;

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

/**
 * Buffer length at which an incomplete record of `pending` characters is scanned again: twice as much (at least
 * 1 Ki more), so text arriving in tiny pieces is re-scanned a logarithmic number of times, never past the point
 * (max + 2) where the record size limit decides.
 */
function retryLength(pending: number, max: number): number {
  return Math.min(pending + Math.max(1024, pending), max + 2);
}

/** `text.indexOf(ch, from)`, or -1 when it is at or past `end`. */
function indexBefore(text: string, ch: string, from: number, end: number): number {
  const k = text.indexOf(ch, from);
  return k >= end ? -1 : k;
}

function longestCell(cells: readonly string[]): number {
  let longest = 0;
  for (let i = 0; i < cells.length; i++) if (cells[i]!.length > longest) longest = cells[i]!.length;
  return longest;
}

function allEmpty(cells: string[]): boolean {
  for (let i = 0; i < cells.length; i++) if (cells[i] !== '') return false;
  return true;
}

/**
 * Incremental reader: `push()` decoded text as it arrives, `end()` once; each call appends the complete records
 * found to `out`. Memory is bounded by `maxRecordChars` plus the text pushed at once.
 */
export class CsvRecordReader {
  /** Number of cells a record must have; set from the header. Multi-line records of another width are broken. */
  expectedCells = 0;

  private readonly maxRecordChars: number;
  private buf = '';
  private pos = 0;
  private line = 1;
  private started = false;
  /** Do not re-try an incomplete record until the buffer reaches this length (amortises re-scans). */
  private retryAt = 0;
  /** Discarding the rest of an over-long physical line. */
  private skippingLongLine = false;
  private nextQuote = -1;
  private ended = false;

  private readonly rawLines: boolean;
  private readonly maxCellChars: number;
  private readonly delimiter: string;
  private readonly delimiterCode: number;
  /** Waiting for the header record (option `header`). */
  private awaitingHeader: boolean;
  private columnNames: readonly string[] = [];

  constructor(maxRecordChars: number = DEFAULT_MAX_RECORD_CHARS, options: CsvReaderOptions = {}) {
    this.maxRecordChars = maxRecordChars;
    this.delimiter = options.delimiter ?? ',';
    this.delimiterCode = this.delimiter.charCodeAt(0);
    this.rawLines = options.rawLines === true && this.delimiter === ',';
    this.awaitingHeader = options.header === true;
    this.maxCellChars = options.maxCellChars ?? Number.POSITIVE_INFINITY;
  }

  /** Physical line number the reader has reached (the next record starts at or after it). */
  get currentLine(): number {
    return this.line;
  }

  push(text: string, out: CsvRecord[]): void {
    if (this.ended) throw new Error('CsvRecordReader: push() after end()');
    if (text.length === 0) return;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skippingLongLine) {
      const nl = text.indexOf('\n');
      if (nl === -1) return;
      this.skippingLongLine = false;
      this.line++;
      text = text.slice(nl + 1);
    }
    this.buf = this.pos < this.buf.length ? this.buf.slice(this.pos) + text : text;
    this.pos = 0;
    this.nextQuote = -1;
    if (this.retryAt > 0) {
      if (this.buf.length < this.retryAt) return;
      this.retryAt = 0;
    }
    this.scan(false, out);
  }

  end(out: CsvRecord[]): void {
    if (this.ended) return;
    this.ended = true;
    this.retryAt = 0;
    if (!this.skippingLongLine) this.scan(true, out);
    this.buf = '';
    this.pos = 0;
  }

  private scan(final: boolean, out: CsvRecord[]): void {
    const buf = this.buf;
    const len = buf.length;
    const max = this.maxRecordChars;
    let pos = this.pos;
    while (pos < len) {
      const nl = buf.indexOf('\n', pos);
      if (nl === -1 && !final) {
        // The line is incomplete. Its content is at least len - pos - 1 characters (a CR may end the buffer).
        if (len - pos - 1 > max) {
          // Over-long physical line: report it and discard the rest of it as it arrives.
          this.emitLongLine(buf, pos, out);
          pos = len;
          this.skippingLongLine = true;
        } else {
          this.retryAt = retryLength(len - pos, max);
        }
        break;
      }
      const lineEnd = nl === -1 ? len : nl;
      const contentEnd = lineEnd > pos && buf.charCodeAt(lineEnd - 1) === CR ? lineEnd - 1 : lineEnd;
      if (contentEnd === pos) {
        // Blank line.
        pos = lineEnd + 1;
        this.line++;
        continue;
      }
      if (contentEnd - pos > max) {
        this.emitLongLine(buf, pos, out);
        pos = lineEnd + 1;
        this.line++;
        continue;
      }
      if (this.nextQuote < pos && this.nextQuote !== -2) {
        this.nextQuote = buf.indexOf('"', pos);
        if (this.nextQuote === -1) this.nextQuote = -2; // no quote in the rest of the buffer
      }
      if (this.nextQuote === -2 || this.nextQuote >= contentEnd) {
        // Fast path: a line without quotes.
        if (!onlyCommas(buf, pos, contentEnd, this.delimiterCode)) {
          if (this.rawLines && !this.awaitingHeader && contentEnd - pos <= this.maxCellChars) {
            // No cell of a line this short can be over the cell limit.
            out.push({ line: this.line, cells: NO_CELLS, raw: buf.slice(pos, contentEnd) });
          } else if (this.rawLines) this.emitRecord(out, this.line, undefined, buf.slice(pos, contentEnd));
          else this.emitRecord(out, this.line, buf.slice(pos, contentEnd).split(this.delimiter), undefined);
        }
        pos = lineEnd + 1;
        this.line++;
        continue;
      }
      // A record with a quote is judged on its first max + 2 characters only (a record longer than max is
      // broken, and a record that ends at max + 1 needs its terminator), so the result never depends on how
      // much text happens to be in the buffer beyond them.
      const windowEnd = Math.min(len, pos + max + 2);
      const status = this.parseQuoted(buf, pos, windowEnd, final && windowEnd === len, out);
      if (status === NEED_MORE) {
        if (windowEnd - pos >= max + 2) {
          // The record does not end within the size limit. Its first line is complete (checked above).
          pos = this.broken(buf, pos, 'a quoted field is not closed within the record size limit', out);
          continue;
        }
        this.retryAt = retryLength(len - pos, max);
        break;
      }
      if (status === UNCLOSED) {
        pos = this.broken(buf, pos, 'a quoted field is not closed before the end of the file', out);
        continue;
      }
      pos = this.parsedEnd;
    }
    this.pos = pos;
  }

  /** End position (exclusive, past the line terminator) of the record parseQuoted just produced. */
  private parsedEnd = 0;

  /**
   * Parses one record starting at `start` that contains a quote, looking only at `buf` up to `end` (treated as
   * the end of the input when `final`). Returns NEED_MORE (nothing consumed), UNCLOSED (`final` only: nothing
   * consumed), or DONE / BROKEN with `parsedEnd` set and the record (or the error row) appended to `out`.
   */
  private parseQuoted(buf: string, start: number, end: number, final: boolean, out: CsvRecord[]): number {
    const len = end;
    const delimiter = this.delimiterCode;
    const cells: string[] = [];
    let i = start;
    for (;;) {
      if (i < len && buf.charCodeAt(i) === QUOTE) {
        let j = i + 1;
        let value = '';
        for (;;) {
          const q = indexBefore(buf, '"', j, len);
          if (q === -1) return final ? UNCLOSED : NEED_MORE;
          if (q + 1 >= len && !final) return NEED_MORE;
          const after = q + 1 < len ? buf.charCodeAt(q + 1) : -1;
          if (after === QUOTE) {
            value += buf.slice(j, q + 1);
            j = q + 2;
            continue;
          }
          value += buf.slice(j, q);
          cells.push(value);
          if (after === delimiter) {
            i = q + 2;
            break;
          }
          if (after === -1) return this.finish(buf, start, len, len, cells, out);
          if (after === LF) return this.finish(buf, start, q + 1, q + 2, cells, out);
          if (after === CR) {
            if (q + 2 >= len && !final) return NEED_MORE;
            if (q + 2 >= len) return this.finish(buf, start, q + 1, len, cells, out);
            if (buf.charCodeAt(q + 2) === LF) return this.finish(buf, start, q + 1, q + 3, cells, out);
          }
          return this.brokenAt(
            buf,
            start,
            `a closing quote is followed by ${JSON.stringify(String.fromCharCode(after))} instead of ${this.delimiterWords()} or a line end`,
            out,
          );
        }
        if (i === len) {
          // Ends right after a comma.
          if (!final) return NEED_MORE;
          cells.push('');
          return this.finish(buf, start, len, len, cells, out);
        }
        continue;
      }
      // Unquoted field: up to the next comma or line end; quotes inside it are ordinary characters.
      const c = indexBefore(buf, this.delimiter, i, len);
      const nl = indexBefore(buf, '\n', i, len);
      if (c !== -1 && (nl === -1 || c < nl)) {
        cells.push(buf.slice(i, c));
        i = c + 1;
        if (i === len) {
          if (!final) return NEED_MORE;
          cells.push('');
          return this.finish(buf, start, len, len, cells, out);
        }
        continue;
      }
      if (nl === -1) {
        if (!final) return NEED_MORE;
        cells.push(buf.slice(i, len));
        return this.finish(buf, start, len, len, cells, out);
      }
      const fieldEnd = nl > i && buf.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
      cells.push(buf.slice(i, fieldEnd));
      return this.finish(buf, start, nl, nl + 1, cells, out);
    }
  }

  /** "a comma" (the v1 wording), "a semicolon" or "a tab", for messages. */
  private delimiterWords(): string {
    return this.delimiter === ';' ? 'a semicolon' : this.delimiter === '\t' ? 'a tab' : 'a comma';
  }

  /** A complete record from `start` to `contentEnd` (terminator excluded); `next` is where reading resumes. */
  private finish(buf: string, start: number, contentEnd: number, next: number, cells: string[], out: CsvRecord[]) {
    if (contentEnd - start > this.maxRecordChars) {
      return this.brokenAt(buf, start, 'a quoted field is not closed within the record size limit', out);
    }
    let inner = 0;
    for (let k = buf.indexOf('\n', start); k !== -1 && k < contentEnd; k = buf.indexOf('\n', k + 1)) inner++;
    if (inner > 0 && this.expectedCells > 0 && cells.length !== this.expectedCells) {
      return this.brokenAt(
        buf,
        start,
        `a quoted field spans ${inner + 1} lines and leaves the record with ${cells.length} cells instead of ` +
          `${this.expectedCells} (probably a missing closing quote)`,
        out,
      );
    }
    if (inner > 0 && longestCell(cells) > this.maxCellChars) {
      return this.brokenAt(
        buf,
        start,
        `a quoted field spans ${inner + 1} lines and is longer than ${this.maxCellChars} characters, the most a ` +
          'cell may have (probably a missing closing quote)',
        out,
      );
    }
    if (!allEmpty(cells)) this.emitRecord(out, this.line, cells, undefined);
    this.line += inner + 1;
    this.parsedEnd = next;
    return DONE;
  }

  /** Broken record at `start`: emits its first physical line as an error row. */
  private brokenAt(buf: string, start: number, why: string, out: CsvRecord[]): number {
    this.parsedEnd = this.broken(buf, start, why, out);
    return BROKEN;
  }

  /**
   * Emits the first physical line of the broken record at `start` as an error row and returns where reading
   * resumes (the next line). Only called when that first line is complete in `buf` (or at the end of input).
   */
  private broken(buf: string, start: number, why: string, out: CsvRecord[]): number {
    const nl = buf.indexOf('\n', start);
    const lineEnd = nl === -1 ? buf.length : nl;
    const contentEnd = lineEnd > start && buf.charCodeAt(lineEnd - 1) === CR ? lineEnd - 1 : lineEnd;
    this.awaitingHeader = false;
    out.push({
      line: this.line,
      cells: this.cutCells(lenientSplit(buf.slice(start, contentEnd), this.delimiter)),
      error: `malformed CSV: ${why}; this line was not processed and reading resumed on the next line`,
    });
    this.line++;
    return nl === -1 ? buf.length : nl + 1;
  }

  /** Appends a complete record: the header is noted; a cell over the cell limit makes the record an error row. */
  private emitRecord(out: CsvRecord[], line: number, cells: string[] | undefined, raw: string | undefined): void {
    if (this.awaitingHeader) {
      this.awaitingHeader = false;
      const header = cells ?? raw!.split(',');
      this.expectedCells = header.length;
      this.columnNames = header.map((name) => name.trim());
    } else if (raw === undefined ? longestCell(cells!) > this.maxCellChars : raw.length > this.maxCellChars) {
      const all = cells ?? raw!.split(',');
      const over: number[] = [];
      all.forEach((c, k) => {
        if (c.length > this.maxCellChars) over.push(k);
      });
      if (over.length > 0) {
        const longest = Math.max(...over.map((k) => all[k]!.length));
        out.push({
          line,
          cells: this.cutCells(all),
          error:
            `${this.columnsPhrase(over)} ${over.length > 1 ? 'have' : 'has'} more than ${this.maxCellChars} ` +
            `characters (${longest}), the most a cell may have; this row was not processed and its cells are ` +
            `echoed cut to ${this.maxCellChars} characters`,
        });
        return;
      }
    }
    out.push(raw === undefined ? { line, cells: cells! } : { line, cells: NO_CELLS, raw });
  }

  /** "the term_label cell" / "the cells term_label, x"; a column past the header is named by its position. */
  private columnsPhrase(indexes: readonly number[]): string {
    const names = indexes.map((k) => {
      const name = this.columnNames[k];
      return name === undefined || name === '' ? `column ${k + 1}` : name;
    });
    return names.length === 1 ? `the ${names[0]} cell` : `the cells ${names.join(', ')}`;
  }

  /** Cells of an error row, each cut to `limit` (by default the cell limit; none when there is none). */
  private cutCells(cells: string[], limit: number = this.maxCellChars): string[] {
    return cells.map((c) => (c.length > limit ? c.slice(0, limit) : c));
  }

  /** The physical line at `pos` is longer than maxRecordChars: one error row from its first maxRecordChars. */
  private emitLongLine(buf: string, pos: number, out: CsvRecord[]): void {
    const max = this.maxRecordChars;
    const cells = lenientSplit(buf.slice(pos, pos + max), this.delimiter);
    const over: number[] = [];
    cells.forEach((c, k) => {
      if (c.length > this.maxCellChars) over.push(k);
    });
    const cellPart =
      over.length === 0
        ? ''
        : ` (${this.columnsPhrase(over)} ${over.length > 1 ? 'have' : 'has'} more than ${this.maxCellChars} ` +
          'characters, the most a cell may have)';
    // The line's text is never echoed whole: without a cell limit its cells are cut to 256 characters.
    const echo = Number.isFinite(this.maxCellChars) ? this.maxCellChars : 256;
    this.awaitingHeader = false;
    out.push({
      line: this.line,
      cells: this.cutCells(cells, echo),
      error:
        `malformed CSV: the line is longer than ${max} characters, the most a row may have${cellPart}; it was not ` +
        `processed and its cells are echoed cut to ${echo} characters`,
    });
  }
}
