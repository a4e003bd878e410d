/**
 * No orphaned student files: the real server (src/server.ts) is SIGKILLed while an async
 * job it accepted is under way; the job's upload (`job-<pid>-<uuid>.csv` in SPOOL_DIR) is then still on disk,
 * since nothing ran to remove it. A restarted server sweeps it at start-up: afterwards no file of the job
 * remains. Both without Redis (jobs in memory) and with REDIS_URL (a per-run REDIS_PREFIX; no worker runs, so
 * the job's chunks wait in the queue and the job is surely unfinished when the process dies).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, spawnNode, type Child } from '../support/processes.ts';
import { findRedis, freePort, uniquePrefix, type TestRedis } from '../support/redis.ts';
import { makeCsv } from './csv-gen.ts';
import { removePrefix } from './helpers.ts';

const JOB_FILE = /^job-(\d+)-[0-9a-f-]{36}\.csv$/;
/** Large enough that the job cannot finish between the poll that sees it and the kill (about 3 MB). */
const csv = makeCsv(60_000, 21);

let redis: TestRedis;
const prefix = uniquePrefix('spool-crash');
const dirs: string[] = [];

beforeAll(async () => {
  redis = await findRedis();
});

afterAll(async () => {
  await killAll();
  await removePrefix(redis.url, prefix);
  await redis?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function startApi(env: Record<string, string>): Promise<{ api: Child; base: string }> {
  const port = await freePort();
  const api = spawnNode('src/server.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    BULK_THREADS: '1',
    ...env,
  });
  await api.waitFor(/"msg":"listening"/, 60_000);
  return { api, base: `http://127.0.0.1:${port}` };
}

async function jobFiles(spool: string): Promise<string[]> {
  return (await readdir(spool)).filter((n) => JOB_FILE.test(n));
}

async function crashMidJob(extra: Record<string, string>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'sor-spool-crash-'));
  dirs.push(root);
  const spool = join(root, 'spool');
  const env = { SPOOL_DIR: spool, JOBS_DIR: join(root, 'results'), BULK_CHUNK_STUDENTS: '200', ...extra };

  const { api, base } = await startApi(env);
  const submitted = await fetch(`${base}/v1/jobs`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/csv', 'Idempotency-Key': 'crash-1' },
    body: csv,
  });
  expect(submitted.status).toBe(202);
  const { id } = (await submitted.json()) as { id: string };
  const status = (await (await fetch(`${base}/v1/jobs/${id}`)).json()) as { status: string };
  expect(['queued', 'running']).toContain(status.status);

  // The job's upload is in the spool, named for its owner, the API process.
  const before = await jobFiles(spool);
  expect(before).toHaveLength(1);
  expect(JOB_FILE.exec(before[0]!)?.[1]).toBe(String(api.proc.pid));

  api.proc.kill('SIGKILL');
  expect(await api.exited).toBe('SIGKILL');
  expect(await jobFiles(spool)).toEqual(before); // the crash left it behind

  const restarted = await startApi(env);
  expect(restarted.api.output()).toMatch(/"removed":1,[^\n]*"msg":"removed orphaned upload spool files"/);
  expect(await jobFiles(spool)).toEqual([]);
  expect(await readdir(spool)).toEqual([]); // nothing else of the upload either
  restarted.api.proc.kill('SIGTERM');
  expect(await restarted.api.exited).toBe(0);
}

describe('a job file after a crash of the API', () => {
  it('without Redis: is swept when the server starts again', async () => {
    await crashMidJob({});
  }, 120_000);

  it('with Redis: is swept when the server starts again', async () => {
    await crashMidJob({ REDIS_URL: redis.url, REDIS_PREFIX: prefix });
  }, 120_000);
});
