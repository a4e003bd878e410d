/**
 * The job stores' side of fencing (src/jobs/fencing.ts), through the real stores (SQLite and files in JOBS_DIR, a
 * real Redis with a per-run prefix): a job starts on attempt 1, every claim and hand-back moves it on; a write of
 * an earlier attempt (progress, status, result segment, settle, clear) is refused with JobFencedError and changes
 * nothing, the current attempt's writes and the writes of no run (a DELETE) apply; the download reads the current
 * attempt's results only. Without Redis: a database of the first schema (no attempt column) is migrated, its jobs
 * are on attempt 1 with their results where they were, and the sweep deletes a stale attempt's result files.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { gzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobFencedError } from '../../src/jobs/fencing.ts';
import type { JobRecord, JobStore } from '../../src/jobs/job-store.ts';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { RedisJobStore } from '../../src/jobs/redis-job-store.ts';
import { deleteKeys, findRedis, uniquePrefix, type TestRedis } from '../support/redis.ts';
import { runningJob } from './job-records.ts';

const root = mkdtempSync(join(tmpdir(), 'sor-fencing-store-'));
const prefix = uniquePrefix('fencing-store');
let redis: TestRedis;
let client: Redis;

beforeAll(async () => {
  redis = await findRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await deleteKeys(redis.url, prefix);
  client?.disconnect();
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

function job(instance: string, attempt?: number): JobRecord {
  return runningJob(instance, Date.now() - 1, attempt === undefined ? {} : { attempt });
}

async function text(store: JobStore, id: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of store.readResult(id, 'result')) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

let n = 0;
const stores: Record<'local' | 'redis', () => JobStore> = {
  local: () => new LocalJobStore({ dir: join(root, `jobs-${++n}`), ttlSeconds: 3600, maxBytes: 1 << 26 }),
  redis: () => new RedisJobStore(client, `${prefix}:${++n}`, 3600, 1 << 26),
};

describe.each(['local', 'redis'] as const)('the %s store fences a run by its attempt', (kind) => {
  it('moves the attempt on at each hand-over and refuses the writes of an earlier one', async () => {
    const store = stores[kind]();
    try {
      const record = job('host-a:1:a', 1);
      await store.create(record, undefined, 1024);
      const { id } = record;
      await store.appendResult(id, gzipSync('stale\n'), 'result', 1);
      const claimed = await store.claim(id, 'host-a:1:a', 'host-b:1:b', Date.now() + 60_000);
      expect(claimed).toMatchObject({ attempt: 2, instance: 'host-b:1:b', status: 'queued' });
      expect(await store.get(id)).toMatchObject({ attempt: 2 });

      const fenced = new JobFencedError(id, 1);
      await expect(store.update(id, { students_done: 2 }, 1)).rejects.toThrow(fenced);
      await expect(store.appendResult(id, gzipSync('stale\n'), 'result', 1)).rejects.toThrow(fenced);
      await expect(store.settleResult(id, 1)).rejects.toThrow(fenced);
      await expect(store.clearResult(id, 1)).rejects.toThrow(fenced);

      await store.update(id, { status: 'running', students_done: 1 }, 2);
      await store.appendResult(id, gzipSync('fresh\n'), 'result', 2);
      await store.settleResult(id, 2);
      await expect(store.update(id, { status: 'completed' }, 1)).rejects.toThrow(fenced);
      await store.update(id, { status: 'completed', students_done: 2 }, 2);
      expect(await store.get(id)).toMatchObject({ status: 'completed', students_done: 2, attempt: 2 });
      expect(await text(store, id)).toBe('fresh\n'); // attempt 1's segment went with the claim

      // A DELETE is no run's write: it applies whatever the attempt.
      await store.update(id, { status: 'cancelled' });
      await store.clearResult(id);
      expect(await store.get(id)).toMatchObject({ status: 'cancelled', attempt: 2 });
    } finally {
      await store.close();
    }
  });

  it('hands back at shutdown as a next attempt too; a record without an attempt is on attempt 1', async () => {
    const store = stores[kind]();
    try {
      const record = job('host-a:1:a');
      await store.create(record);
      expect((await store.get(record.id))?.attempt ?? 1).toBe(1);
      await store.release(record.id, 'host-a:1:a');
      expect(await store.get(record.id)).toMatchObject({ attempt: 2, instance: '' });
      await expect(store.update(record.id, { students_done: 1 }, 1)).rejects.toThrow(JobFencedError);
      expect(await store.claim(record.id, '', 'host-b:1:b', Date.now() + 60_000)).toMatchObject({ attempt: 3 });
    } finally {
      await store.close();
    }
  });
});

describe('the local store across attempts', () => {
  it('migrates a database of the first schema: its jobs are on attempt 1, their results where they were', async () => {
    const dir = join(root, 'schema-1');
    mkdirSync(join(dir, 'results'), { recursive: true });
    const record = job('host-a:1:a');
    const db = new DatabaseSync(join(dir, 'jobs.db'));
    db.exec(`
      CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
      CREATE TABLE jobs (id TEXT PRIMARY KEY, owner TEXT NOT NULL, status TEXT NOT NULL, expires_at INTEGER NOT NULL,
        reserved INTEGER NOT NULL DEFAULT 0, written INTEGER NOT NULL DEFAULT 0, record TEXT NOT NULL) STRICT;
      INSERT INTO meta VALUES ('schema', '1');`);
    const finished = { ...record, status: 'completed' as const, finished_at: record.created_at };
    db.prepare('INSERT INTO jobs (id, owner, status, expires_at, record) VALUES (?, ?, ?, ?, ?)').run(
      record.id,
      '',
      'completed',
      Date.parse(record.expires_at!),
      JSON.stringify(finished),
    );
    db.close();
    writeFileSync(join(dir, 'results', `${record.id}.result.gz`), gzipSync('kept\n'));
    const store = new LocalJobStore({ dir, ttlSeconds: 3600, maxBytes: 1 << 26 });
    try {
      expect(await store.get(record.id)).toMatchObject({ status: 'completed' });
      expect(await text(store, record.id)).toBe('kept\n');
      const check = new DatabaseSync(join(dir, 'jobs.db'));
      expect(check.prepare('SELECT attempt FROM jobs WHERE id = ?').get(record.id)).toEqual({ attempt: 1 });
      expect(check.prepare(`SELECT value FROM meta WHERE name = 'schema'`).get()).toEqual({ value: '2' });
      check.close();
    } finally {
      await store.close();
    }
  });

  it("writes each attempt's results to their own files, and the sweep deletes a stale attempt's", async () => {
    const store = new LocalJobStore({ dir: join(root, 'attempt-files'), ttlSeconds: 3600, maxBytes: 1 << 26 });
    try {
      const record = job('host-a:1:a', 1);
      await store.create(record, undefined, 1024);
      const { id } = record;
      await store.claim(id, 'host-a:1:a', 'host-b:1:b', Date.now() + 60_000);
      await store.appendResult(id, gzipSync('fresh\n'), 'result', 2);
      // What a stale run of attempt 1 leaves when it appended between its check and the claim.
      const stale = store.results.path(id, 'result', 1);
      writeFileSync(stale, gzipSync('stale\n'));
      expect(readdirSync(store.results.dir).sort()).toEqual([`${id}.2.result.gz`, `${id}.result.gz`]);
      expect(await text(store, id)).toBe('fresh\n');
      const longAgo = new Date(Date.now() - 10 * 60_000);
      for (const name of readdirSync(store.results.dir)) utimesSync(join(store.results.dir, name), longAgo, longAgo);
      await store.sweep();
      expect(readdirSync(store.results.dir)).toEqual([`${id}.2.result.gz`]);
    } finally {
      await store.close();
    }
  });
});
