/**
 * A file as a job on a running service, shared by `sor bulk --server` and `sor jobs submit`:
 *
 *   POST {URL}/v1/jobs  (the file gzipped in its charset, the dialect and policy as query parameters, an
 *                        Idempotency-Key, callback_url when asked)                           → 202, the job
 *   GET  {URL}/v1/jobs/{id} every pollMs until completed | failed | cancelled, the progress counting students
 *   GET  the job's result link → OUT (a temporary file renamed at the end: never a file that looks complete)
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import type { PolicyChoices } from '../domain/policy.ts';
import { dialectQuery } from './dialect-options.ts';
import { policyQueryParams } from './policy-options.ts';
import { formatCheckSummary, hasMismatch } from './check-summary.ts';
import { EXIT_JOB_FAILED, EXIT_OK, EXIT_REFUSED, EXIT_ROW_ERRORS } from './exit-codes.ts';
import { CliFailure, fileFailure, UsageError } from './io.ts';
import { ProgressReporter, formatInt, type ProgressStream } from './progress.ts';
import { FINISHED, type JobView, type ServiceClient } from './service-client.ts';

/** How often a job is polled while the CLI follows it. */
export const POLL_MS = 500;

export interface SubmitOptions {
  /** A file path, or `-` for `stdin`. */
  inputPath: string;
  stdin: Readable;
  format: 'csv' | 'ndjson';
  dialect?: CsvDialect;
  policy?: PolicyChoices;
  /** Where the service POSTs the signed event when the job ends (callback_url). */
  callback?: string;
}

/** Throws the sentence of an input file that cannot be read (before anything is sent); `-` is stdin. */
export function checkInputFile(path: string): void {
  if (path === '-') return;
  try {
    if (!statSync(path).isFile()) throw new CliFailure(`cannot read ${path}: it is a folder, not a file`);
  } catch (err) {
    throw fileFailure(err, 'read', path);
  }
}

/** Submits a file; resolves with the job the service created (a 202), else throws the failure in one sentence. */
export async function submitFile(client: ServiceClient, options: SubmitOptions): Promise<JobView> {
  const { inputPath } = options;
  checkInputFile(inputPath); // before any upload
  const input: Readable =
    inputPath === '-' ? options.stdin : createReadStream(inputPath, { highWaterMark: 256 * 1024 });
  let readError: unknown;
  const body = input.pipe(createGzip());
  input.on('error', (err: Error) => {
    readError = err;
    body.destroy(err);
  });
  const params = new URLSearchParams(options.dialect === undefined ? '' : dialectQuery(options.dialect));
  for (const [name, value] of policyQueryParams(options.policy ?? {})) params.append(name, value);
  if (options.callback !== undefined) params.set('callback_url', options.callback);
  const query = params.size === 0 ? '' : `?${params.toString()}`;
  let res: Response;
  try {
    // The file goes gzip-compressed (the service counts its limits on the decompressed bytes), in its charset.
    res = await client.fetch(`/v1/jobs${query}`, {
      method: 'POST',
      headers: {
        'Content-Type': `text/csv; charset=${options.dialect?.charset ?? 'utf-8'}`,
        'Content-Encoding': 'gzip',
        Accept: options.format === 'ndjson' ? 'application/x-ndjson' : 'text/csv',
        'Idempotency-Key': randomUUID(),
      },
      body: Readable.toWeb(body) as unknown as ReadableStream<Uint8Array>,
      duplex: 'half',
    });
  } catch (err) {
    if (readError !== undefined) throw fileFailure(readError, 'read', inputPath === '-' ? 'stdin' : inputPath);
    throw err;
  }
  await client.expect(res, 202, 'take the file');
  const accepted = (await res.json()) as Partial<JobView> & { id: string };
  return {
    status: 'queued',
    progress: { students_done: 0, students_total: null },
    error: null,
    ...accepted,
  };
}

/** The job's path on the service (its own link, else the status URL older services give, else /v1/jobs/ID). */
function selfPath(job: JobView): string {
  return job.links?.self ?? job.status_url ?? `/v1/jobs/${encodeURIComponent(job.id)}`;
}

