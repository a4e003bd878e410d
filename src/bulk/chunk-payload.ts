/**
 * The compact chunk payload: one JSON string that carries a chunk's students across every boundary (piscina
 * thread, BullMQ job, another process). Built on the pipeline's thread by `ChunkBuilder`, read by
 * `processChunkPayload` wherever the chunk runs. Runners treat it as opaque.
 *
 *   {"v":1,"f":"csv","h":[header cells],"s":[student, ...]}
 *   student = {"l":[line, ...], "c":[row, ...], "e":[row error | null, ...]?, "x":{"f":field,"m":message}?}
 *   row = "raw line" (a record without quotes: its cells are the line split on commas) | ["cell", ...]
 *
 * `l` are the physical line numbers of the student's rows, `e` the per-row structural errors found while reading
 * (a broken record), `x` a student-level error found while grouping (rows not contiguous, too many rows, row
 * limit), which makes every row of the student an error row.
 */

export type BulkFormat = 'csv' | 'ndjson';

export interface StudentError {
  /** CSV column the error is about ('' for none). */
  f: string;
  /** Message. */
  m: string;
}

export interface PayloadStudent {
  l: number[];
  /** Cells of each row (after decodePayload); in the encoded payload a row may also be its raw line. */
  c: string[][];
  e?: (string | null)[];
  x?: StudentError;
  /**
   * Set by decodePayload only (never read from the payload): the raw line each row was split from, for rows sent
   * as raw lines (undefined for rows sent as cells). Lets the output echo a row without re-joining its cells.
   */
  r?: (string | undefined)[];
}

export interface ChunkPayload {
  v: 1;
  f: BulkFormat;
  h: string[];
  s: PayloadStudent[];
}

/** A student as the grouper builds it: rows without quotes stay raw lines. */
export interface EncodedStudent extends Omit<PayloadStudent, 'c' | 'r'> {
  c: (string | string[])[];
}

/** Accumulates students and serialises them into one payload string. */
export class ChunkBuilder {
  private readonly prefix: string;
  private parts: string[] = [];
  /** Students in the chunk being built. */
  students = 0;
  /** Rows in the chunk being built. */
  rows = 0;
  /** Approximate characters of cell text in the chunk being built. */
  chars = 0;

  constructor(format: BulkFormat, header: readonly string[]) {
    this.prefix = `{"v":1,"f":${JSON.stringify(format)},"h":${JSON.stringify(header)},"s":[`;
  }

  add(student: EncodedStudent, chars: number): void {
    this.parts.push(JSON.stringify(student));
    this.students++;
    this.rows += student.l.length;
    this.chars += chars;
  }

  /** The payload of the students added since the last take, and a reset. */
  take(): string {
    const payload = `${this.prefix}${this.parts.join(',')}]}`;
    this.parts = [];
    this.students = 0;
    this.rows = 0;
    this.chars = 0;
    return payload;
  }
}

/**
 * A payload that does not decode is a SyntaxError, like the JSON.parse failure it may also be: the one Error
 * class whose name survives the structured clone from a worker thread, so the queue worker tells a bad payload
 * (never worth retrying) from a machinery failure by the error's class, not by its message.
 */
function malformedPayload(): SyntaxError {
  return new SyntaxError('malformed chunk payload');
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Parses and checks a payload string; throws on anything malformed (a runner then turns it into error rows). */
export function decodePayload(payload: string): ChunkPayload {
  const p = JSON.parse(payload) as Partial<ChunkPayload> | null;
  if (
    p === null ||
    typeof p !== 'object' ||
    p.v !== 1 ||
    (p.f !== 'csv' && p.f !== 'ndjson') ||
    !isStringArray(p.h) ||
    !Array.isArray(p.s)
  ) {
    throw malformedPayload();
  }
  for (const s of p.s as unknown[]) {
    const st = s as Partial<PayloadStudent> | null;
    if (
      st === null ||
      typeof st !== 'object' ||
      !Array.isArray(st.l) ||
      !Array.isArray(st.c) ||
      st.l.length === 0 ||
      st.l.length !== st.c.length
    ) {
      throw malformedPayload();
    }
    const rows = st.c as unknown[];
    const raws = new Array<string | undefined>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      if (typeof row === 'string') {
        raws[r] = row;
        rows[r] = row.split(',');
      } else if (!isStringArray(row)) {
        throw malformedPayload();
      }
    }
    // Always replaced, so a payload cannot supply raw lines that differ from its cells.
    st.r = raws;
  }
  return p as ChunkPayload;
}
