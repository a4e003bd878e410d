/**
 * The request log names no key and logs the real cause of a failure:
 *  - a job's requests are logged by route template (`/v1/jobs/:id/result`) with a short tag of the id, the same
 *    tag in every line of that id and another for another id; the id itself is in no line, nor is a student id,
 *    a token or a field of the file;
 *  - a request no route answered (a 404, the guard's 401) has any key-length segment of its path replaced by
 *    the same tag;
 *  - a 5xx line carries the AppError's code and message and its cause, through a logger made as the service's
 *    (`err` serializer serializeError), never `"[object Object]"`.
 * The whole service runs in this process (createRuntime + createRequestListener, as src/server.ts serves it).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from 'express';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppExtras } from '../../src/api/app.ts';
import type { AppContext } from '../../src/api/context.ts';
import { createRequestListener } from '../../src/api/front-door.ts';
import { KEY_SEGMENT_LENGTH } from '../../src/api/http-log.ts';
import { keyTag } from '../../src/log-tag.ts';
import { loadConfig } from '../../src/config.ts';
import { appError } from '../../src/errors.ts';
import { newJobId } from '../../src/jobs/job-id.ts';
import { serializeError } from '../../src/redact.ts';
import { createRuntime } from '../../src/runtime.ts';
import { createToken, tokenServiceEnv } from '../auth/helpers.ts';

interface Service {
  base: string;
  logs: string[];
  close(): Promise<void>;
}

const services: Service[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
});

/** The service as src/server.ts builds it, its logger made as the service's (serializers: err). */
async function startService(env: Record<string, string>, routers: Router[] = []): Promise<Service> {
  const logs: string[] = [];
  const logger = pino(
    { level: 'info', serializers: { err: serializeError } },
    { write: (line: string) => void logs.push(line) },
  );
  const config = loadConfig(env);
  const runtime = await createRuntime(config, logger);
  const ctx: AppContext = { config, logger, runners: runtime.runners, readiness: runtime.readiness };
  const extra: AppExtras = {
    routers: [...runtime.routers, ...routers],
    openApiPaths: runtime.openApiPaths,
    guards: runtime.guards,
  };
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(createRequestListener(ctx, extra)).listen(0, '127.0.0.1', () => resolve(s));
  });
  const service: Service = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logs,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
  services.push(service);
  return service;
}

const freshEnv = (extra: Record<string, string>) => tokenServiceEnv('log-keys', 'info', extra);

interface RequestLine {
  req?: { id: string; method: string; path: string; params?: Record<string, string> };
  res?: { statusCode: number };
  err?: Record<string, unknown>;
  msg: string;
}

const requestLines = (logs: string[]) =>
  logs.map((l) => JSON.parse(l) as RequestLine).filter((l) => l.req !== undefined && l.res !== undefined);

const STUDENT = 'STU-LOGKEY-4471';
const CSV =
  'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,academic_year_terms,subsidized_amount,total_limit\n' +
  `${STUDENT},Fall,12,6,dependent,first_year,2,3500,5500\n${STUDENT},Spring,12,9,,,,,\n`;

