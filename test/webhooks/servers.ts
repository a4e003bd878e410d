/**
 * The real service for the webhook tests: `src/server.ts` in its own process (spawnNode), with its own folders,
 * and what the tests ask of it over HTTP (submit a job with a callback, read the job's `callback`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnNode, type Child } from '../support/processes.ts';
import { freePort } from '../support/free-port.ts';
import { makeCsv } from '../queue/csv-gen.ts';

/** A webhook key of the tests (the receivers get it, or on purpose another). */
export const WEBHOOK_SECRET = 'test-webhook-secret-0123456789abcdef0123456789';

export interface Api {
  api: Child;
  base: string;
  port: number;
}

const dirs: string[] = [];

/** Folders of one service (SPOOL_DIR, JOBS_DIR), removed by removeFolders. */
export async function folders(): Promise<{ SPOOL_DIR: string; JOBS_DIR: string }> {
  const root = await mkdtemp(join(tmpdir(), 'sor-webhooks-api-'));
  dirs.push(root);
  return { SPOOL_DIR: join(root, 'spool'), JOBS_DIR: join(root, 'jobs') };
}

export async function removeFolders(): Promise<void> {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
}

/** Starts the service and waits until it listens. */
export async function startApi(env: Record<string, string>, port?: number): Promise<Api> {
  const listenOn = port ?? (await freePort());
  const api = spawnNode('src/server.ts', {
    PORT: String(listenOn),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    BULK_THREADS: '1',
    WEBHOOK_SECRET,
    ...env,
  });
  await api.waitFor(/"msg":"listening"/, 60_000);
  return { api, base: `http://127.0.0.1:${listenOn}`, port: listenOn };
}

/** A small valid job file (computed inline: no queue worker is needed). */
export const SMALL_CSV = makeCsv(3, 7);

export interface Submitted {
  status: number;
  body: { id?: string; code?: string; message?: string; field_errors?: { field: string; message: string }[] };
}

/** POST /v1/jobs with the callback as a query parameter (or none). */
export async function submit(base: string, callbackUrl?: string, csv = SMALL_CSV): Promise<Submitted> {
  const query = callbackUrl === undefined ? '' : `?callback_url=${encodeURIComponent(callbackUrl)}`;
  const res = await fetch(`${base}/v1/jobs${query}`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/csv' },
    body: csv,
  });
  return { status: res.status, body: (await res.json()) as Submitted['body'] };
}

/** POST /v1/jobs as multipart, the callback as a form field after the file. */
export async function submitForm(base: string, callbackUrl: string, csv = SMALL_CSV): Promise<Submitted> {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'students.csv');
  form.append('callback_url', callbackUrl);
  const res = await fetch(`${base}/v1/jobs`, { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as Submitted['body'] };
}

export interface CallbackState {
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  next_attempt_at: string | null;
  attempts: { at: string; event: string; status: number | null; error: string | null }[];
}

export async function job(base: string, id: string): Promise<{ status: string; callback: CallbackState | null }> {
  const res = await fetch(`${base}/v1/jobs/${id}`);
  if (res.status !== 200) throw new Error(`GET /v1/jobs/${id}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { status: string; callback: CallbackState | null };
}

/** Polls until `what` gives a value (not undefined). */
export async function until<T>(
  what: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  label = 'a condition',
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The job's callback once `ready` says so. */
export function callbackWhen(
  base: string,
  id: string,
  ready: (c: CallbackState) => boolean,
  timeoutMs = 30_000,
): Promise<CallbackState> {
  return until(
    async () => {
      const { callback } = await job(base, id);
      return callback && ready(callback) ? callback : undefined;
    },
    timeoutMs,
    `the callback of job ${id}`,
  );
}
