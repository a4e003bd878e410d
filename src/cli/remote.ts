/**
 * `sor bulk IN.csv --server URL`: submits the file to a running service's async job API instead of calculating
 * locally, follows the job's progress on stderr, then streams the result to OUT. Same output bytes and exit
 * status as a local `sor bulk` of the same file (the service runs the same pipeline).
 *
 *   POST {URL}/v1/jobs  (text/csv, Accept per --format, an Idempotency-Key)  → 202 {id, status_url, result_url}
 *   GET  status_url every POLL_MS until completed | failed, drawing a progress line
 *   GET  result_url → OUT (written to a temporary file renamed at the end: never a file that looks complete)
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, renameSync, statSync, unlinkSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { EXIT_FAILURE, EXIT_OK, EXIT_ROW_ERRORS } from './exit-codes.ts';
import { formatInt } from './progress.ts';
import { createGzip } from 'node:zlib';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import { dialectQuery } from './dialect-options.ts';
import { policyQueryParams } from './policy-options.ts';
import type { PolicyChoices } from '../domain/policy.ts';
import type { CheckSummary } from '../bulk/shadow-summary.ts';
import { formatCheckSummary, hasMismatch } from './check-summary.ts';

export const POLL_MS = 500;

export interface RemoteIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
}

export interface RemoteBulkOptions {
  server: string;
  inputPath: string;
  /** `-` for stdout. */
  outputPath: string;
  format: 'csv' | 'ndjson';
  io: RemoteIo;
  pollMs?: number;
  signal?: AbortSignal;
  /** Access token (--token or SOR_TOKEN), sent as Authorization: Bearer on every request; never printed. */
  token?: string;
  /** How the file is written (sent as query parameters); default v1 UTF-8 CSV. */
  dialect?: CsvDialect;
  /** --policy: the file's school-policy options, sent as `policy.<option>` query parameters. */
  policy?: PolicyChoices;
}

interface JobView {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  progress: { students_done: number; students_total: number | null; rows_done?: number; error_rows?: number };
  /** Present when the file had sis_* columns (the shadow check). */
  check_summary?: CheckSummary;
  error: { code: string; message: string; field_errors?: { field: string; message: string }[] } | null;
  status_url: string;
  result_url: string;
}

class RemoteError extends Error {}

async function envelopeMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as {
      code?: string;
      message?: string;
      field_errors?: { field: string; message: string }[];
    };
    const fields = (body.field_errors ?? []).map((f) => `\n  ${f.field}: ${f.message}`).join('');
    return `${res.status} ${body.code ?? ''}: ${body.message ?? text}${fields}`;
  } catch {
    return `${res.status}: ${text.slice(0, 200)}`;
  }
}

