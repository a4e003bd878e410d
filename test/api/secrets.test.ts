/**
 * No secret in any log line, probe or error: the real API (src/server.ts) and a real worker
 * (workers/queue.worker.ts) as child processes, on a redis-server of this test that requires a password full of
 * `@ # : /` and spaces. Everything both processes print (debug level) and every answer of /readyz, /metrics,
 * the dashboard and error responses is searched for the Redis password (whole, percent-encoded and each piece),
 * the admin token and the signing key, while Redis works, with a wrong password, with a malformed URL and after
 * Redis goes away.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { examplesCsv } from '../bulk/examples.ts';
import { type Child, killAll, spawnNode, startWorker } from '../support/processes.ts';
import { type OwnedRedis, freePort, startRedisBinary } from '../support/redis.ts';

const PASSWORD = 'Sw0rd@Fish#Tr0ut:Bass/Pike Carp';
const ADMIN_TOKEN = 'AdminT0ken-9f2c71e4b8d35a06';
const SIGNING_KEY = 'SigningKey-4d8e1f0a7b3c92e5d6f1a0b9c8e7d6f5';

/** Every string that must never be printed: the secrets whole, percent-encoded, and each piece of the password. */
const FORBIDDEN = [
  PASSWORD,
  encodeURIComponent(PASSWORD),
  ...PASSWORD.split(/[^A-Za-z0-9]+/).filter((p) => p.length >= 4),
  ADMIN_TOKEN,
  SIGNING_KEY,
];

function expectNoSecret(text: string, where: string): void {
  for (const s of FORBIDDEN) expect(text.includes(s), `"${s}" found in ${where}:\n${text.slice(0, 2000)}`).toBe(false);
}

let redis: OwnedRedis;

beforeAll(async () => {
  const owned = await startRedisBinary(undefined, { password: PASSWORD });
  if (!owned) throw new Error('this test needs a redis-server binary (apt-get install redis-server)');
  redis = owned;
});

afterEach(killAll);

afterAll(async () => {
  await redis?.stop();
});

function urlWith(password: string, port = redis.port): string {
  return `redis://default:${encodeURIComponent(password)}@127.0.0.1:${port}`;
}

async function startApi(env: Record<string, string>): Promise<{ api: Child; base: string }> {
  const port = await freePort();
  const api = spawnNode('src/server.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'debug',
    QUEUE_SIGNING_KEY: SIGNING_KEY,
    ADMIN_TOKEN,
    BULK_SYNC_MAX_ROWS: '0',
    BULK_THREADS: '1',
    ...env,
  });
  await api.waitFor(/"msg":"listening"/, 30_000);
  return { api, base: `http://127.0.0.1:${port}` };
}

async function text(res: Promise<Response>, where: string): Promise<string> {
  const r = await res;
  const body = `${r.status} ${JSON.stringify([...r.headers])} ${await r.text()}`;
  expectNoSecret(body, where);
  return body;
}

