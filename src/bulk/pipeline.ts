/**
 * The bulk pipeline, shared by POST /v1/calculate/bulk, the CLI and the async job API:
 *
 *   input bytes → text (the declared charset, bulk-reader.ts) → CsvRecordReader (its delimiter) → header check
 *     → record shape (unnamed columns) → StudentGrouper → ChunkBuilder (N students)
 *     → runner.run (inline | piscina pool | queue; at most BULK_MAX_INFLIGHT_CHUNKS in flight)
 *     → ReorderBuffer (chunk index) → output.write (awaiting 'drain'): the chunk scheduler, chunk-scheduler.ts
 *
 * Backpressure end to end: a slow client fills the output, the writer awaits 'drain', chunks stay in flight,
 * `submit` waits for a free slot, the loop stops pulling input, and the input stream (the request socket) pauses.
 *
 * Nothing is written before the header has been checked (and, with a runner choice, before the first
 * BULK_SYNC_MAX_ROWS + 1 rows have been read), so an HTTP caller can still answer 400/413 with a JSON error when
 * runBulk rejects before `onStart`. After that, every problem in the data becomes error rows; only failures of
 * the transport itself (client gone, byte limit exceeded on a body without Content-Length, abort) reject.
 *
 * Completeness: every data row of the input produces exactly one output row (CSV), in input order. A chunk whose
 * runner rejects, or returns a different number of rows than it was given, becomes internal_error rows.
 *
 * An async job's run (`outputs`) writes, from the one calculation of each student, the CSV result, the NDJSON
 * result and the errors-only CSV (the CSV's header and its error rows) to three outputs; every run counts what its
 * results add up to (`progress.stats`, src/bulk/result-stats.ts).
 */
import { createBulkDecoder, createBulkReader, DEFAULT_BULK_TEXT_LIMITS } from './bulk-reader.ts';
import { DEFAULT_DIALECT, outputDelimiterOf, type CsvDialect } from './csv-dialect.ts';
import { shapeRecord } from './record-shape.ts';
import type { Readable, Writable } from 'node:stream';
import type { Config } from '../config.ts';
import type { SchoolPolicy } from '../domain/policy.ts';
import { appError } from '../errors.ts';
import type { ChunkOutcome, ChunkRunner } from './runner.ts';
import { recordCells, type CsvRecord } from './csv-record.ts';
import { readHeader, type CsvLayout } from './csv-layout.ts';
import { ChunkBuilder, type BulkFormat } from './chunk-payload.ts';
import { StudentGrouper } from './group-students.ts';
import { newRunId } from './run-id.ts';
import { outputHeaderLine } from './output-csv.ts';
import { hasSisColumns } from './shadow-check.ts';
import { CheckTally } from './shadow-summary.ts';
import { ChunkScheduler, type BulkProgress, type JobOutputs } from './chunk-scheduler.ts';
import { emptyResultStats } from './result-stats.ts';
import { abortReason, endOutput, writeText } from './output-writes.ts';

export type { BulkFormat } from './chunk-payload.ts';
export type { BulkProgress, JobOutputs } from './chunk-scheduler.ts';

/**
 * A chunk is also cut by size: a student that would take it past this many characters of cells starts the next
 * chunk, so a thread never receives more than this (or one student, itself at most BULK_MAX_STUDENT_CHARS).
 */
export const MAX_CHUNK_CHARS = 4 * 1024 * 1024;

/**
 * Bytes per read of a bulk file the pipeline computes (createReadStream's highWaterMark). Each read becomes one
 * string whose records are grouped before the next read, across the waits for a free chunk slot: a 256 kB read
 * (a large-object string) outlived a scavenge and was promoted to the old generation almost every time, 64 kB
 * reads mostly die young. Measured on 300k students (`--max-semi-space-size=4`, pool runner, same run): 62-63 MB
 * promoted on the pipeline's thread with 256 kB reads, 16 MB with 64 kB, 140 MB with 16 kB (more records held
 * across each wait); peak heap 61-71 MB → 36 MB.
 */
export const PIPELINE_READ_BYTES = 64 * 1024;

export interface RunnerChoice {
  /** Files with at most `BULK_SYNC_MAX_ROWS` data rows. */
  small: ChunkRunner;
  /** Larger files. */
  large: ChunkRunner;
}

export interface BulkSummary extends BulkProgress {
  /** The runner that ran the chunks. */
  runner: ChunkRunner['kind'];
}