/**
 * Polls the job until it ends, drawing the students finished on `stderr`; resolves with the final job. The
 * progress reaches 100% only when the service counts every student done.
 */
export async function followJob(
  client: ServiceClient,
  first: JobView,
  stderr: ProgressStream,
  timing: { pollMs?: number; progressEveryMs?: number } = {},
): Promise<JobView> {
  const progress = new ProgressReporter(stderr, undefined, timing.progressEveryMs);
  let job = first;
  try {
    for (;;) {
      const res = await client.fetch(selfPath(job));
      await client.expect(res, 200, `show job ${job.id}`);
      job = (await res.json()) as JobView;
      const p = job.progress;
      progress.update({
        students: p.students_done,
        total: p.students_total,
        rows: p.rows_done,
        errorRows: p.error_rows,
        status: job.status === 'running' || job.status === 'completed' ? undefined : job.status,
      });
      if (FINISHED.has(job.status)) return job;
      await new Promise((resolve) => setTimeout(resolve, timing.pollMs ?? POLL_MS));
    }
  } finally {
    progress.finish();
  }
}

/** A job that did not complete, as one sentence (exit 5). */
export function notCompleted(job: JobView): CliFailure {
  if (job.status === 'cancelled') return new CliFailure(`job ${job.id} was cancelled`, EXIT_JOB_FAILED);
  const e = job.error;
  const fields = (e?.field_errors ?? []).map((f) => `\n  ${f.field}: ${f.message}`).join('');
  return new CliFailure(
    `job ${job.id} failed: ${e?.message ?? 'the service gave no reason'}${fields}`,
    EXIT_JOB_FAILED,
  );
}

export type ResultKind = 'result' | 'csv' | 'ndjson' | 'errors';

/** The link of one of a completed job's downloads; an older service has `result_url` only. */
export function resultPath(job: JobView, kind: ResultKind): string {
  const links = job.links;
  const path =
    kind === 'result'
      ? (links?.result ?? job.result_url)
      : kind === 'csv'
        ? links?.result_csv
        : kind === 'ndjson'
          ? links?.result_ndjson
          : links?.errors_csv;
  if (path !== undefined && path !== null) return path;
  if ((kind === 'csv' || kind === 'ndjson') && job.format === kind && job.result_url !== undefined)
    return job.result_url;
  throw new CliFailure(
    kind === 'errors'
      ? `the service does not keep the error rows of job ${job.id} on their own (the job is older than that); download the whole result`
      : `the service does not keep job ${job.id}'s result as ${kind} (the job is older than that); download it without --format`,
    EXIT_REFUSED,
  );
}

/** The error rows of a job: its counts, else its progress (older services). */
function errorRowsOf(job: JobView): number {
  return job.counts?.error_rows ?? job.progress.error_rows ?? 0;
}

/** Prints the end-of-run summary of a completed job on `stderr` and returns the exit status (0 or 2). */
export function jobSummary(job: JobView, where: string, seconds: number, stderr: Writable): number {
  const errorRows = errorRowsOf(job);
  const rows = job.counts?.rows ?? job.progress.rows_done ?? 0;
  const students = job.counts?.students ?? job.progress.students_done;
  stderr.write(
    `sor: ${formatInt(rows)} rows, ${formatInt(students)} students in ${seconds.toFixed(1)} s on ${where} ` +
      `(job ${job.id}): ` +
      (errorRows === 0
        ? 'all rows ok\n'
        : `${formatInt(errorRows)} error rows (row_status=error; see error_field and error_message)\n`),
  );
  const checks = job.check_summary ?? undefined;
  if (checks !== undefined) stderr.write(formatCheckSummary(checks));
  return errorRows === 0 && !hasMismatch(checks) ? EXIT_OK : EXIT_ROW_ERRORS;
}

/** --callback's value: an absolute http(s) URL (the service checks the rest: https, addresses, WEBHOOK_ALLOW). */
export function callbackOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `--callback must be a URL such as https://etl.example.edu/sor-events (got ${JSON.stringify(value)})`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError('--callback must be an https:// URL');
  return value;
}
