/**
 * The CLI's client of a running service's job API (`--server URL`, `--token T` or SOR_TOKEN), shared by
 * `sor bulk --server` and `sor jobs`: where a path goes under the URL, the job resource (docs/api.md), and every
 * way a request can fail told in one sentence with its exit status (src/cli/exit-codes.ts):
 *
 *   no answer (refused connection, unknown host, reset)     → "the service at … did not answer (…)"     exit 3
 *   502, 503, 504                                           → the service's own words, "try again later" exit 3
 *   4xx                                                     → the service's own message (its envelope)  exit 4
 *   500 and other 5xx                                       → the service's own message                 exit 5
 *
 * The token is sent as Authorization: Bearer on every request and never printed.
 */
import { createWriteStream, renameSync, unlinkSync } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { CheckSummary } from '../bulk/shadow-summary.ts';
import { EXIT_JOB_FAILED, EXIT_REFUSED, EXIT_UNREACHABLE } from './exit-codes.ts';
import { CliFailure, fileFailure, UsageError } from './io.ts';

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** The job resource (GET /v1/jobs/{id}), as much of it as the CLI reads; older services lack `links`. */
export interface JobView {
  id: string;
  status: JobStatus;
  format?: 'csv' | 'ndjson';
  created_at?: string;
  started_at?: string | null;
  finished_at?: string | null;
  expires_at?: string | null;
  rule_set?: string | null;
  progress: { students_done: number; students_total: number | null; rows_done?: number; error_rows?: number };
  counts?: {
    students?: number | null;
    rows?: number | null;
    rows_ok?: number;
    error_rows?: number;
    students_ok?: number | null;
    students_with_errors?: number | null;
  };
  error_groups?: { field: string; message: string; rows: number; first_lines: number[] }[] | null;
  /** Present when the file had sis_* columns (the shadow check). */
  check_summary?: CheckSummary | null;
  error: { code: string; message: string; field_errors?: { field: string; message: string }[] } | null;
  links?: {
    self?: string;
    result?: string;
    result_csv?: string | null;
    result_ndjson?: string | null;
    errors_csv?: string | null;
  };
  status_url?: string;
  result_url?: string;
}

export const FINISHED: ReadonlySet<JobStatus> = new Set(['completed', 'failed', 'cancelled']);

/** The service's error envelope as one sentence: its message and field errors, else the status and the text. */
async function envelopeMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: string; field_errors?: { field: string; message: string }[] };
    const fields = (body.field_errors ?? []).map((f) => `\n  ${f.field}: ${f.message}`).join('');
    if (typeof body.message === 'string') return `${body.message}${fields}`;
  } catch {
    // not the envelope: say what came
  }
  return `it answered ${res.status} ${res.statusText}${text === '' ? '' : `: ${text.slice(0, 200)}`}`;
}

/** The code of the service's envelope, when the answer is one. */
function envelopeCode(text: string): string {
  try {
    return String((JSON.parse(text) as { code?: unknown }).code ?? '');
  } catch {
    return '';
  }
}

export class ServiceClient {
  readonly base: URL;
  private readonly auth: Record<string, string>;
  private readonly signal: AbortSignal | undefined;