export interface RunBulkOptions {
  input: Readable | AsyncIterable<Buffer | string>;
  output: Writable;
  format: BulkFormat;
  /** One runner, or a choice made after reading up to BULK_SYNC_MAX_ROWS + 1 rows. */
  runner: ChunkRunner | RunnerChoice;
  config: Pick<Config, 'BULK_CHUNK_STUDENTS' | 'BULK_MAX_INFLIGHT_CHUNKS' | 'BULK_SYNC_MAX_ROWS'> &
    Partial<Pick<Config, 'BULK_MAX_CELL_CHARS' | 'BULK_MAX_ROW_CHARS' | 'BULK_MAX_STUDENT_CHARS'>>;
  /** HTTP limits (the CLI has none): over them before output → AppError 413; rows after → error rows. */
  limits?: { maxBytes?: number; maxRows?: number };
  /** Called once, right before the first byte of output, with the runner chosen. */
  onStart?: (runner: ChunkRunner) => void;
  /** Called after each chunk is written. */
  onProgress?: (progress: BulkProgress) => void;
  /** Called when a chunk could not be run (its rows became internal_error rows). */
  onChunkError?: (error: unknown, index: number) => void;
  /**
   * Students a prescan (src/bulk/prescan.ts) found with non-contiguous rows, with the line where each first
   * appeared: every row of each becomes an error row, its first group included.
   */
  nonContiguous?: ReadonlyMap<string, number>;
  /**
   * The line of the user's file where a record of `input` starts, when `input` is a copy in another order
   * (`sor bulk --sort`): messages name the user's lines. Default: the input's own lines.
   */
  lineOf?: (line: number) => number;
  /** Aborts reading and writing (client gone, Ctrl-C); runBulk then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * How the file is written (charset, delimiter, extra columns) and how the CSV output is (its delimiter: the
   * file's unless another is asked for; a byte order mark); default: UTF-8, commas, strict columns, no BOM
   * (src/bulk/csv-dialect.ts).
   */
  dialect?: CsvDialect;
  /**
   * The file's school policy (rules.md §10): the deployment default with the file's own options over it; every
   * student is calculated under it, whichever runner runs its chunk (it travels in the chunk payload). Default:
   * DEFAULT_POLICY.
   */
  policy?: SchoolPolicy;
  /** End `output` when done (default true; false for process.stdout). */
  endOutput?: boolean;
  /**
   * An async job's run: every output the job offers, from one calculation of each student. `output` must be the
   * one of `format` among them; all three are ended when done.
   */
  outputs?: JobOutputs;
  /**
   * Let the runner reuse an output buffer once `output`'s write callback has fired (ChunkOutput.release). Only for
   * outputs that are done with a chunk when they call back (sockets, files); never for a Writable that keeps the
   * chunks it is given.
   */
  recycleOutput?: boolean;
}