async function submitJob(base: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${base}/v1/jobs`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/csv', ...headers },
    body: CSV,
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function waitForJob(base: string, id: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const body = (await (await fetch(`${base}/v1/jobs/${id}`)).json()) as { status: string };
    if (body.status === 'completed') return;
    if (body.status === 'failed' || Date.now() > deadline) throw new Error(`job ${id}: ${body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Lets the 'finish' listeners of the last responses write their lines. */
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('job ids in the request log (AUTH_MODE=off: the id is the only key to the results)', () => {
  it('are logged as the route template and a tag, the same for every line of the same id', async () => {
    const service = await startService(freshEnv({ AUTH_MODE: 'off' }));
    const id = await submitJob(service.base);
    await waitForJob(service.base, id);
    const result = await fetch(`${service.base}/v1/jobs/${id}/result`);
    expect(result.status).toBe(200);
    expect(await result.text()).toContain(STUDENT);
    const other = newJobId();
    expect([404, 410]).toContain((await fetch(`${service.base}/v1/jobs/${other}`)).status);
    expect((await fetch(`${service.base}/v1/jobs/${id}/resultx`)).status).toBe(404);
    expect((await fetch(`${service.base}/v1/jobs/${id}/result`, { method: 'PUT' })).status).toBe(405);
    await settle();

    // The request lines (src/jobs logs its own lines about the job).
    const all = service.logs.filter((l) => l.includes('"req":')).join('');
    expect(all).not.toContain(id);
    expect(all).not.toContain(id.slice(12, 44)); // the id's 128 random bits
    expect(all).not.toContain(other);
    expect(all).not.toContain(STUDENT);
    expect(all).not.toMatch(/subsidized_amount|total_limit|dependency_status/);
    // Nor any other line of the service: src/jobs logs the job's own lines (queued, running, completed) by tag.
    const everything = service.logs.join('');
    expect(everything).not.toContain(id);
    expect(everything).not.toContain(id.slice(12, 44));
    expect(service.logs.some((l) => l.includes('"msg":"async job queued"') && l.includes(keyTag(id)))).toBe(true);

    const lines = requestLines(service.logs);
    const tag = keyTag(id);
    expect(tag).toMatch(/^#[0-9a-f]{8}$/);
    const byPath = (method: string, path: string) =>
      lines.filter((l) => l.req?.method === method && l.req.path === path);
    expect(byPath('POST', '/v1/jobs')).toHaveLength(1);
    const status = byPath('GET', '/v1/jobs/:id');
    expect(status.length).toBeGreaterThanOrEqual(2);
    expect(status.filter((l) => l.req?.params?.id === tag).length).toBeGreaterThanOrEqual(1);
    const otherLines = status.filter((l) => l.req?.params?.id !== tag);
    expect(otherLines).toHaveLength(1);
    expect(otherLines[0]?.req?.params?.id).toBe(keyTag(other));
    expect(keyTag(other)).not.toBe(tag);
    const results = byPath('GET', '/v1/jobs/:id/result');
    expect(results).toHaveLength(1);
    expect(results[0]?.req?.params).toEqual({ id: tag });
    expect(results[0]?.res?.statusCode).toBe(200);
    expect(byPath('PUT', '/v1/jobs/:id/result')[0]?.req?.params).toEqual({ id: tag });
    // No route answered: the path as received, its key-length segment replaced by the same tag.
    expect(byPath('GET', `/v1/jobs/${tag}/resultx`)).toHaveLength(1);
  });

  it('a tag is 8 hex digits of a keyed hash: not the id, not a plain SHA-256 of it, stable within the process', () => {
    const id = newJobId();
    expect(keyTag(id)).toBe(keyTag(id));
    expect(keyTag(id)).not.toContain(id.slice(0, 8));
    expect(id.length).toBeGreaterThanOrEqual(KEY_SEGMENT_LENGTH);
  });
});

describe('AUTH_MODE=required', () => {
  it("the guard's 401 on a job's result logs the tag, not the id, and never the token", async () => {
    const env = freshEnv({ AUTH_MODE: 'required' });
    const { token } = await createToken(env, 'registrar');
    const service = await startService(env);
    const auth = { Authorization: `Bearer ${token}` };
    const id = await submitJob(service.base, auth);
    expect((await fetch(`${service.base}/v1/jobs/${id}/result`)).status).toBe(401);
    const owned = await fetch(`${service.base}/v1/jobs/${id}`, { headers: auth });
    expect(owned.status).toBe(200);
    await owned.text();
    await settle();
    const all = service.logs.filter((l) => l.includes('"req":')).join('');
    expect(all).not.toContain(id);
    expect(service.logs.join('')).not.toContain(token);
    expect(all).not.toContain(token.slice('svc_test_'.length));
    const lines = requestLines(service.logs);
    const refused = lines.find((l) => l.res?.statusCode === 401);
    expect(refused?.req?.path).toBe(`/v1/jobs/${keyTag(id)}/result`);
    const status = lines.find((l) => l.req?.path === '/v1/jobs/:id' && l.res?.statusCode === 200);
    expect(status?.req?.params).toEqual({ id: keyTag(id) });
  });
});

describe('a failure in the log', () => {
  it('an AppError (job_store_full, 503) logs its code and message, a wrapped cause its message and stack', async () => {
    const failing = Router();
    failing.get('/test/store-full', () => {
      throw appError('JOB_STORE_FULL', { where: 'JOBS_MAX_DISK_BYTES on disk', neededMiB: 52, freeMiB: 3 });
    });
    failing.get('/test/disk', () => {
      const cause = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      throw appError('JOB_STORE_UNAVAILABLE', {}, { cause });
    });
    failing.get('/test/bug', () => {
      throw new TypeError('an internal detail that must reach the log');
    });
    const service = await startService(freshEnv({ AUTH_MODE: 'off' }), [failing]);
    for (const [path, status] of [
      ['/test/store-full', 503],
      ['/test/disk', 503],
      ['/test/bug', 500],
    ] as const) {
      const res = await fetch(`${service.base}${path}`);
      expect(res.status, path).toBe(status);
      await res.text();
    }
    await settle();
    expect(service.logs.join('')).not.toContain('[object Object]');
    const lines = requestLines(service.logs);
    const lineOf = (path: string) => lines.find((l) => l.req?.path === path);

    const full = lineOf('/test/store-full');
    expect(full?.msg).toBe('request failed');
    expect(full?.err).toMatchObject({ type: 'AppError', code: 'job_store_full', status: 503 });
    expect(full?.err?.message).toContain('52 MiB needed, 3 MiB free');

    const disk = lineOf('/test/disk');
    expect(disk?.err).toMatchObject({ type: 'AppError', code: 'internal_error', status: 503 });
    expect(disk?.err?.message).toContain('ENOSPC: no space left on device');
    expect(disk?.err?.stack).toContain('caused by: Error: ENOSPC');

    const bug = lineOf('/test/bug');
    expect(bug?.err).toMatchObject({ type: 'AppError', code: 'internal_error', status: 500 });
    expect(bug?.err?.message).toContain('an internal detail that must reach the log');
    expect(bug?.err?.stack).toContain('caused by: TypeError');
  });
});
