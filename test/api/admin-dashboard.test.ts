/**
 * The queue dashboard (/admin/queues, bull-board) through the real server process (src/server.ts) on a real Redis
 * under a per-run prefix: off without ADMIN_TOKEN (404, and the log says so), 401 without or with a wrong token,
 * read-only by default (update-data and pause refused, the job and the queue unchanged), and on its own port
 * only when ADMIN_PORT is set.
 */
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChunkSigner } from '../../src/queue/chunk-signing.ts';
import type { ChunkJobData } from '../../src/queue/chunk-signing.ts';
import { QUEUE_NAME } from '../../src/queue/settings.ts';
import { removePrefix } from '../queue/helpers.ts';
import { TEST_SIGNING_KEY, killAll, spawnNode } from '../support/processes.ts';
import type { Child } from '../support/processes.ts';
import { findRedis, freePort, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';

const TOKEN = 'dashboard-token-5b1e0c9a7d3f4e2a';
let redis: TestRedis;
const prefix = uniquePrefix('admin');
let queue: Queue<ChunkJobData>;
const JOB_ID = 'rdeadbeefdeadbeefdeadbeef.c0';
const DATA = new ChunkSigner(TEST_SIGNING_KEY).signPayload(JOB_ID, '{"v":1,"f":"csv","h":["student_id"],"s":[]}');

beforeAll(async () => {
  redis = await findRedis();
  queue = new Queue<ChunkJobData>(QUEUE_NAME, { connection: { url: redis.url }, prefix });
  // A waiting chunk job (no worker listens on this prefix) for the dashboard to try to change.
  await queue.add('chunk', DATA, { jobId: JOB_ID });
});

afterEach(killAll);

afterAll(async () => {
  await queue.close();
  await removePrefix(redis.url, prefix);
  await redis.stop();
});

async function startApi(env: Record<string, string>): Promise<{ api: Child; base: string }> {
  const port = await freePort();
  const api = spawnNode('src/server.ts', {
    REDIS_URL: redis.url,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    BULK_THREADS: '1',
    ...env,
  });
  await api.waitFor(/"msg":"listening"/, 30_000);
  return { api, base: `http://127.0.0.1:${port}` };
}

const jobApi = `/admin/queues/api/queues/${QUEUE_NAME}/${encodeURIComponent(JOB_ID)}/update-data`;

async function tryChanges(base: string, headers: Record<string, string>): Promise<number[]> {
  const update = await fetch(`${base}${jobApi}`, {
    method: 'PATCH',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ jobData: { payload: 'forged', mac: DATA.mac } }),
  });
  const pause = await fetch(`${base}/admin/queues/api/queues/${QUEUE_NAME}/pause`, { method: 'PUT', headers });
  const pauseAll = await fetch(`${base}/admin/queues/api/queues/pause`, { method: 'PUT', headers });
  return [update.status, pause.status, pauseAll.status];
}

async function expectUnchanged(): Promise<void> {
  expect((await queue.getJob(JOB_ID))?.data).toEqual(DATA);
  expect(await queue.isPaused()).toBe(false);
}

describe('/admin/queues through the real server', () => {
  it('is off without ADMIN_TOKEN: every dashboard path is 404 and the start-up log says so', async () => {
    const { api, base } = await startApi({});
    expect(api.output()).toMatch(/"msg":"admin: queue dashboard off \(set ADMIN_TOKEN to turn it on\)"/);
    for (const path of ['/admin/queues', '/admin/queues/api/queues', `/admin/queues/queue/${QUEUE_NAME}`]) {
      expect((await fetch(`${base}${path}`)).status, path).toBe(404);
    }
    expect(await tryChanges(base, {})).toEqual([404, 404, 404]);
    await expectUnchanged();
  });

  it('with ADMIN_TOKEN: 401 without or with a wrong token, and read-only by default', async () => {
    const { api, base } = await startApi({ ADMIN_TOKEN: TOKEN });
    expect(api.output()).toMatch(/"readOnly":true,"msg":"admin: queue dashboard on, behind ADMIN_TOKEN, read-only/);
    const none = await fetch(`${base}/admin/queues`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { code: string }).code).toBe('unauthenticated');
    for (const header of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(1)}`,
      `Basic ${Buffer.from(`admin:${TOKEN.toUpperCase()}`).toString('base64')}`,
    ]) {
      const res = await fetch(`${base}/admin/queues/api/queues`, { headers: { Authorization: header } });
      expect(res.status, header).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('invalid_token');
    }
    // Without the token, a change is a 401 like everything else.
    expect(await tryChanges(base, {})).toEqual([401, 401, 401]);

    const auth = { Authorization: `Bearer ${TOKEN}` };
    const list = await fetch(`${base}/admin/queues/api/queues`, { headers: auth });
    expect(list.status).toBe(200);
    expect(JSON.stringify(await list.json())).toContain(QUEUE_NAME);
    const basic = `Basic ${Buffer.from(`anyone:${TOKEN}`).toString('base64')}`;
    const page = await fetch(`${base}/admin/queues`, { headers: { Authorization: basic } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // The page and the API it calls: no framing, no sniffing, no referrer.
    for (const res of [page, list]) {
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    // Routing is case-sensitive (src/api/routing.ts): another spelling of the path is not the dashboard.
    for (const path of ['/ADMIN/queues', '/admin/Queues', '/ADMIN/QUEUES/api/queues']) {
      expect((await fetch(`${base}${path}`, { headers: auth })).status, path).toBe(404);
    }
    expect(await tryChanges(base, auth)).toEqual([405, 405, 405]);
    await expectUnchanged();
    expect(api.output()).not.toContain(TOKEN);
    expect(api.output()).not.toMatch(/ADMIN_TOKEN is shorter than/);
  });

  it('with ADMIN_PORT: the dashboard is only on that port, the API port answers 404', async () => {
    const adminPort = await freePort();
    // A short token works, with a warning that says so (and not the token).
    const short = 'short-Tok3n';
    const { api, base } = await startApi({ ADMIN_TOKEN: short, ADMIN_PORT: String(adminPort) });
    const admin = `http://127.0.0.1:${adminPort}`;
    const auth = { Authorization: `Bearer ${short}` };
    expect(api.output()).toMatch(/"length":11,"msg":"admin: ADMIN_TOKEN is shorter than 24 characters/);
    expect(api.output()).not.toContain(short);
    expect(api.output()).toContain(`"port":${adminPort}`);
    expect((await fetch(`${base}/admin/queues`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${admin}/admin/queues`)).status).toBe(401);
    expect((await fetch(`${admin}/admin/queues`, { headers: auth })).status).toBe(200);
    // Only the dashboard lives there.
    expect((await fetch(`${admin}/healthz`)).status).toBe(404);
    expect((await fetch(`${admin}/metrics`)).status).toBe(404);
    expect(await tryChanges(admin, auth)).toEqual([405, 405, 405]);
    await expectUnchanged();
  });
});