function baseUrl(server: string): URL {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new RemoteError(`--server must be a URL such as http://localhost:8080 (got ${JSON.stringify(server)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RemoteError('--server must be http(s)://');
  url.search = '';
  url.hash = '';
  return url;
}

/**
 * A service path (`/v1/jobs`, or a status_url the service gives, `/v1/jobs/{id}`) under the --server URL's own
 * path: `https://host/sor/` (or `https://host/sor`) + `/v1/jobs` → `https://host/sor/v1/jobs`, so a service behind
 * a path prefix is reached through it.
 */
export function serviceUrl(base: URL, path: string): URL {
  const prefix = base.pathname.replace(/\/+$/, '');
  const url = new URL(base.href);
  const [pathname, query] = path.split('?', 2) as [string, string | undefined];
  url.pathname = `${prefix}/${pathname.replace(/^\/+/, '')}`;
  url.search = query === undefined ? '' : `?${query}`;
  return url;
}

/** Runs the remote bulk command; resolves with the exit status. */
export async function remoteBulkCommand(options: RemoteBulkOptions): Promise<number> {
  const { io, format } = options;
  const pollMs = options.pollMs ?? POLL_MS;
  const tty = io.stderr.isTTY === true;
  const tmpPath = options.outputPath === '-' ? undefined : `${options.outputPath}.partial-${process.pid}`;
  let drawn = false;
  const clear = () => {
    if (drawn) io.stderr.write('\r\x1b[K');
    drawn = false;
  };
  try {
    const base = baseUrl(options.server);
    if (options.inputPath !== '-') statSync(options.inputPath); // a missing file is reported before any upload
    const input =
      options.inputPath === '-' ? io.stdin : createReadStream(options.inputPath, { highWaterMark: 256 * 1024 });
    const auth: Record<string, string> = options.token ? { Authorization: `Bearer ${options.token}` } : {};
    // The file goes gzip-compressed (the service counts its limits on the decompressed bytes), in its charset.
    const headers: Record<string, string> = {
      ...auth,
      'Content-Type': `text/csv; charset=${options.dialect?.charset ?? 'utf-8'}`,
      'Content-Encoding': 'gzip',
      Accept: format === 'ndjson' ? 'application/x-ndjson' : 'text/csv',
      'Idempotency-Key': randomUUID(),
    };
    const body = input.pipe(createGzip());
    input.on('error', (err: Error) => body.destroy(err));

    const started = performance.now();
    io.stderr.write(`sor: uploading to ${base.origin}\n`);
    const params = new URLSearchParams(options.dialect === undefined ? '' : dialectQuery(options.dialect));
    for (const [name, value] of policyQueryParams(options.policy ?? {})) params.append(name, value);
    const query = params.size === 0 ? '' : `?${params.toString()}`;
    const submitted = await fetch(serviceUrl(base, `/v1/jobs${query}`), {
      method: 'POST',
      headers,
      body: Readable.toWeb(body) as unknown as ReadableStream<Uint8Array>,
      duplex: 'half',
      signal: options.signal,
    } as RequestInit & { duplex: 'half' });
    if (submitted.status !== 202)
      throw new RemoteError(
        `the server refused the file: ${await envelopeMessage(submitted)}` +
          (submitted.status === 401 || submitted.status === 403 ? ' (give a token: --token or SOR_TOKEN)' : ''),
      );
    const accepted = (await submitted.json()) as { id: string; status_url: string; result_url: string };
    io.stderr.write(`sor: job ${accepted.id} accepted\n`);

    let job: JobView;
    let lastLine = 0;
    for (;;) {
      const res = await fetch(serviceUrl(base, accepted.status_url), { headers: auth, signal: options.signal });
      if (res.status !== 200) throw new RemoteError(`cannot read the job status: ${await envelopeMessage(res)}`);
      job = (await res.json()) as JobView;
      const now = performance.now();
      const p = job.progress;
      const seconds = (now - started) / 1000;
      const pct = p.students_total ? Math.floor((100 * p.students_done) / Math.max(1, p.students_total)) : undefined;
      const line =
        `job ${job.status}: ${formatInt(p.students_done)}${p.students_total !== null ? ` / ${formatInt(p.students_total)}` : ''} ` +
        `students${pct !== undefined ? ` (${pct}%)` : ''}, ${formatInt(seconds > 0 ? p.students_done / seconds : 0)} students/s`;
      if (tty) {
        io.stderr.write(`\r\x1b[K${line}`);
        drawn = true;
      } else if (now - lastLine >= 5000) {
        io.stderr.write(`sor: ${line}\n`);
        lastLine = now;
      }
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    clear();
    if (job.status === 'failed') {
      const e = job.error;
      const fields = (e?.field_errors ?? []).map((f) => `\n  ${f.field}: ${f.message}`).join('');
      throw new RemoteError(`the job failed: ${e?.code ?? 'internal_error'}: ${e?.message ?? ''}${fields}`);
    }

    // The result comes gzipped (the stored bytes as they are); fetch decompresses it.
    const result = await fetch(serviceUrl(base, accepted.result_url), {
      headers: { ...auth, 'Accept-Encoding': 'gzip' },
      signal: options.signal,
    });
    if (result.status !== 200 || !result.body) {
      throw new RemoteError(`cannot download the result: ${await envelopeMessage(result)}`);
    }
    const output: Writable = tmpPath === undefined ? io.stdout : createWriteStream(tmpPath);
    await pipeline(Readable.fromWeb(result.body as unknown as WebReadableStream<Uint8Array>), output, {
      end: tmpPath !== undefined,
    });
    if (tmpPath !== undefined) renameSync(tmpPath, options.outputPath);

    const seconds = (performance.now() - started) / 1000;
    const errorRows = job.progress.error_rows ?? 0;
    io.stderr.write(
      `sor: ${formatInt(job.progress.rows_done ?? 0)} rows, ${formatInt(job.progress.students_done)} students in ` +
        `${seconds.toFixed(1)} s on ${base.origin} (job ${job.id}): ` +
        (errorRows === 0
          ? 'all rows ok\n'
          : `${formatInt(errorRows)} error rows (row_status=error; see error_field and error_message)\n`),
    );
    if (job.check_summary !== undefined) io.stderr.write(formatCheckSummary(job.check_summary));
    return errorRows === 0 && !hasMismatch(job.check_summary) ? EXIT_OK : EXIT_ROW_ERRORS;
  } catch (err) {
    clear();
    if (tmpPath !== undefined) {
      try {
        unlinkSync(tmpPath);
      } catch {
        // nothing was written
      }
    }
    const message =
      err instanceof RemoteError
        ? err.message
        : `cannot reach ${options.server}: ${(err as Error).message}${(err as { cause?: Error }).cause ? ` (${(err as { cause: Error }).cause.message})` : ''}`;
    io.stderr.write(`sor: error: ${message}\n`);
    return EXIT_FAILURE;
  }
}
