/**
 * One async job's run, from its spooled upload to its final status: the bulk pipeline reads the file, its output
 * is gzip-compressed into the job store segment by segment (ResultSink), progress is written at most every
 * PROGRESS_EVERY_MS (the job's cancel mark is read then too), and the job ends completed, or failed with its
 * error: cancelled, shut down, or the run's error as a v1 envelope. The spool file is removed either way.
 * AsyncJobs (async-jobs.ts) decides when a job runs and owns its lease; this file only runs it.
 */
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Logger } from 'pino';
import {
  PIPELINE_READ_BYTES,
  type BulkProgress,
  type BulkSummary,
  type RunBulkOptions,
  type RunnerChoice,
} from '../bulk/pipeline.ts';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import type { ChunkRunner } from '../bulk/runner.ts';
import type { SchoolPolicy } from '../domain/policy.ts';
import type { Config } from '../config.ts';
import { entryEnvelope } from '../errors.ts';
import { keyTag } from '../log-tag.ts';
import { metrics } from '../metrics.ts';
import { ResultSink } from './result-sink.ts';
import { removeSpoolFile } from './spool.ts';
import type { JobError, JobPatch, JobRecord, JobStore } from './job-store.ts';

/** The abort reason of a job cancelled by DELETE /v1/jobs/{id}. */
export const CANCELLED = 'cancelled';

/** Progress is written to the store at most this often. */
const PROGRESS_EVERY_MS = 500;

/** The bulk pipeline (src/bulk/pipeline.ts runBulk), injected so tests and the CLI can supply their own. */
export type RunBulkFn = (options: RunBulkOptions) => Promise<BulkSummary>;

/** Maps any error of a bulk run to the job's error object (the v1 envelope shape). */
export type ErrorMapper = (err: unknown) => JobError;

/** A job created and waiting to run: its record and its spooled upload. */
export interface PendingJob {
  record: JobRecord;
  path: string;
  nonContiguous: ReadonlyMap<string, number> | undefined;
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
  /** Writes a patch of the job, logging (not throwing) when the store refuses it. */
  update(patch: JobPatch): Promise<void>;
  /** Marks the job failed with `error`, its partial result deleted. */
  markFailed(error: JobError): Promise<void>;
  /** True when another API process answered a DELETE of the job. */
  cancelledElsewhere(): Promise<boolean>;
  /** Aborts this run with the CANCELLED reason. */
  cancel(): void;
}

/** Runs one job to its final status (see above); never throws: a failure is the job's failed status. */
export async function runJob(ctx: JobRunContext, pending: PendingJob, signal: AbortSignal): Promise<void> {
  const { record, path, nonContiguous, dialect, policy } = pending;
  const id = record.id;
  const log = ctx.logger.child({ job: keyTag(id) });
  if (await ctx.cancelledElsewhere()) {
    await removeSpoolFile(path).catch(() => undefined);
    log.info('async job cancelled before it started');
    return;
  }
  await ctx.update({
    status: 'running',
    started_at: new Date().toISOString(),
    lease_until: Date.now() + ctx.leaseMs,
  });
  metrics.jobTransitions.inc({ status: 'running' });
  log.info('async job running');
  let students = 0;
  let rows = 0;
  let errorRows = 0;
  let lastWrite = 0;
  const onProgress = (p: BulkProgress) => {
    students = p.students;
    rows = p.rows;
    errorRows = p.errorRows;
    const now = Date.now();
    if (now - lastWrite >= PROGRESS_EVERY_MS) {
      lastWrite = now;
      const checks = p.checks === undefined ? {} : { check_summary: p.checks };
      void ctx.update({ students_done: students, rows_done: rows, error_rows: errorRows, ...checks });
      void ctx.cancelledElsewhere().then((yes) => yes && ctx.cancel());
    }
  };
  const sink = new ResultSink(ctx.store, id);
  const gzip = createGzip();
  let pipeError: unknown;
  const stored = pipeline(gzip, sink).catch((err: unknown) => {
    pipeError = err;
  });
  try {
    const summary = await ctx.runBulk({
      input: createReadStream(path, { highWaterMark: PIPELINE_READ_BYTES }),
      nonContiguous,
      dialect,
      policy,
      output: gzip,
      format: record.format,
      runner: ctx.runners,
      config: ctx.config,
      limits: { maxBytes: ctx.config.BULK_MAX_BYTES, maxRows: ctx.config.BULK_MAX_ROWS },
      onProgress,
      signal,
    });
    students = summary.students;
    rows = summary.rows;
    errorRows = summary.errorRows;
    if (!gzip.writableEnded) gzip.end();
    await stored;
    if (pipeError !== undefined) throw pipeError;
    if (await ctx.cancelledElsewhere()) {
      await ctx.store.clearResult(id);
      log.info('async job cancelled while it finished');
      return;
    }
    await ctx.store.settleResult(id);
    await ctx.store.update(id, {
      status: 'completed',
      finished_at: new Date().toISOString(),
      students_done: students,
      students_total: students,
      rows_done: rows,
      error_rows: errorRows,
      ...(summary.checks === undefined ? {} : { check_summary: summary.checks }),
    });
    metrics.jobTransitions.inc({ status: 'completed' });
    log.info({ students, rows, errorRows }, 'async job completed');
  } catch (err) {
    const cause = sink.failure ?? err;
    gzip.destroy();
    sink.destroy();
    await stored;
    const error = !signal.aborted
      ? ctx.mapError(cause)
      : signal.reason === CANCELLED
        ? entryEnvelope('JOB_CANCELLED')
        : entryEnvelope('JOB_SHUTDOWN_BEFORE_FINISH');
    log.warn({ err: (cause as Error)?.message, code: error.code }, 'async job failed');
    await ctx.markFailed(error);
    metrics.jobTransitions.inc({ status: 'failed' });
  } finally {
    await removeSpoolFile(path).catch(() => undefined);
  }
}
