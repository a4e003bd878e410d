/**
 * The shadow check's summary (`check_summary` of GET /v1/jobs/{id}, the CLI's table): students counted by status
 * and, for mismatches, by reason. Each chunk's counts are made where the chunk is calculated (process-chunk.ts)
 * and travel with its outcome (through the queue too, covered by the output's HMAC); the pipeline's thread adds
 * them up as the chunks are written, in order. A chunk whose outcome has no counts (it could not be run: all error
 * rows; or a worker that does not report them) is counted from its output instead, read as follows.
 *
 * CSV: a student's rows are contiguous and repeat its check cells, so a student is counted on the first of its
 * rows (a row whose student_id cell differs from the previous row's); the three check cells are the last three
 * of each row (`check_reason` and `check_status` are plain tokens, `check_detail` may be quoted). Error rows have
 * empty check cells and are not counted. NDJSON: one student per line, ending in `"check":{…}` (or `null`).
 */
import { CHECK_REASONS, type CheckReason } from '../domain/readings.ts';
import type { BulkFormat } from './chunk-payload.ts';
import type { CsvLayout } from './csv-layout.ts';

/** What the tally reads of a chunk's outcome (runner.ts ChunkOutcome): its counts, or else its output. */
export interface CountedOutput {
  text: string;
  bytes?: Uint8Array;
  checks?: CheckSummary;
}

export interface CheckSummary {
  /** Students compared: match + mismatch. */
  checked: number;
  match: number;
  mismatch: number;
  /** Calculated students whose sis_* figure cells are all empty. Students with errors are not counted. */
  not_checked: number;
  /** Mismatched students by reason, every reason listed in the table's order. */
  by_reason: Record<CheckReason, number>;
}

/** Adds one student's check to `summary`. */
export function countCheck(summary: CheckSummary, check: { status: string; reason: CheckReason | null }): void {
  if (check.status === 'match') summary.match++;
  else if (check.status === 'not_checked') summary.not_checked++;
  else if (check.status === 'mismatch') {
    summary.mismatch++;
    summary.by_reason[check.reason ?? 'unexplained']++;
  } else return;
  summary.checked = summary.match + summary.mismatch;
}

/** Adds `more` to `summary`. */
export function addCheckSummary(summary: CheckSummary, more: CheckSummary): void {
  summary.match += more.match;
  summary.mismatch += more.mismatch;
  summary.not_checked += more.not_checked;
  summary.checked = summary.match + summary.mismatch;
  for (const reason of CHECK_REASONS) summary.by_reason[reason] += more.by_reason[reason] ?? 0;
}

/** A chunk's counts as a queue worker reports them: a CheckSummary of non-negative whole numbers. */
export function isCheckSummary(v: unknown): v is CheckSummary {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  const count = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
  const by = o.by_reason as Record<string, unknown> | null;
  return (
    count(o.checked) &&
    count(o.match) &&
    count(o.mismatch) &&
    count(o.not_checked) &&
    o.checked === (o.match as number) + (o.mismatch as number) &&
    by !== null &&
    typeof by === 'object' &&
    CHECK_REASONS.every((r) => count(by[r])) &&
    Object.keys(by).length === CHECK_REASONS.length
  );
}

export function emptyCheckSummary(): CheckSummary {
  const by_reason = Object.fromEntries(CHECK_REASONS.map((r) => [r, 0])) as Record<CheckReason, number>;
  return { checked: 0, match: 0, mismatch: 0, not_checked: 0, by_reason };
}

const REASONS: ReadonlySet<string> = new Set(CHECK_REASONS);
const QUOTE = 34;
const COMMA = 44;

/** Counts students by check status and reason from the output chunks of one file. */
export class CheckTally {
  readonly #format: BulkFormat;
  readonly #idColumn: number;
  readonly #summary = emptyCheckSummary();

  constructor(format: BulkFormat, layout: CsvLayout) {
    this.#format = format;
    this.#idColumn = layout.col.student_id;
  }

  /** A copy of the counts so far. */
  summary(): CheckSummary {
    return { ...this.#summary, by_reason: { ...this.#summary.by_reason } };
  }

  #count(status: string, reason: string): void {
    const s = this.#summary;
    if (status === 'match') s.match++;
    else if (status === 'not_checked') s.not_checked++;
    else if (status === 'mismatch') {
      s.mismatch++;
      s.by_reason[(REASONS.has(reason) ? reason : 'unexplained') as CheckReason]++;
    } else return;
    s.checked = s.match + s.mismatch;
  }