  /** `server`: the --server URL (a path in it is kept); `token`: --token or SOR_TOKEN. */
  constructor(server: string, token: string | undefined, signal?: AbortSignal) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new UsageError(`--server must be a URL such as http://localhost:8080 (got ${JSON.stringify(server)})`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`--server must start with http:// or https:// (got ${JSON.stringify(server)})`);
    }
    url.search = '';
    url.hash = '';
    this.base = url;
    this.auth = token ? { Authorization: `Bearer ${token}` } : {};
    this.signal = signal;
  }

  /** The URL as given, for messages (without a query or credentials). */
  get where(): string {
    return `${this.base.origin}${this.base.pathname.replace(/\/+$/, '')}`;
  }

  /**
   * A service path (`/v1/jobs`, or a link the service gives, `/v1/jobs/{id}`) under the --server URL's own path:
   * `https://host/sor/` + `/v1/jobs` → `https://host/sor/v1/jobs`, so a service behind a path prefix is reached.
   */
  url(path: string): URL {
    return serviceUrl(this.base, path);
  }

  /** One request; no answer at all is a CliFailure (exit 3). */
  async fetch(path: string, init: RequestInit & { duplex?: 'half' } = {}): Promise<Response> {
    try {
      return await fetch(this.url(path), {
        ...init,
        headers: { ...this.auth, ...(init.headers as Record<string, string> | undefined) },
        signal: this.signal,
      });
    } catch (err) {
      if (this.signal?.aborted) throw this.signal.reason;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = NO_ANSWER[cause?.code ?? ''] ?? cause?.message ?? (err as Error).message;
      throw new CliFailure(
        `the service at ${this.where} did not answer (${why}); check --server and that the service is running`,
        EXIT_UNREACHABLE,
      );
    }
  }

  /** Throws the failure an answer that is not `expected` stands for; `doing` says what was asked ("submit the file"). */
  async expect(res: Response, expected: number, doing: string): Promise<void> {
    if (res.status === expected) return;
    const copy = res.clone();
    const message = await envelopeMessage(res);
    const code = envelopeCode(await copy.text().catch(() => ''));
    if (res.status === 401 || res.status === 403) {
      const hint = this.auth.Authorization === undefined ? ' (give a token: --token or SOR_TOKEN)' : '';
      throw new CliFailure(
        `the service refused to ${doing}${code === '' ? '' : ` (${code})`}: ${message}${hint}`,
        EXIT_REFUSED,
      );
    }
    if (res.status === 502 || res.status === 503 || res.status === 504 || res.status === 429) {
      throw new CliFailure(`the service could not ${doing} for now: ${message}; try again later`, EXIT_UNREACHABLE);
    }
    if (res.status >= 400 && res.status < 500) {
      throw new CliFailure(
        `the service refused to ${doing}${code === '' ? '' : ` (${code})`}: ${message}`,
        EXIT_REFUSED,
      );
    }
    throw new CliFailure(`the service failed to ${doing}: ${message}`, EXIT_JOB_FAILED);
  }

  /** GET a job; an unknown or expired id is one sentence naming it (exit 4). */
  async job(id: string): Promise<JobView> {
    const res = await this.fetch(`/v1/jobs/${encodeURIComponent(id)}`);
    if (res.status === 404 || res.status === 410) {
      const message = await envelopeMessage(res);
      throw new CliFailure(`there is no job ${id} on ${this.where}: ${message}`, EXIT_REFUSED);
    }
    await this.expect(res, 200, `show job ${id}`);
    return (await res.json()) as JobView;
  }

  /** Follows a link (or path) of the service to `outPath` ("-": `stdout`), through a temporary file renamed at the end. */
  async download(path: string, outPath: string, stdout: Writable, doing: string): Promise<void> {
    // The stored result comes gzipped as it is; fetch decompresses it.
    const res = await this.fetch(path, { headers: { 'Accept-Encoding': 'gzip' } });
    await this.expect(res, 200, doing);
    if (res.body === null) throw new CliFailure(`the service sent no body when asked to ${doing}`, EXIT_JOB_FAILED);
    const body = Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>);
    if (outPath === '-') {
      await pipeline(body, stdout, { end: false });
      return;
    }
    const tmp = `${outPath}.partial-${process.pid}`;
    try {
      await pipeline(body, createWriteStream(tmp));
      renameSync(tmp, outPath);
    } catch (err) {
      try {
        unlinkSync(tmp);
      } catch {
        // nothing was written
      }
      throw fileFailure(err, 'write', outPath);
    }
  }
}

/** Why a request got no answer, by the code of fetch's cause. */
const NO_ANSWER: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'the host name could not be looked up',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection was closed',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate could not be verified',
};

/** See ServiceClient.url. */
export function serviceUrl(base: URL, path: string): URL {
  const prefix = base.pathname.replace(/\/+$/, '');
  const url = new URL(base.href);
  const [pathname, query] = path.split('?', 2) as [string, string | undefined];
  url.pathname = `${prefix}/${pathname.replace(/^\/+/, '')}`;
  url.search = query === undefined ? '' : `?${query}`;
  return url;
}
