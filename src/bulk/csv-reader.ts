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
 * Rules (documented for registrars in docs/csv-layout.md):
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
import { lenientSplit, type CsvRecord } from './csv-record.ts';
import { CellLimit, longestCell } from './csv-cell-limit.ts';
import { allEmpty, CR, indexBefore, LF, onlyCommas, QUOTE, retryLength } from './csv-chars.ts';

const NO_CELLS: string[] = [];

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

const NEED_MORE = 0;
const DONE = 1;
const BROKEN = 2;
/** parseQuoted at the end of input: a quoted field is never closed. */
const UNCLOSED = 3;

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
  private readonly cellLimit: CellLimit;
  private readonly delimiter: string;
  private readonly delimiterCode: number;
  /** Waiting for the header record (option `header`). */
  private awaitingHeader: boolean;

  constructor(maxRecordChars: number = DEFAULT_MAX_RECORD_CHARS, options: CsvReaderOptions = {}) {
    this.maxRecordChars = maxRecordChars;
    this.delimiter = options.delimiter ?? ',';
    this.delimiterCode = this.delimiter.charCodeAt(0);
    this.rawLines = options.rawLines === true && this.delimiter === ',';
    this.awaitingHeader = options.header === true;
    this.cellLimit = new CellLimit(options.maxCellChars);
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
          if (this.rawLines && !this.awaitingHeader && contentEnd - pos <= this.cellLimit.max) {
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
    if (inner > 0 && longestCell(cells) > this.cellLimit.max) {
      return this.brokenAt(
        buf,
        start,
        `a quoted field spans ${inner + 1} lines and is longer than ${this.cellLimit.max} characters, the most a ` +
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
      cells: this.cellLimit.cut(lenientSplit(buf.slice(start, contentEnd), this.delimiter)),
      error: `malformed CSV: ${why}; this line was not processed and reading resumed on the next line`,
    });
    this.line++;
    return nl === -1 ? buf.length : nl + 1;
  }

  /** Appends a complete record: the header is noted; a cell over the cell limit makes the record an error row. */
  private emitRecord(out: CsvRecord[], line: number, cells: string[] | undefined, raw: string | undefined): void {
    const limit = this.cellLimit;
    if (this.awaitingHeader) {
      this.awaitingHeader = false;
      const header = cells ?? raw!.split(',');
      this.expectedCells = header.length;
      limit.nameColumns(header);
    } else if (raw === undefined ? longestCell(cells!) > limit.max : raw.length > limit.max) {
      const all = cells ?? raw!.split(',');
      const over = limit.over(all);
      if (over.length > 0) {
        const longest = Math.max(...over.map((k) => all[k]!.length));
        out.push({
          line,
          cells: limit.cut(all),
          error:
            `${limit.columnsHave(over)} more than ${limit.max} characters (${longest}), the most a cell may ` +
            `have; this row was not processed and its cells are echoed cut to ${limit.max} characters`,
        });
        return;
      }
    }
    out.push(raw === undefined ? { line, cells: cells! } : { line, cells: NO_CELLS, raw });
  }

  /** The physical line at `pos` is longer than maxRecordChars: one error row from its first maxRecordChars. */
  private emitLongLine(buf: string, pos: number, out: CsvRecord[]): void {
    const max = this.maxRecordChars;
    const limit = this.cellLimit;
    const cells = lenientSplit(buf.slice(pos, pos + max), this.delimiter);
    const over = limit.over(cells);
    const cellPart =
      over.length === 0
        ? ''
        : ` (${limit.columnsHave(over)} more than ${limit.max} characters, the most a cell may have)`;
    // The line's text is never echoed whole: without a cell limit its cells are cut to 256 characters.
    const echo = Number.isFinite(limit.max) ? limit.max : 256;
    this.awaitingHeader = false;
    out.push({
      line: this.line,
      cells: limit.cut(cells, echo),
      error:
        `malformed CSV: the line is longer than ${max} characters, the most a row may have${cellPart}; it was not ` +
        `processed and its cells are echoed cut to ${echo} characters`,
    });
  }
}
