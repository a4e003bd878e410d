/**
 * The compact chunk payload: one JSON string that carries a chunk's students across every boundary (piscina
 * thread, BullMQ job, another process). Built on the pipeline's thread by `ChunkBuilder`, read by
 * `processChunkPayload` wherever the chunk runs. Runners treat it as opaque.
 *
 *   {"v":1,"f":"csv","h":[header cells],"s":[student, ...]}
 *   {"v":2,"f":"csv","p":{option:value, ...},"h":[...],"s":[...]}   (a file under a school policy)
 *   {"v":3,"f":"csv","d":";","p":{...}?,"h":[...],"s":[...]}          (CSV output with another delimiter)
 *   {"v":1,"f":"csv","o":1,"h":[...],"s":[...]}                       (an async job's chunk: every output)
 *   student = {"l":[line, ...], "c":[row, ...], "e":[row error | null, ...]?, "x":{"f":field,"m":message}?}
 *   row = "raw line" (a record without quotes: its cells are the line split on commas) | ["cell", ...]
 *
 * `l` are the physical line numbers of the student's rows, `e` the per-row structural errors found while reading
 * (a broken record), `x` a student-level error found while grouping (rows not contiguous, too many rows, row
 * limit), which makes every row of the student an error row.
 *
 * `p` is the file's school policy (rules.md §10): the deployment default with the file's `policy.<option>` query
 * parameters over it, resolved where the file came in, so a queue worker computes under the policy of the API that
 * took the file whatever its own SOR_POLICY says. It is part of the payload's bytes, so the queue's MAC covers it.
 * Only a non-default policy is written, and it makes the payload version 2: a worker that predates policies
 * refuses the chunk as malformed instead of computing it under the default.
 *
 * `d` is the CSV output's delimiter when it is not a comma (`;` or TAB: a semicolon file is answered in semicolons,
 * csv-dialect.ts). It makes the payload version 3 (with or without `p`), for the same reason: a worker that
 * predates it refuses the chunk instead of writing comma rows into a semicolon file.
 *
 * `o: 1` asks for every output of the chunk at once (an async job's run, src/jobs/job-run.ts): the CSV rows, the
 * NDJSON lines and the error rows, as three sections of the outcome (ChunkOutcome.parts); `f` is then the format
 * the job was asked for, which the pipeline writes to its main output.
 */
import type { CsvDelimiter } from './csv-dialect.ts';
import {
  DEFAULT_POLICY,
  isDefaultPolicy,
  parsePolicyItems,
  resolvePolicy,
  type SchoolPolicy,
} from '../domain/policy.ts';

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
   * Set by decodePayload, or by splitRows after a decode with `lazyCells` (never read from the payload): the raw
   * line each row was split from, for rows sent as raw lines (undefined for rows sent as cells). Lets the output
   * echo a row without re-joining its cells.
   */
  r?: (string | undefined)[];
}

export interface ChunkPayload {
  v: 1 | 2 | 3;
  f: BulkFormat;
  /** The file's school policy, every option (versions 2 and 3; absent: DEFAULT_POLICY). */
  p?: SchoolPolicy;
  /** The CSV output's delimiter when not a comma (version 3 only; absent: a comma). */
  d?: CsvDelimiter;
  /** 1: render every output (CSV, NDJSON, error rows); absent: the format `f` only. */
  o?: 1;
  h: string[];
  s: PayloadStudent[];
}

/** A student as the grouper builds it: rows without quotes stay raw lines. */
export interface EncodedStudent extends Omit<PayloadStudent, 'c' | 'r'> {
  c: (string | string[])[];
}

/** A payload buffer larger than this (a chunk of huge cells) is not kept for reuse. */
const MAX_SPARE_PAYLOAD_BYTES = 8 * 1024 * 1024;
/** Recycled payload buffers kept at most (more are in use only while that many chunks are in flight). */
const MAX_SPARE_PAYLOADS = 16;
/** First size of a payload buffer (a 1,000-student chunk of a typical file takes ~250 kB). */
const INITIAL_PAYLOAD_BYTES = 256 * 1024;

/**
 * Accumulates students and serialises them into one payload, written as UTF-8 into a SharedArrayBuffer: the
 * pipeline's thread keeps no large string per chunk (a chunk in flight outlives many scavenges, so a string
 * payload was promoted to the old generation and became old garbage: ~250 bytes per student), a pool thread reads
 * the shared bytes without a copy through postMessage, and the buffer is handed back (`recycle`) once the chunk's
 * output has been taken, so a run cycles through a few buffers instead of allocating one per chunk.
 */
