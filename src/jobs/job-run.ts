/**
 * One async job's run, from its spooled upload to its final status: the bulk pipeline reads the file once and
 * writes, from one calculation of each student, every result the job offers (the format asked, the other format,
 * the errors-only CSV: src/bulk/pipeline.ts `outputs`), each gzip-compressed into the job store segment by segment
 * (ResultSink). Progress, with what the results add up to so far (src/bulk/result-stats.ts), is written at most
 * every PROGRESS_EVERY_MS (the job's cancel mark is read then too), and the job ends completed, cancelled, or
 * failed with the run's error as a v1 envelope. A run stopped because its process shuts down hands the job back
 * (released: queued, its partial results deleted, its upload kept); one whose job another process took over
 * (lost: its lease could not be renewed, or one of its writes was fenced, src/jobs/fencing.ts) stops quietly with
 * one log line, leaving the job, its results and its upload to that process: no status, no webhook.
 * AsyncJobs (async-jobs.ts) decides when a job runs, owns its lease and its upload; this file only runs it.
 */
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';
import type { Logger } from 'pino';
import {
  PIPELINE_READ_BYTES,
  type BulkProgress,
  type BulkSummary,
  type JobOutputs,
  type RunBulkOptions,
  type RunnerChoice,
} from '../bulk/pipeline.ts';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import type { ChunkRunner } from '../bulk/runner.ts';
import { copyResultStats } from '../bulk/result-stats.ts';
import type { SchoolPolicy } from '../domain/policy.ts';
import type { Config } from '../config.ts';
import { entryEnvelope } from '../errors.ts';
import { keyTag } from '../log-tag.ts';
import { metrics } from '../metrics.ts';
import { ResultSink } from './result-sink.ts';
import type { JobError, JobPatch, JobRecord, JobStore, ResultPart } from './job-store.ts';
import { attemptOf, isFenced } from './fencing.ts';

/** The abort reason of a job cancelled by DELETE /v1/jobs/{id}. */
export const CANCELLED = 'cancelled';
/** The abort reason of a run stopped because its process shuts down: the job is handed back. */
export const RELEASED = 'released';
/** The abort reason of a run whose job another process took over (its lease could not be renewed). */
export const LOST = 'lost';

/** Progress is written to the store at most this often. */
const PROGRESS_EVERY_MS = 500;

/**
 * zlib level of the stored results. Results are CSV and JSON lines that repeat their column layout and most of
 * their values: level 1 keeps them small while costing a fraction of the default level's CPU (a job compresses
 * two formats, so this is most of what a job costs beyond the calculation; docs/benchmarks.md).
 */
export const RESULT_GZIP_LEVEL = 1;

/** The bulk pipeline (src/bulk/pipeline.ts runBulk), injected so tests and the CLI can supply their own. */
export type RunBulkFn = (options: RunBulkOptions) => Promise<BulkSummary>;

/** Maps any error of a bulk run to the job's error object (the v1 envelope shape). */
export type ErrorMapper = (err: unknown) => JobError;

/** A job created and waiting to run: its record and its spooled upload. */
export interface PendingJob {
  record: JobRecord;
  path: string;
  nonContiguous?: ReadonlyMap<string, number>;
  dialect?: CsvDialect;
  policy: SchoolPolicy;
}

/** What a run needs of the AsyncJobs that started it; the job-bound callbacks write to this job only. */
export interface JobRunContext {
  store: JobStore;
  config: Config;
  logger: Logger;
  runners: ChunkRunner | RunnerChoice;
  runBulk: RunBulkFn;
  mapError: ErrorMapper;
  /** How long the lease written when the job starts running lasts. */
  leaseMs: number;
  /** JOB_TTL_SECONDS in ms: a finished job expires this long after it finished. */
  ttlMs: number;
  /**
   * Writes a patch of the job for this run's attempt, logging (not throwing) when the store refuses it; false when
   * the write was fenced (the run is aborted with LOST then).
   */
  update(patch: JobPatch): Promise<boolean>;
  /** Marks the job failed with `error` (or cancelled), its partial results deleted; false when fenced. */
  markEnded(status: 'failed' | 'cancelled', error: JobError): Promise<boolean>;
  /** Hands the job back to be run again (shutdown): queued, no instance, partial results deleted. */
  release(): Promise<void>;
  /** True when another API process answered a DELETE of the job. */
  cancelledElsewhere(): Promise<boolean>;
  /** Aborts this run with the CANCELLED reason. */
  cancel(): void;
}

/** How the run ended: the job's final status (the store has it), or handed back, or taken over elsewhere. */
export type RunEnd = 'completed' | 'failed' | 'cancelled' | 'released' | 'lost';

/** The store part each output of the pipeline goes to, for a job asked for `format`. */
function partOf(output: keyof JobOutputs, format: 'csv' | 'ndjson'): ResultPart {
  if (output === 'errors') return 'errors';
  return output === format ? 'result' : 'alternate';
}