  /**
   * Adds one chunk: its counts when the runner reported them, else (a chunk that could not be run, a worker that
   * does not report them) read from its output (text or UTF-8 bytes; call this before the bytes are reused).
   */
  add(out: CountedOutput): void {
    if (out.checks !== undefined) {
      addCheckSummary(this.#summary, out.checks);
      return;
    }
    this.read(out);
  }

  /** Counts one chunk from its output alone. */
  read(out: CountedOutput): void {
    const { bytes } = out;
    // latin1 maps each byte to one character: the ASCII structure (quotes, commas, LF) is intact, and two cells
    // are equal exactly when their bytes are.
    const text =
      bytes === undefined ? out.text : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    if (this.#format === 'ndjson') this.#addNdjson(text);
    else this.#addCsv(text);
  }

  #addNdjson(text: string): void {
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      const at = text.lastIndexOf('"check":', end);
      if (at >= start) {
        const status = /^"check":\{"status":"([a-z_]+)"/.exec(text.slice(at, at + 40));
        if (status !== null) {
          const r = text.lastIndexOf('"reason":', end);
          const reason = /^"reason":"([a-z_]+)"/.exec(text.slice(r, r + 50));
          this.#count(status[1]!, reason === null ? '' : reason[1]!);
        }
      }
      start = end + 1;
    }
  }

  #addCsv(text: string): void {
    let previousId: string | undefined;
    let pos = 0;
    const ends = new RecordEnds(text);
    while (pos < text.length) {
      const end = ends.from(pos);
      const { status, reason } = checkCells(text, pos, end);
      if (status === '') {
        previousId = undefined; // an error row
      } else {
        const id = cellAt(text, pos, end, this.#idColumn);
        if (id !== previousId) this.#count(status, reason);
        previousId = id;
      }
      pos = end + 1;
    }
  }
}

/**
 * Finds record ends in one chunk's text: the first LF outside quotes, jumping from quote to quote (a doubled quote
 * inside a quoted cell is skipped as a pair). The next quote's position is remembered, so a text is scanned for
 * quotes once overall, not once per record.
 */
class RecordEnds {
  readonly #text: string;
  #nextQuote: number;

  constructor(text: string) {
    this.#text = text;
    this.#nextQuote = text.indexOf('"');
  }

  #quoteFrom(i: number): number {
    if (this.#nextQuote !== -1 && this.#nextQuote < i) this.#nextQuote = this.#text.indexOf('"', i);
    return this.#nextQuote;
  }

  /** The end (index of the LF, or the text's length) of the record starting at `pos`. */
  from(pos: number): number {
    const text = this.#text;
    let i = pos;
    let lf = text.indexOf('\n', i);
    for (;;) {
      const quote = this.#quoteFrom(i);
      if (quote === -1 || (lf !== -1 && lf < quote)) return lf === -1 ? text.length : lf;
      // Inside a quoted cell from `quote`: find its closing quote.
      let j = quote + 1;
      for (;;) {
        const close = this.#quoteFrom(j);
        if (close === -1) return text.length;
        if (text.charCodeAt(close + 1) === QUOTE) {
          j = close + 2;
          continue;
        }
        i = close + 1;
        break;
      }
      if (lf !== -1 && lf < i) lf = text.indexOf('\n', i);
    }
  }
}

/** check_status and check_reason: the third-last and last cells of the record [start, end). */
function checkCells(text: string, start: number, end: number): { status: string; reason: string } {
  let stop = end;
  if (stop > start && text.charCodeAt(stop - 1) === 13) stop--; // CR of CRLF (never written; tolerated)
  const reasonComma = text.lastIndexOf(',', stop - 1);
  if (reasonComma < start) return { status: '', reason: '' };
  const reason = text.slice(reasonComma + 1, stop);
  // check_detail: a plain cell, or a quoted one whose inner quotes are doubled.
  let detailStart: number;
  if (text.charCodeAt(reasonComma - 1) === QUOTE) {
    let i = reasonComma - 2;
    while (i >= start) {
      if (text.charCodeAt(i) === QUOTE) {
        if (i - 1 >= start && text.charCodeAt(i - 1) === QUOTE) i -= 2;
        else break;
      } else i--;
    }
    detailStart = i;
  } else {
    detailStart = text.lastIndexOf(',', reasonComma - 1) + 1;
  }
  const statusComma = detailStart - 1;
  if (statusComma <= start || text.charCodeAt(statusComma) !== COMMA) return { status: '', reason: '' };
  const statusStart = text.lastIndexOf(',', statusComma - 1) + 1;
  return { status: text.slice(Math.max(statusStart, start), statusComma), reason };
}

/** The raw text of cell `index` of the record [start, end) (quotes kept: only compared with its neighbours). */
function cellAt(text: string, start: number, end: number, index: number): string {
  let pos = start;
  for (let c = 0; ; c++) {
    let cellEnd: number;
    if (text.charCodeAt(pos) === QUOTE) {
      let i = pos + 1;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q === -1 || q >= end) {
          i = end;
          break;
        }
        if (text.charCodeAt(q + 1) === QUOTE) i = q + 2;
        else {
          i = q + 1;
          break;
        }
      }
      cellEnd = i;
    } else {
      cellEnd = text.indexOf(',', pos);
      if (cellEnd === -1 || cellEnd > end) cellEnd = end;
    }
    if (c === index || cellEnd >= end) return text.slice(pos, cellEnd);
    pos = cellEnd + 1;
  }
}