export class ChunkBuilder {
  private readonly prefix: Buffer;
  private readonly spare: SharedArrayBuffer[] = [];
  private buf: Buffer | undefined;
  private used = 0;
  /** Students in the chunk being built. */
  students = 0;
  /** Rows in the chunk being built. */
  rows = 0;
  /** Approximate characters of cell text in the chunk being built. */
  chars = 0;

  /**
   * `options.delimiter`: the CSV output's delimiter (payload `d`; a comma when absent); `options.allOutputs`: every
   * chunk renders the CSV, NDJSON and error-row outputs (payload `o`).
   */
  constructor(
    format: BulkFormat,
    header: readonly string[],
    policy: SchoolPolicy = DEFAULT_POLICY,
    options: { delimiter?: CsvDelimiter; allOutputs?: boolean } = {},
  ) {
    const delimiter = options.delimiter ?? ',';
    const f = JSON.stringify(format);
    const p = isDefaultPolicy(policy) ? '' : `,"p":${JSON.stringify(policy)}`;
    const o = options.allOutputs === true ? ',"o":1' : '';
    const writesCsv = format === 'csv' || options.allOutputs === true;
    const head =
      delimiter !== ',' && writesCsv
        ? `{"v":3,"f":${f},"d":${JSON.stringify(delimiter)}${p}${o}`
        : p === ''
          ? `{"v":1,"f":${f}${o}`
          : `{"v":2,"f":${f}${p}${o}`;
    this.prefix = Buffer.from(`${head},"h":${JSON.stringify(header)},"s":[`, 'utf8');
  }

  add(student: EncodedStudent, chars: number): void {
    const json = JSON.stringify(student);
    // UTF-8 takes at most 3 bytes per UTF-16 code unit; 1 for the comma, 2 for the closing "]}".
    const need = json.length * 3 + 3;
    let buf = this.buf;
    if (buf === undefined) {
      buf = this.open(this.prefix.length + need);
    } else if (this.used + need > buf.length) {
      buf = this.grow(this.used + need);
    }
    if (this.students > 0) buf[this.used++] = 0x2c; // ','
    this.used += buf.write(json, this.used, 'utf8');
    this.students++;
    this.rows += student.l.length;
    this.chars += chars;
  }

  /**
   * The payload of the students added since the last take (UTF-8 JSON, a view on a SharedArrayBuffer), and a
   * reset. Give it back with `recycle` once nothing reads it any more.
   */
  take(): Uint8Array {
    const buf = this.buf ?? this.open(this.prefix.length + 2);
    buf[this.used++] = 0x5d; // ']'
    buf[this.used++] = 0x7d; // '}'
    const payload = new Uint8Array(buf.buffer, buf.byteOffset, this.used);
    this.buf = undefined;
    this.used = 0;
    this.students = 0;
    this.rows = 0;
    this.chars = 0;
    return payload;
  }

  /** Hands a payload from `take` back for reuse: its chunk has been run and its output taken. */
  recycle(payload: Uint8Array): void {
    const buffer = payload.buffer;
    if (!(buffer instanceof SharedArrayBuffer)) return;
    if (buffer.byteLength > MAX_SPARE_PAYLOAD_BYTES || this.spare.length >= MAX_SPARE_PAYLOADS) return;
    if (this.spare.includes(buffer)) return;
    this.spare.push(buffer);
  }

  /** A buffer of at least `min` bytes (a spare one when it fits) with the prefix written. */
  private open(min: number): Buffer {
    let shared: SharedArrayBuffer | undefined;
    for (let i = this.spare.length - 1; i >= 0; i--) {
      if (this.spare[i]!.byteLength >= min) {
        shared = this.spare.splice(i, 1)[0];
        break;
      }
    }
    shared ??= new SharedArrayBuffer(Math.max(INITIAL_PAYLOAD_BYTES, min));
    const buf = Buffer.from(shared);
    this.used = this.prefix.copy(buf, 0);
    this.buf = buf;
    return buf;
  }

  private grow(min: number): Buffer {
    const old = this.buf!;
    const next = Buffer.from(new SharedArrayBuffer(Math.max(old.length * 2, min)));
    old.copy(next, 0, 0, this.used);
    this.recycle(old);
    this.buf = next;
    return next;
  }
}

