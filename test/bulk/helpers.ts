/** Shared helpers of the bulk tests: configs, running the pipeline into a string, reading CSV output back. */
import type { SchoolPolicy } from '../../src/domain/policy.ts';
import { prescanStream } from '../../src/bulk/prescan.ts';
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { loadConfig, type Config } from '../../src/config.ts';
import { runBulk, type BulkFormat, type BulkSummary, type RunnerChoice } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import type { InputColumn } from '../../src/bulk/csv-layout.ts';
import type { ResultColumn } from '../../src/bulk/output-columns.ts';

/** One output row read back, keyed by column name. */
export type OutputRow = Record<InputColumn | ResultColumn, string>;

export const ROOT = new URL('../../', import.meta.url);
export const SAMPLE_CSV = new URL('samples/sample.csv', ROOT);
export const SAMPLE_EXPECTED_CSV = new URL('samples/sample.expected.csv', ROOT);
export const SAMPLE_EXPECTED_NDJSON = new URL('samples/sample.expected.ndjson', ROOT);

export function bulkConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ LOG_LEVEL: 'silent', ...env });
}

export function readText(url: URL): string {
  return readFileSync(url, 'utf8');
}

/** A Writable collecting everything written into one string. */
export class StringSink extends Writable {
  readonly parts: Buffer[] = [];
  constructor(options: ConstructorParameters<typeof Writable>[0] = {}) {
    super(options);
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.parts.push(Buffer.from(chunk));
    cb();
  }
  text(): string {
    return Buffer.concat(this.parts).toString('utf8');
  }
}

/** Splits `text` into pieces of the given sizes (cycled), to exercise chunk boundaries. */
export function piecewise(text: string | Buffer, sizes: number[] = [65_536]): Buffer[] {
  const buf = typeof text === 'string' ? Buffer.from(text) : text;
  const out: Buffer[] = [];
  let i = 0;
  for (let k = 0; i < buf.length; k++) {
    const n = Math.max(1, sizes[k % sizes.length]!);
    out.push(buf.subarray(i, i + n));
    i += n;
  }
  return out;
}

export async function runToString(
  csv: string | Buffer,
  runner: ChunkRunner | RunnerChoice,
  options: {
    format?: BulkFormat;
    config?: Config;
    pieces?: number[];
    limits?: { maxBytes?: number; maxRows?: number };
    /** The file's school policy (rules.md §10), as a door resolves its query parameters. */
    policy?: SchoolPolicy;
  } = {},
): Promise<{ text: string; summary: BulkSummary }> {
  const sink = new StringSink();
  // As every door does (src/api/upload.ts for bulk and jobs, the CLI): a prescan names the students
  // whose rows are not contiguous, so each is an error on every row, its first group included.
  const config = options.config ?? bulkConfig();
  const scan = await prescanStream(Readable.from(piecewise(csv, options.pieces)), {
    maxRowChars: config.BULK_MAX_ROW_CHARS,
    maxCellChars: config.BULK_MAX_CELL_CHARS,
  });
  const summary = await runBulk({
    nonContiguous: scan.nonContiguous,
    input: Readable.from(piecewise(csv, options.pieces)),
    output: sink,
    format: options.format ?? 'csv',
    runner,
    config: options.config ?? bulkConfig(),
    limits: options.limits,
    policy: options.policy,
  });
  return { text: sink.text(), summary };
}

/** The output CSV as objects keyed by header (csv-parse as the independent reader), in `delimiter` (a comma). */
export function parseOutput(text: string, delimiter: ',' | ';' | '\t' = ','): OutputRow[] {
  return parse(text, { columns: true, skip_empty_lines: false, relax_column_count: false, delimiter }) as OutputRow[];
}

/** The output NDJSON as objects. */
export function parseNdjson(text: string): { student_id: string; error: unknown; result: unknown }[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { student_id: string; error: unknown; result: unknown });
}

export const HEADER =
  'student_id,term_label,full_time_credits,credits_enrolled,actual_final_credits,prior_disbursement_sub,' +
  'prior_disbursement_unsub,prior_disbursement_grad_plus,dependency_status,degree_level,grade_level,' +
  'academic_year_terms,cost_of_attendance,is_legacy_borrower,plus_denied,subsidized_amount,total_limit';

/** A header of the fewest columns a student is computed from, as payload tests build chunks (ChunkBuilder). */
export const SHORT_HEADER = [
  'student_id',
  'term_label',
  'full_time_credits',
  'credits_enrolled',
  'dependency_status',
  'grade_level',
];

/** One valid data row for a dependent first-year undergraduate (fields overridable by position name). */
export function row(id: string, label: string, credits: string, extra: Partial<Record<string, string>> = {}): string {
  const v: Record<string, string> = {
    student_id: id,
    term_label: label,
    full_time_credits: '12',
    credits_enrolled: credits,
    actual_final_credits: '',
    prior_disbursement_sub: '',
    prior_disbursement_unsub: '',
    prior_disbursement_grad_plus: '',
    dependency_status: 'dependent',
    degree_level: 'undergraduate',
    grade_level: 'first_year',
    academic_year_terms: '2',
    cost_of_attendance: '',
    is_legacy_borrower: 'no',
    plus_denied: 'no',
    subsidized_amount: '3500',
    total_limit: '5500',
    ...extra,
  };
  return HEADER.split(',')
    .map((c) => v[c] ?? '')
    .join(',');
}

/** A file of `students` valid students with 1 to 4 terms each (deterministic). */
export function generatedCsv(students: number, eol = '\n'): { csv: string; rows: number } {
  const lines = [HEADER];
  let rows = 0;
  for (let s = 0; s < students; s++) {
    const terms = 1 + (s % 4);
    for (let t = 0; t < terms; t++) {
      lines.push(
        row(`G${String(s).padStart(6, '0')}`, `T${t + 1}`, String(3 + ((s * 7 + t * 5) % 13)), {
          academic_year_terms: String(Math.max(2, terms)),
        }),
      );
      rows++;
    }
  }
  return { csv: lines.join(eol) + eol, rows };
}