/** Three gzip streams into the store for the run's attempt, and the promise that they are stored. */
function resultOutputs(ctx: JobRunContext, record: JobRecord, attempt: number) {
  const sinks: ResultSink[] = [];
  const gzips: Gzip[] = [];
  const outputs = {} as Record<keyof JobOutputs, Writable>;
  for (const output of ['csv', 'ndjson', 'errors'] as const) {
    const gzip = createGzip({ level: RESULT_GZIP_LEVEL });
    const sink = new ResultSink(ctx.store, record.id, partOf(output, record.format), attempt);
    gzips.push(gzip);
    sinks.push(sink);
    outputs[output] = gzip;
  }
  let pipeError: unknown;
  const stored = Promise.all(
    gzips.map((gzip, i) =>
      pipeline(gzip, sinks[i]!).catch((err: unknown) => {
        pipeError ??= err;
      }),
    ),
  );
  return {
    outputs: outputs as JobOutputs,
    /** Ends what the pipeline did not end, waits until every part is stored, throws the first failure. */
    async finish(): Promise<void> {
      for (const gzip of gzips) if (!gzip.writableEnded) gzip.end();
      await stored;
      if (pipeError !== undefined) throw pipeError;
    },
    /** The store's refusal (job_store_full, or fenced) when it caused the failure. */
    failure: () => sinks.find((s) => s.failure !== undefined)?.failure,
    async destroy(): Promise<void> {
      for (const gzip of gzips) gzip.destroy();
      for (const sink of sinks) sink.destroy();
      await stored;
    },
  };
}

/** Runs one job to its final status (see above); never throws: a failure is the job's failed status. */
export async function runJob(ctx: JobRunContext, pending: PendingJob, signal: AbortSignal): Promise<RunEnd> {
  const { record, path, nonContiguous, dialect, policy } = pending;
  const id = record.id;
  const attempt = attemptOf(record);
  const log = ctx.logger.child({ job: keyTag(id) });
  const lost = (): RunEnd => {
    log.warn({ attempt }, 'async job taken over by another process: this run stops');
    return 'lost';
  };
  if (await ctx.cancelledElsewhere()) {
    log.info('async job cancelled before it started');
    return 'cancelled';
  }
  const started = await ctx.update({
    status: 'running',
    started_at: new Date().toISOString(),
    lease_until: Date.now() + ctx.leaseMs,
  });
  if (!started) return lost();
  metrics.jobTransitions.inc({ status: 'running' });
  log.info('async job running');
  // Progress is written at most every PROGRESS_EVERY_MS, and the last count of a burst is written when the window
  // ends: a chunk that finishes just after a write is not left unseen while the next, slow one runs.
  let lastWrite = 0;
  let latest: BulkProgress | undefined;
  let trailing: NodeJS.Timeout | undefined;
  const writeProgress = () => {
    trailing = undefined;
    const p = latest;
    if (p === undefined) return;
    latest = undefined;
    lastWrite = Date.now();
    void ctx.update({
      students_done: p.students,
      rows_done: p.rows,
      error_rows: p.errorRows,
      ...(p.checks === undefined ? {} : { check_summary: p.checks }),
      ...(p.stats === undefined ? {} : { stats: copyResultStats(p.stats) }),
    });
    void ctx.cancelledElsewhere().then((yes) => yes && ctx.cancel());
  };
  const onProgress = (p: BulkProgress) => {
    latest = p;
    if (trailing !== undefined) return;
    const wait = lastWrite + PROGRESS_EVERY_MS - Date.now();
    if (wait <= 0) writeProgress();
    else trailing = setTimeout(writeProgress, wait);
  };
  const stopProgress = () => {
    clearTimeout(trailing);
    trailing = undefined;
    latest = undefined;
  };
  const results = resultOutputs(ctx, record, attempt);
  try {
    const summary = await ctx
      .runBulk({
        input: createReadStream(path, { highWaterMark: PIPELINE_READ_BYTES }),
        nonContiguous,
        dialect,
        policy,
        output: results.outputs[record.format],
        outputs: results.outputs,
        format: record.format,
        runner: ctx.runners,
        config: ctx.config,
        limits: { maxBytes: ctx.config.BULK_MAX_BYTES, maxRows: ctx.config.BULK_MAX_ROWS },
        onProgress,
        signal,
      })
      .finally(stopProgress);
    await results.finish();
    if (await ctx.cancelledElsewhere()) {
      await ctx.store.clearResult(id, attempt);
      log.info('async job cancelled while it finished');
      return 'cancelled';
    }
    await ctx.store.settleResult(id, attempt);
    const finished = Date.now();
    await ctx.store.update(
      id,
      {
        status: 'completed',
        finished_at: new Date(finished).toISOString(),
        expires_at: new Date(finished + ctx.ttlMs).toISOString(),
        students_done: summary.students,
        students_total: summary.students,
        rows_done: summary.rows,
        error_rows: summary.errorRows,
        ...(summary.checks === undefined ? {} : { check_summary: summary.checks }),
        ...(summary.stats === undefined ? {} : { stats: summary.stats }),
      },
      attempt,
    );
    metrics.jobTransitions.inc({ status: 'completed' });
    log.info({ students: summary.students, rows: summary.rows, errorRows: summary.errorRows }, 'async job completed');
    return 'completed';
  } catch (err) {
    const cause = results.failure() ?? err;
    await results.destroy();
    if (isFenced(cause) || isFenced(err) || (signal.aborted && signal.reason === LOST)) return lost();
    if (signal.aborted && signal.reason === CANCELLED) {
      if (!(await ctx.markEnded('cancelled', entryEnvelope('JOB_CANCELLED')))) return lost();
      log.info('async job cancelled while it ran');
      return 'cancelled';
    }
    if (signal.aborted && signal.reason === RELEASED) {
      await ctx.release().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'async job: not released'));
      log.info('async job handed back at shutdown: it runs again from its upload when the service is back');
      return 'released';
    }
    const error = ctx.mapError(cause);
    if (!(await ctx.markEnded('failed', error))) return lost();
    log.warn({ err: (cause as Error)?.message, code: error.code }, 'async job failed');
    metrics.jobTransitions.inc({ status: 'failed' });
    return 'failed';
  }
}
