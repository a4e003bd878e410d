/**
 * Two API processes on one Redis (same REDIS_URL and REDIS_PREFIX), AUTH_MODE=required: a token created by the CLI
 * in Redis works on both, their rate-limit count is one (a burst spread over both is refused at the limit), jobs
 * are visible to their owner on either process and to no other token, and a revocation applies to both at once.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHash } from '../../src/auth/token.ts';
import { TEST_SIGNING_KEY, killAll } from '../support/processes.ts';
import { type TestRedis, deleteKeys, findRedis, uniquePrefix } from '../support/redis.ts';
import { type Api, FSA_1, bearer, createToken, sor, startApi, studentsCsv, waitForJob } from './helpers.ts';

let redis: TestRedis;
let env: Record<string, string>;
let one: Api;
let two: Api;

beforeAll(async () => {
  redis = await findRedis();
  env = {
    AUTH_MODE: 'required',
    REDIS_URL: redis.url,
    REDIS_PREFIX: uniquePrefix('auth'),
    QUEUE_SIGNING_KEY: TEST_SIGNING_KEY,
  };
  [one, two] = await Promise.all([startApi(env), startApi(env)]);
}, 90_000);

afterAll(async () => {
  await killAll();
  await deleteKeys(redis.url, env.REDIS_PREFIX as string);
  await redis.stop();
});

const calculate = (api: Api, token: string) =>
  fetch(`${api.base}/v1/calculate`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...bearer(token) },
    body: JSON.stringify(FSA_1),
  });

describe('two API processes on one Redis', () => {
  it('share one rate-limit count per token', async () => {
    const t = await createToken(env, 'shared', ['--rate', '4/min']);
    const seen: [number, string | null][] = [];
    for (const api of [one, two, one, two]) {
      const res = await calculate(api, t.token);
      seen.push([res.status, res.headers.get('x-ratelimit-remaining')]);
    }
    expect(seen).toEqual([
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
    ]);
    for (const api of [one, two]) {
      const res = await calculate(api, t.token);
      expect(res.status).toBe(429);
      expect(((await res.json()) as { code: string }).code).toBe('quota_exceeded');
    }
  });

  it('keep jobs to their owner on either process', async () => {
    const a = await createToken(env, 'a');
    const b = await createToken(env, 'b');
    const submit = await fetch(`${one.base}/v1/jobs`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv', ...bearer(a.token) },
      body: studentsCsv(3),
    });
    expect(submit.status).toBe(202);
    const { id } = (await submit.json()) as { id: string };
    expect((await waitForJob(two.base, id, a.token)).status).toBe('completed');
    expect((await fetch(`${two.base}/v1/jobs/${id}/result`, { headers: bearer(a.token) })).status).toBe(200);
    for (const api of [one, two]) {
      expect((await fetch(`${api.base}/v1/jobs/${id}`, { headers: bearer(b.token) })).status).toBe(404);
      expect((await fetch(`${api.base}/v1/jobs/${id}/result`, { headers: bearer(b.token) })).status).toBe(404);
    }
    const listA = (await (await fetch(`${two.base}/v1/jobs`, { headers: bearer(a.token) })).json()) as {
      jobs: { id: string }[];
    };
    expect(listA.jobs.map((j) => j.id)).toEqual([id]);
    const listB = (await (await fetch(`${one.base}/v1/jobs`, { headers: bearer(b.token) })).json()) as {
      jobs: unknown[];
    };
    expect(listB.jobs).toEqual([]);
    // Cancelled on the other process: the result is gone everywhere.
    expect((await fetch(`${two.base}/v1/jobs/${id}`, { method: 'DELETE', headers: bearer(a.token) })).status).toBe(204);
    expect((await fetch(`${one.base}/v1/jobs/${id}/result`, { headers: bearer(a.token) })).status).toBe(409);
  });

  it('apply a revocation on both processes at once, and keep tokens out of Redis and the logs', async () => {
    const t = await createToken(env, 'leaver');
    expect((await calculate(two, t.token)).status).toBe(200);
    expect((await sor(['token', 'revoke', t.id], env)).code).toBe(0);
    for (const api of [one, two]) {
      const res = await calculate(api, t.token);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('revoked_token');
    }
    const list = await sor(['token', 'list'], env);
    expect(list.stdout).toContain(`${t.id}\tleaver`);
    expect(list.stdout).not.toContain(t.token);
    expect(list.stdout).not.toContain(tokenHash(t.token));
    for (const api of [one, two]) expect(api.child.output()).not.toContain(t.token);
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys(`${env.REDIS_PREFIX}:auth:*`);
      expect(keys.length).toBeGreaterThan(0);
      const stored = JSON.stringify(await Promise.all(keys.map((k) => client.hgetall(k))));
      expect(stored).toContain(tokenHash(t.token));
      expect(stored).not.toContain(t.token);
    } finally {
      client.disconnect();
    }
  });
});
