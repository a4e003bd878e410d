/**
 * The webhooks service end to end inside one process: a real receiver on loopback (allow-listed), the SQLite
 * outbox, a job store that says how each job ended. A job's end delivers one signed event; a receiver that fails
 * twice gets the third attempt with the same event; a job that ended while nobody queued its event is found by
 * the sweep; a job whose records are lost gets job.failed saying so; a delivery that never succeeds is given up
 * after the window; and callback_url is checked at submission.
 */
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appError, AppError } from '../../src/errors.ts';
import { metrics } from '../../src/metrics.ts';
import type { JobRecord } from '../../src/jobs/job-store.ts';
import { SqliteOutbox } from '../../src/webhooks/sqlite-outbox.ts';
import { Webhooks, type JobWithCallback } from '../../src/webhooks/webhooks.ts';
import type { WebhookSettings } from '../../src/webhooks/settings.ts';
import type { Resolver } from '../../src/webhooks/callback-url.ts';
import { jobId, snapshot } from './outbox-contract.ts';

const SECRET = 'test-webhook-secret-0123456789abcdef';

interface Delivery {
  body: string;
  signature: string;
}

let receiver: Server;
let origin: string;
/** Status the receiver answers, per call, by path; 200 when the list is used up. */
const plans = new Map<string, number[]>();
const received = new Map<string, Delivery[]>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      received.set(path, [...(received.get(path) ?? []), { body, signature: String(req.headers['sor-signature']) }]);
      res.writeHead(plans.get(path)?.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

const dirs: string[] = [];
const services: Webhooks[] = [];

afterEach(async () => {
  for (const s of services.splice(0)) {
    await s.close();
    await s.store.close();
  }
});

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The records the job store answers, or the error it throws, by job id. */
const jobs = new Map<string, JobRecord | Error>();

async function service(
  overrides: Partial<WebhookSettings> = {},
  resolve?: Resolver,
  shared?: { dir: string; jobs: Map<string, JobRecord | Error> },
): Promise<Webhooks> {
  const dir = shared?.dir ?? (await mkdtemp(join(tmpdir(), 'sor-webhooks-')));
  dirs.push(dir);
  const known = shared?.jobs ?? jobs;
  const settings: WebhookSettings = {
    secret: SECRET,
    deploymentUrl: undefined,
    allow: new Set([origin]),
    timeoutMs: 2000,
    retry: { baseMs: 50, maxMs: 200, windowMs: 60_000 },
    retentionMs: 3_600_000,
    ...overrides,
  };
  const s = new Webhooks({
    settings,
    store: new SqliteOutbox(join(dir, 'webhooks.sqlite'), { retentionMs: 3_600_000, windowMs: 60_000 }),
    jobs: {
      async get(id) {
        const found = known.get(id);
        if (found instanceof Error) throw found;
        return found;
      },
    },
    view: (r) => ({ id: r.id, object: 'job', status: r.status, error: r.error, callback: { stale: true } }),
    logger: pino({ level: 'silent' }),
    ...(resolve ? { resolve } : {}),
  });
  services.push(s);
  s.start();
  return s;
}

function ended(id: string, url: string, patch: Partial<JobRecord>): JobWithCallback {
  return { ...snapshot(id), status: 'completed', finished_at: new Date().toISOString(), callback_url: url, ...patch };
}

async function until<T>(what: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await what();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function verified(d: Delivery): Record<string, unknown> {
  const [t, v1] = d.signature.split(',').map((p) => p.split('=')[1]);
  const expected = createHmac('sha256', SECRET).update(`${t}.${d.body}`).digest('hex');
  expect(v1).toBe(expected);
  expect(Math.abs(Date.now() / 1000 - Number(t))).toBeLessThan(60);
  return JSON.parse(d.body) as Record<string, unknown>;
}

describe('Webhooks', () => {
  it('delivers one signed event when a job ends, shown on the job as delivered', async () => {
    const s = await service();
    const id = jobId();
    const url = `${origin}/done-${id}?token=abc`;
    const record = ended(id, url, {});
    await s.register({ ...record, status: 'queued' }, url);
    expect(await s.callbackView(record)).toEqual({
      url: `${origin}/done-${id}?…`,
      state: 'pending',
      next_attempt_at: null,
      attempts: [],
    });
    await s.jobEnded(record);
    const path = `/done-${id}?token=abc`;
    const [delivery] = await until(() => received.get(path));
    const event = verified(delivery!);
    expect(event).toMatchObject({ type: 'job.completed', data: { id, object: 'job', status: 'completed' } });
    expect(event.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(event.data).not.toHaveProperty('callback');
    const view = await until(async () => {
      const v = await s.callbackView(record);
      return v?.state === 'delivered' ? v : undefined;
    });
    expect(view.attempts).toEqual([{ at: expect.any(String), event: 'job.completed', status: 200, error: null }]);
    expect(view.next_attempt_at).toBeNull();
  });

  it('retries a receiver that fails twice: the third attempt delivers the same event (and counts them)', async () => {
    const counted = async () => {
      const values = (await metrics.webhookAttempts.get()).values;
      return Object.fromEntries(values.map((v) => [String(v.labels.outcome), v.value]));
    };
    const before = await counted();
    const s = await service();
    const id = jobId();
    const path = `/flaky-${id}`;
    plans.set(path, [500, 503]);
    const record = ended(id, `${origin}${path}`, {});
    await s.register(record, `${origin}${path}`);
    await s.jobEnded(record);
    const deliveries = await until(() => {
      const list = received.get(path);
      return list && list.length >= 3 ? list : undefined;
    });
    const events = deliveries.map(verified);
    expect(new Set(events.map((e) => e.id)).size).toBe(1);
    expect(new Set(deliveries.map((d) => d.body)).size).toBe(1);
    const view = await until(async () => {
      const v = await s.callbackView(record);
      return v?.state === 'delivered' ? v : undefined;
    });
    expect(view.attempts.map((a) => [a.status, a.error])).toEqual([
      [500, 'answered 500, not a 2xx'],
      [503, 'answered 503, not a 2xx'],
      [200, null],
    ]);
    const after = await counted();
    expect((after.failed ?? 0) - (before.failed ?? 0)).toBe(2);
    expect((after.delivered ?? 0) - (before.delivered ?? 0)).toBe(1);
  });

  it('finds a job that ended while nobody queued its event (the sweep), and says cancelled for a cancelled job', async () => {
    const id = jobId();
    const path = `/swept-${id}`;
    const first = await service();
    await first.register(snapshot(id), `${origin}${path}`);
    jobs.set(id, ended(id, `${origin}${path}`, { status: 'failed', error: { code: 'job_cancelled', message: 'x' } }));
    await first.sweep();
    const [delivery] = await until(() => received.get(path));
    expect(verified(delivery!)).toMatchObject({ type: 'job.cancelled', data: { id } });
  });

  it('sends job.failed with job_lost for a job whose records are gone', async () => {
    const id = jobId();
    const path = `/lost-${id}`;
    const s = await service();
    await s.register(snapshot(id), `${origin}${path}`);
    jobs.set(id, appError('JOB_LOST'));
    await s.sweep();
    const [delivery] = await until(() => received.get(path));
    expect(verified(delivery!)).toMatchObject({
      type: 'job.failed',
      data: { id, status: 'failed', error: { code: 'job_lost' } },
    });
  });

  it('believes a job lost only once the process that took it is gone (job stores in each process memory)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sor-webhooks-'));
    const id = jobId();
    const path = `/elsewhere-${id}`;
    // Process A took the job and runs it; process B's own job store has never heard of it.
    const a = await service({}, undefined, { dir, jobs: new Map([[id, snapshot(id)]]) });
    const b = await service({}, undefined, { dir, jobs: new Map([[id, appError('JOB_LOST')]]) });
    await a.register(snapshot(id), `${origin}${path}`);
    await b.sweep();
    await new Promise((r) => setTimeout(r, 300));
    expect(received.get(path)).toBeUndefined();
    // A stops (or dies and its heartbeat goes stale): B now sends the job's failure.
    await a.close();
    await b.sweep();
    const [delivery] = await until(() => received.get(path));
    expect(verified(delivery!)).toMatchObject({ type: 'job.failed', data: { id, error: { code: 'job_lost' } } });
  });

  it('gives a delivery up once the window has passed, and shows it failed', async () => {
    const s = await service({ retry: { baseMs: 50, maxMs: 100, windowMs: 400 } });
    const id = jobId();
    const path = `/down-${id}`;
    plans.set(path, Array(100).fill(500) as number[]);
    const record = ended(id, `${origin}${path}`, {});
    await s.register(record, `${origin}${path}`);
    await s.jobEnded(record);
    const view = await until(async () => {
      const v = await s.callbackView(record);
      return v?.state === 'failed' ? v : undefined;
    });
    expect(view.attempts.length).toBeGreaterThan(2);
    expect(view.next_attempt_at).toBeNull();
  });

  it('checks callback_url at submission: refused with a 400 naming the field, DNS trouble a 503; WEBHOOK_URL as given', async () => {
    const resolve: Resolver = async (host) => {
      if (host === 'slow.example.edu') throw Object.assign(new Error('x'), { code: 'EAI_AGAIN' });
      return [{ address: host === 'intranet.example.edu' ? '10.2.3.4' : '93.184.216.34', family: 4 }];
    };
    const s = await service({ deploymentUrl: 'https://etl.example.edu/sor' }, resolve);
    expect(s.deploymentUrl).toBe('https://etl.example.edu/sor');
    expect(await s.checkCallback('https://hooks.example.edu/a')).toBe('https://hooks.example.edu/a');
    const refused = await s.checkCallback('https://intranet.example.edu/a').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(400);
    expect((refused as AppError).fieldErrors?.[0]?.field).toBe('callback_url');
    expect((refused as AppError).message).toMatch(
      /^callback_url has a host name, intranet\.example\.edu, that resolves to a refused address: 10\.2\.3\.4 is a private/,
    );
    const later = await s.checkCallback('https://slow.example.edu/a').catch((e: unknown) => e);
    expect((later as AppError).status).toBe(503);
  });
});