/** The output of an outcome as text, whether the runner returned `text` or UTF-8 `bytes`. */
export function outcomeText(outcome: ChunkOutcome): string {
  const { bytes } = outcome;
  if (bytes === undefined) return outcome.text;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function isRunner(value: ChunkRunner | RunnerChoice): value is ChunkRunner {
  return typeof (value as ChunkRunner).run === 'function';
}

/**
 * Streams a bulk CSV file through the pipeline. Resolves with the totals once the output is complete (and
 * ended, unless `endOutput: false`). Rejects with an AppError (400 header, 413 limits) before any output, or
 * with the transport failure after.
 */
export async function runBulk(options: RunBulkOptions): Promise<BulkSummary> {
  const { input, output, format, config, limits, signal, outputs } = options;
  if (outputs !== undefined && outputs[format] !== output) throw new Error('runBulk: `output` must be outputs[format]');
  const maxBytes = limits?.maxBytes;
  const maxRows = limits?.maxRows;
  const chunkStudents = config.BULK_CHUNK_STUDENTS;

  const dialect = options.dialect ?? DEFAULT_DIALECT;
  const reader = createBulkReader(
    { maxRowChars: config.BULK_MAX_ROW_CHARS, maxCellChars: config.BULK_MAX_CELL_CHARS },
    dialect,
  );
  const decoder = createBulkDecoder(dialect);
  const records: CsvRecord[] = [];
  const progress: BulkProgress = {
    bytes: 0,
    rows: 0,
    errorRows: 0,
    students: 0,
    chunks: 0,
    stats: emptyResultStats(),
  };

  let layout: CsvLayout | undefined;
  let runner: ChunkRunner | undefined = isRunner(options.runner) ? options.runner : undefined;
  const probe: CsvRecord[] = [];
  let dataRows = 0;
  let scheduler: ChunkScheduler | undefined;
  let builder: ChunkBuilder | undefined;
  let grouper: StudentGrouper | undefined;
  const ready: { payload: Uint8Array; rows: number; students: number }[] = [];

  const rowLimitMessage =
    maxRows === undefined
      ? ''
      : `not processed: the file has more than ${maxRows} data rows, the most one request accepts; send the ` +
        'remaining rows in another file';

  const start = async (chosen: ChunkRunner) => {
    runner = chosen;
    const l = layout!;
    builder = new ChunkBuilder(format, l.header, options.policy, {
      delimiter: outputDelimiterOf(dialect),
      allOutputs: outputs !== undefined,
    });
    const b = builder;
    grouper = new StudentGrouper(
      l.col.student_id,
      (student, chars) => {
        if (b.students > 0 && b.chars + chars > MAX_CHUNK_CHARS) {
          ready.push({ rows: b.rows, students: b.students, payload: b.take() });
        }
        b.add(student, chars);
        if (b.students >= chunkStudents) ready.push({ rows: b.rows, students: b.students, payload: b.take() });
      },
      config.BULK_MAX_STUDENT_CHARS ?? DEFAULT_BULK_TEXT_LIMITS.BULK_MAX_STUDENT_CHARS,
    );
    grouper.nonContiguous = options.nonContiguous;
    const tally = hasSisColumns(l) ? new CheckTally(format, l) : undefined;
    scheduler = new ChunkScheduler(
      {
        runner: chosen,
        output,
        maxInflight: Math.min(config.BULK_MAX_INFLIGHT_CHUNKS, chosen.inflightLimit ?? Number.POSITIVE_INFINITY),
        signal,
        onProgress: options.onProgress,
        onChunkError: options.onChunkError,
        recycleOutput: options.recycleOutput === true,
        runId: newRunId(),
        checks: tally,
        recyclePayload: (payload) => b.recycle(payload),
        sections: outputs,
      },
      progress,
    );
    if (tally !== undefined) progress.checks = tally.summary();
    options.onStart?.(chosen);
    const header = (dialect.bom ? '\ufeff' : '') + outputHeaderLine(l, outputDelimiterOf(dialect));
    if (outputs !== undefined) {
      await writeText(outputs.csv, header, signal);
      await writeText(outputs.errors, header, signal);
    } else if (format === 'csv') await writeText(output, header, signal);
  };

  const addRow = (record: CsvRecord, index: number) => {
    grouper!.add(record, maxRows !== undefined && index > maxRows ? rowLimitMessage : undefined);
  };

  const consume = async (final: boolean) => {
    for (const record of records) {
      if (layout === undefined) {
        if (record.error !== undefined) {
          throw appError('CSV_HEADER_MALFORMED', { detail: record.error });
        }
        layout = readHeader(recordCells(record), { extraColumns: dialect.extraColumns, delimiter: dialect.delimiter });
        reader.expectedCells = layout.fileWidth ?? layout.width;
        if (runner !== undefined) await start(runner);
        continue;
      }
      dataRows++;
      if (options.lineOf !== undefined) record.line = options.lineOf(record.line);
      if (scheduler === undefined) {
        if (maxRows !== undefined && dataRows > maxRows) {
          throw appError('CSV_TOO_MANY_ROWS', { maxRows });
        }
        probe.push(shapeRecord(record, layout));
        if (probe.length <= config.BULK_SYNC_MAX_ROWS) continue;
        await start((options.runner as RunnerChoice).large);
        probe.forEach((r, i) => addRow(r, i + 1));
        probe.length = 0;
      } else {
        addRow(shapeRecord(record, layout), dataRows);
      }
      while (ready.length > 0) {
        const next = ready.shift()!;
        await scheduler!.submit(next.payload, next.rows, next.students);
      }
    }
    records.length = 0;
    if (!final) return;

    if (layout === undefined) {
      throw appError('CSV_EMPTY');
    }
    if (scheduler === undefined) {
      await start((options.runner as RunnerChoice).small);
      probe.forEach((r, i) => addRow(r, i + 1));
      probe.length = 0;
    }
    grouper!.flush();
    if (builder!.students > 0)
      ready.push({ rows: builder!.rows, students: builder!.students, payload: builder!.take() });
    while (ready.length > 0) {
      const next = ready.shift()!;
      await scheduler!.submit(next.payload, next.rows, next.students);
    }
    await scheduler!.finish();
  };

  if (signal?.aborted) throw abortReason(signal);
  // The input is not destroyed when the pipeline stops early (an HTTP request must stay open for the 400).
  const source: AsyncIterable<Buffer | string> =
    'iterator' in input && typeof input.iterator === 'function'
      ? (input as Readable).iterator({ destroyOnReturn: false })
      : input;
  for await (const chunk of source) {
    if (signal?.aborted) throw abortReason(signal);
    let text: string;
    if (typeof chunk === 'string') {
      progress.bytes += Buffer.byteLength(chunk);
      text = chunk;
    } else {
      progress.bytes += chunk.length;
      text = decoder.write(chunk);
    }
    if (maxBytes !== undefined && progress.bytes > maxBytes) {
      throw appError('CSV_TOO_LARGE', { limit: maxBytes });
    }
    reader.push(text, records);
    await consume(false);
  }
  if (signal?.aborted) throw abortReason(signal);
  reader.push(decoder.end(), records);
  reader.end(records);
  await consume(true);
  if (outputs !== undefined) await Promise.all([outputs.csv, outputs.ndjson, outputs.errors].map(endOutput));
  else if (options.endOutput !== false) await endOutput(output);
  return { ...progress, runner: runner!.kind };
}