describe('secrets stay out of logs, probes and errors', () => {
  it('with Redis up, then gone: API and worker output, /readyz, /metrics, the dashboard, errors', async () => {
    const prefix = `sortest-secrets-${process.pid}`;
    const env = { REDIS_URL: urlWith(PASSWORD), REDIS_PREFIX: prefix };
    const worker = await startWorker({ ...env, LOG_LEVEL: 'debug', QUEUE_SIGNING_KEY: SIGNING_KEY });
    const { api, base } = await startApi(env);
    expect(api.output()).toMatch(/admin: queue dashboard on, behind ADMIN_TOKEN, read-only/);

    const ready = await text(fetch(`${base}/readyz`), '/readyz');
    expect(ready).toMatch(/^200 /);
    expect(ready).toContain('"name":"redis","ok":true,"detail":"ready"');
    // Names and states only: no address, port or user.
    expect(ready).not.toContain('127.0.0.1');
    expect(ready).not.toContain(String(redis.port));
    expect(ready).not.toContain('default');

    const bulk = await text(
      fetch(`${base}/v1/calculate/bulk`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv' },
        body: examplesCsv(),
      }),
      'a bulk response',
    );
    expect(bulk).toMatch(/^200 /);
    await text(
      fetch(`${base}/v1/calculate/bulk`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: 'x,y\n1' }),
      'a bulk error',
    );
    await text(fetch(`${base}/v1/calculate`, { method: 'POST', body: '{' }), 'a JSON error');
    expect(await text(fetch(`${base}/admin/queues`), 'the dashboard without a token')).toMatch(/^401 /);
    await text(
      fetch(`${base}/admin/queues`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x` } }),
      'the dashboard with a wrong token',
    );
    const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    expect(await text(fetch(`${base}/admin/queues/api/queues`, { headers: auth }), 'the dashboard API')).toMatch(
      /^200 /,
    );
    await text(fetch(`${base}/admin/queues/api/redis/stats`, { headers: auth }), "the dashboard's Redis stats");
    expect(
      await text(fetch(`${base}/admin/queues/api/queues/pause`, { method: 'PUT', headers: auth }), 'a refused PUT'),
    ).toMatch(/^405 /);
    const metrics = await text(fetch(`${base}/metrics`), '/metrics');
    expect(metrics).toMatch(/^sor_bulk_rows_processed_total [1-9]/m);

    // Redis goes away: connection errors, fallbacks, a failing probe.
    await redis.stop();
    const down = await text(fetch(`${base}/readyz`), '/readyz with Redis down');
    expect(down).toMatch(/^503 /);
    expect(down).toContain('"name":"redis","ok":false,"detail":"unreachable"');
    expect(
      await text(
        fetch(`${base}/v1/calculate/bulk`, {
          method: 'POST',
          headers: { 'Content-Type': 'text/csv' },
          body: examplesCsv(),
        }),
        'a bulk response with Redis down',
      ),
    ).toMatch(/^200 /);
    await text(fetch(`${base}/metrics`), '/metrics with Redis down');
    await new Promise((r) => setTimeout(r, 1500));
    api.proc.kill('SIGTERM');
    // A worker drains before it exits, which waits for Redis; its second signal exits at once (documented).
    worker.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    worker.proc.kill('SIGTERM');
    await Promise.all([api.exited, worker.exited]);

    expect(api.output()).toMatch(/"msg":"queue: connected to Redis"/);
    expect(api.output()).toMatch(/lost the Redis connection/);
    expect(api.output()).toContain('redis://***@127.0.0.1');
    expectNoSecret(api.output(), "the API's output");
    expectNoSecret(worker.output(), "the worker's output");

    // Back for the next test, same port and password.
    const again = await startRedisBinary(redis.port, { password: PASSWORD });
    if (!again) throw new Error('redis-server did not come back');
    redis = again;
  });

  it('with a wrong password: the connection errors name no password, /readyz says unreachable', async () => {
    const wrong = `${PASSWORD} Wrongful`;
    const { api, base } = await startApi({
      REDIS_URL: urlWith(wrong),
      REDIS_PREFIX: `sortest-wrongpass-${process.pid}`,
    });
    const ready = await text(fetch(`${base}/readyz`), '/readyz with a wrong password');
    expect(ready).toMatch(/^503 /);
    expect(ready).toContain('"name":"redis","ok":false,"detail":"unreachable"');
    await text(
      fetch(`${base}/v1/calculate/bulk`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv' },
        body: examplesCsv(),
      }),
      'a bulk response with a wrong password',
    );
    api.proc.kill('SIGTERM');
    await api.exited;
    expect(api.output()).toMatch(/WRONGPASS|NOAUTH|invalid username-password/i);
    expectNoSecret(api.output(), "the API's output");
    expect(api.output()).not.toContain('Wrongful');
  });

  it('a malformed REDIS_URL (raw password) stops the API and the worker with one line that omits it', async () => {
    const raw = `redis://default:${PASSWORD}@127.0.0.1:${redis.port}`;
    const api = spawnNode('src/server.ts', { REDIS_URL: raw, QUEUE_SIGNING_KEY: SIGNING_KEY, ADMIN_TOKEN });
    const worker = spawnNode('workers/queue.worker.ts', { REDIS_URL: raw, QUEUE_SIGNING_KEY: SIGNING_KEY });
    expect(await api.exited).toBe(1);
    expect(await worker.exited).toBe(2);
    for (const [name, child] of [
      ['API', api],
      ['worker', worker],
    ] as const) {
      const out = child.output().trim();
      expect(out, name).toMatch(/^Invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
      expect(out.split('\n'), name).toHaveLength(1);
      expect(out, name).toContain(`redis://***@127.0.0.1:${redis.port}`);
      expectNoSecret(out, `the ${name}'s output`);
    }
  });
});