/** The payload string of UTF-8 payload bytes (from ChunkBuilder.take, or a runner's copy of them). */
export function payloadText(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * A payload that does not decode is a SyntaxError, like the JSON.parse failure it may also be: the one Error
 * class whose name survives the structured clone from a worker thread, so the queue worker tells a bad payload
 * (never worth retrying) from a machinery failure by the error's class, not by its message.
 */
export function malformedPayload(): SyntaxError {
  return new SyntaxError('malformed chunk payload');
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

const policyCache = new Map<string, SchoolPolicy>();

/**
 * The policy of a version-2 payload: an object of policy options and values (checked against the one table), as
 * one resolved SchoolPolicy object per distinct policy, so every chunk of a file shares it (the domain caches its
 * readings per policy object).
 */
function payloadPolicy(value: unknown): SchoolPolicy {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw malformedPayload();
  const items = Object.entries(value as Record<string, unknown>).map(([k, v]) =>
    typeof v === 'string' ? `${k}=${v}` : '',
  );
  if (items.includes('')) throw malformedPayload();
  const key = items.join(',');
  let policy = policyCache.get(key);
  if (policy === undefined) {
    const parsed = parsePolicyItems(items);
    if (!parsed.ok) throw malformedPayload();
    policy = resolvePolicy(parsed.choices);
    if (policyCache.size >= 64) policyCache.clear();
    policyCache.set(key, policy);
  }
  return policy;
}

/**
 * Checks the fields of a parsed payload other than its students (`s` must be an array): throws on anything
 * malformed; resolves a version-2 or -3 payload's policy to its shared SchoolPolicy object.
 */
export function checkPayloadHead(value: unknown): ChunkPayload {
  const p = value as Partial<ChunkPayload> | null;
  if (
    p === null ||
    typeof p !== 'object' ||
    (p.v !== 1 && p.v !== 2 && p.v !== 3) ||
    (p.f !== 'csv' && p.f !== 'ndjson') ||
    !isStringArray(p.h) ||
    !Array.isArray(p.s)
  ) {
    throw malformedPayload();
  }
  if (p.v === 2 || (p.v === 3 && p.p !== undefined)) p.p = payloadPolicy(p.p);
  else if (p.p !== undefined) throw malformedPayload();
  if (p.v === 3 ? p.d !== ';' && p.d !== '\t' : p.d !== undefined) throw malformedPayload();
  if (p.o !== undefined && p.o !== 1) throw malformedPayload();
  return p as ChunkPayload;
}

/**
 * Checks one parsed student of a payload; throws on anything malformed. `lazy`: rows sent as raw lines are left
 * unsplit, and `r` unset, until splitRows(student); else they are split here and listed in `r`.
 */
export function checkPayloadStudent(value: unknown, lazy: boolean): PayloadStudent {
  const st = value as Partial<PayloadStudent> | null;
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
  if (lazy) {
    for (const row of rows) if (typeof row !== 'string' && !isStringArray(row)) throw malformedPayload();
    // Set by splitRows, with the cells (a payload cannot supply raw lines that differ from its cells).
    if (st.r !== undefined) st.r = undefined;
    return st as PayloadStudent;
  }
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
  return st as PayloadStudent;
}

/**
 * Parses and checks a whole payload string at once; throws on anything malformed (a runner then turns it into
 * error rows). `options.lazyCells`: rows sent as raw lines are left unsplit until splitRows(student). The runners
 * read payloads student by student instead (payload-reader.ts), with the same checks.
 */
export function decodePayload(payload: string, options: { lazyCells?: boolean } = {}): ChunkPayload {
  const p = checkPayloadHead(JSON.parse(payload));
  const lazy = options.lazyCells === true;
  for (const s of p.s as unknown[]) checkPayloadStudent(s, lazy);
  return p;
}

/**
 * A student decoded with `lazyCells`, its raw lines split into cells and listed in `r`: a new object, so the split
 * cells die with it (stored into the decoded student, which lives as long as its chunk, they would live as long
 * too). A student decoded without `lazyCells` is returned as it is.
 */
export function splitRows(student: PayloadStudent): PayloadStudent {
  if (student.r !== undefined) return student; // decoded without lazyCells: split already
  const rows = student.c as (string[] | string)[];
  const cells = new Array<string[]>(rows.length);
  const raws = new Array<string | undefined>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (typeof row === 'string') {
      raws[r] = row;
      cells[r] = row.split(',');
    } else {
      cells[r] = row;
    }
  }
  return { l: student.l, c: cells, e: student.e, x: student.x, r: raws };
}
