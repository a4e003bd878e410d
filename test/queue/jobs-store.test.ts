/**
 * The async job stores at rest, through the real stores (SQLite and files in JOBS_DIR without Redis, a real Redis
 * with a per-run prefix) and the real HTTP routes: results compressed and private, swept at TTL, nothing left of a
 * failed job, quotas that refuse up front (503 job_store_full), a job always marked failed when its result
 * cannot be stored, a finished job still downloadable after a restart, and 410 job_lost only when a job's records
 * are really gone.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBulk } from '../../src/bulk/pipeline.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../../src/bulk/runner.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import type { PoolRunner } from '../../src/bulk/runners/pool.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { Config } from '../../src/config.ts';
import { JOB_ID_PATTERN, jobIdCreatedAt, newJobId } from '../../src/jobs/job-id.ts';
import { jobsStoreReadiness } from '../../src/jobs/store-readiness.ts';
import { UploadDigest } from '../../src/jobs/upload-digest.ts';
import { AsyncJobs } from '../../src/jobs/async-jobs.ts';
import type { JobRecord, JobStore } from '../../src/jobs/job-store.ts';
import { RedisJobStore } from '../../src/jobs/redis-job-store.ts';
import { deleteKeys, findRedis, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';
import { makeCsv } from './csv-gen.ts';
import { bulkOutputText, removePrefix, serveJobs, silentLogger, startService, testConfig } from './helpers.ts';

let redis: TestRedis;
let redisClient: Redis;
let pool: PoolRunner;
const prefix = uniquePrefix('jobstore');
const root = mkdtempSync(join(tmpdir(), 'sor-jobstore-test-'));
const spoolDir = join(root, 'spool');
mkdirSync(spoolDir);
const csv = makeCsv(600, 11);
const MiB = 1024 * 1024;

/** A runner that lets `free` chunks through, then holds the rest until the test ends. */
function heldAfter(inner: ChunkRunner, free: number): ChunkRunner & { passed: () => number } {
  let passed = 0;
  const never = new Promise<never>(() => undefined);
  return {
    kind: inner.kind,
    passed: () => passed,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      if (passed >= free) return never;
      passed++;
      return inner.run(task);
    },
    close: async () => undefined,
  };
}

interface Harness {
  base: string;
  jobs: AsyncJobs;
  store: JobStore;
  config: Config;
  close(drainMs?: number): Promise<void>;
}

async function serve(store: JobStore, config: Config, runner?: ChunkRunner): Promise<Harness> {
  const jobs = new AsyncJobs({
    config,
    logger: silentLogger,
    store,
    jobsDir: store instanceof LocalJobStore ? store.dir : mkdtempSync(join(root, 'jobs-')),
    runners: { small: runner ?? createInlineRunner(), large: runner ?? pool },
    runBulk,
  });
  const { base, server } = await serveJobs(jobs, config, spoolDir);
  return {
    base,
    jobs,
    store,
    config,
    async close(drainMs = 5000) {
      await jobs.close(drainMs);
      await store.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function config(env: Record<string, string> = {}): Config {
  return testConfig({ BULK_CHUNK_STUDENTS: '50', BULK_SYNC_MAX_ROWS: '50', ...env });
}

async function submit(h: Harness, body: string, headers: Record<string, string> = {}) {
  return fetch(`${h.base}/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'text/csv', ...headers }, body });
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitDone(h: Harness, id: string): Promise<Record<string, unknown>> {
  return waitFor(async () => {
    const job = (await (await fetch(`${h.base}/v1/jobs/${id}`)).json()) as Record<string, unknown>;
    return job.status === 'completed' || job.status === 'failed' ? job : undefined;
  }, `job ${id} to finish`);
}

function expected(format: 'csv' | 'ndjson', body: string, cfg: Config): Promise<string> {
  return bulkOutputText({ body, format, runner: { small: createInlineRunner(), large: pool }, config: cfg });
}

beforeAll(async () => {
  redis = await findRedis();
  redisClient = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  pool = createPoolRunner({ threads: 2 });
});

afterAll(async () => {
  await pool?.close();
  await deleteKeys(redis.url, prefix);
  redisClient?.disconnect();
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('job ids', () => {
  it('carry their creation time behind a check: a changed digit is not an id of ours', () => {
    const at = Date.UTC(2026, 10, 23, 21, 0, 0, 123);
    const id = newJobId(at);
    expect(id).toMatch(new RegExp(JOB_ID_PATTERN));
    // 128 random bits between the time and the check: two ids of the same millisecond share only the time.
    expect(id.slice(0, 12)).toBe(at.toString(16).padStart(12, '0'));
    expect(jobIdCreatedAt(id)).toBe(at);
    expect(newJobId(at)).not.toBe(id);
    const flipped = id.slice(0, 20) + (id[20] === '0' ? '1' : '0') + id.slice(21);
    expect(jobIdCreatedAt(flipped)).toBeUndefined();
    expect(jobIdCreatedAt('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });
});

describe('upload digest (one read for the hash, the size and the student count)', () => {
  it('hashes the format and bytes, counts students, whatever the chunking', async () => {
    const body = makeCsv(250, 4).replaceAll('S00000007', 'S0000000é'); // a two-byte character, split below
    const file = join(root, 'digest.csv');
    writeFileSync(file, body);
    const want = {
      sha256: createHash('sha256').update('ndjson\n').update(body).digest('hex'),
      bytes: Buffer.byteLength(body),
      students: 250,
    };
    const bytes = Buffer.from(body);
    const whole = new UploadDigest('ndjson');
    whole.update(bytes);
    expect(whole.finish()).toEqual(want);
    const byByte = new UploadDigest('ndjson');
    for (let i = 0; i < bytes.length; i++) byByte.update(bytes.subarray(i, i + 1));
    expect(byByte.finish()).toEqual(want);
    const noIds = new UploadDigest('csv');
    noIds.update(Buffer.from('name,term\nA,Fall\n'));
    expect(noIds.finish().students).toBeNull();
  });
});

describe('job store settings and lifetimes', () => {
  it('has documented defaults and refuses a quota below 1 MiB', () => {
    const c = loadConfig({});
    expect(c.JOBS_DIR).toBe(join(tmpdir(), 'sor-jobs'));
    expect(c.JOBS_MAX_DISK_BYTES).toBe(2048 * MiB);
    expect(c.JOBS_MAX_REDIS_BYTES).toBe(256 * MiB);
    expect(() => loadConfig({ JOBS_MAX_DISK_BYTES: '1000' })).toThrow(ConfigError);
    expect(() => loadConfig({ JOBS_MAX_REDIS_BYTES: 'lots' })).toThrow(/JOBS_MAX_REDIS_BYTES/);
  });

  it.each(['local', 'redis'] as const)(
    'the %s store keeps an unfinished job past its TTL while its owner renews the lease',
    async (kind) => {
      const p = `${prefix}-lease`;
      const store: JobStore =
        kind === 'local'
          ? new LocalJobStore({ dir: join(root, 'lease'), ttlSeconds: 1, maxBytes: 64 * MiB })
          : new RedisJobStore(redisClient, p, 1, 64 * MiB);
      const now = Date.now();
      const record: JobRecord = {
        id: newJobId(now),
        status: 'running',
        format: 'csv',
        created_at: new Date(now).toISOString(),
        started_at: new Date(now).toISOString(),
        finished_at: null,
        students_done: 0,
        students_total: 10,
        rows_done: 0,
        error_rows: 0,
        error: null,
        fingerprint: 'f',
        lease_until: now + 60_000,
        expires_at: new Date(now + 1000).toISOString(),
        instance: 'host:1:owner',
      };
      try {
        await store.create(record, undefined, 1024);
        for (let i = 0; i < 4; i++) {
          await new Promise((r) => setTimeout(r, 400));
          const at = Date.now();
          expect(await store.renew(record.id, 'host:1:owner', at + 60_000, new Date(at + 1000).toISOString())).toBe(
            true,
          );
        }
        // Another instance cannot renew it.
        expect(await store.renew(record.id, 'host:2:other', Date.now() + 60_000, record.expires_at!)).toBe(false);
        expect(Date.now() - now).toBeGreaterThan(1000);
        expect((await store.get(record.id))?.status).toBe('running');
        await store.update(record.id, { status: 'completed', finished_at: new Date().toISOString() });
        await new Promise((r) => setTimeout(r, 1300));
        await expect(store.get(record.id)).rejects.toMatchObject({ code: 'not_found', status: 404 });
      } finally {
        await store.close();
        await deleteKeys(redis.url, p);
      }
    },
  );
});

describe('the local store (no Redis)', () => {
  it('keeps results as gzip files, 0600 in 0700 folders beside a 0600 database, downloaded decompressed, swept at TTL', async () => {
    const dir = join(root, 'disk-ttl');
    const cfg = config({ JOB_TTL_SECONDS: '3' });
    const h = await serve(new LocalJobStore({ dir, ttlSeconds: 3, maxBytes: 64 * MiB }), cfg);
    try {
      const { id } = (await (await submit(h, csv)).json()) as { id: string };
      expect((await waitDone(h, id)).status).toBe('completed');
      for (const folder of [dir, join(dir, 'results'), join(dir, 'uploads')]) {
        expect(statSync(folder).mode & 0o777, folder).toBe(0o700);
      }
      expect(statSync(join(dir, 'jobs.db')).mode & 0o777).toBe(0o600);
      const folder = join(dir, 'results');
      const file = join(folder, `${id}.result.gz`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const bytes = await readFile(file);
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]); // gzip magic
      const want = await expected('csv', csv, cfg);
      expect(bytes.length).toBeLessThan(Buffer.byteLength(want) / 4);
      expect(gunzipSync(bytes).toString('utf8')).toBe(want);
      expect(await (await fetch(`${h.base}/v1/jobs/${id}/result`)).text()).toBe(want);
      // The job ended: its upload is gone.
      expect(readdirSync(join(dir, 'uploads'))).toEqual([]);
      // TTL: the record and the files go (the sweep runs every min(60 s, TTL)).
      await waitFor(
        async () => (readdirSync(folder).some((n) => n.startsWith(id)) ? undefined : true),
        'the result files to be swept',
        10_000,
      );
      const gone = await fetch(`${h.base}/v1/jobs/${id}`);
      expect(gone.status).toBe(404);
      expect(((await gone.json()) as { code: string }).code).toBe('not_found');
    } finally {
      await h.close();
    }
  });

  it('deletes a result file without a job once it is a minute old, and keeps a younger one', async () => {
    const dir = join(root, 'disk-orphans');
    const results = join(dir, 'results');
    mkdirSync(results, { recursive: true });
    const old = join(results, `${newJobId()}.result.gz`);
    const young = join(results, `${newJobId()}.errors.gz`);
    writeFileSync(old, 'x');
    writeFileSync(young, 'x');
    const longAgo = new Date(Date.now() - 10 * 60_000);
    utimesSync(old, longAgo, longAgo);
    const store = new LocalJobStore({ dir, ttlSeconds: 60, maxBytes: 64 * MiB });
    try {
      await store.sweep();
      expect(readdirSync(results)).toEqual([basename(young)]);
    } finally {
      await store.close();
    }
  });

  it('refuses a job whose result cannot fit up front (503 job_store_full) and /readyz shows the headroom', async () => {
    const dir = join(root, 'disk-quota');
    const cfg = config();
    const store = new LocalJobStore({ dir, ttlSeconds: 60, maxBytes: 1 * MiB });
    const h = await serve(store, cfg);
    try {
      const big = makeCsv(14_000, 3); // ~1.3 MB: reserves more than the 1 MiB quota
      expect(Buffer.byteLength(big)).toBeGreaterThan(MiB);
      const res = await submit(h, big);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('job_store_full');
      expect(body.message).toMatch(/JOBS_MAX_DISK_BYTES/);
      // A small one still fits, and the upload of the refused one was deleted (spool and job files alike).
      const ok = await submit(h, csv);
      expect(ok.status).toBe(202);
      const { id } = (await ok.json()) as { id: string };
      expect((await waitDone(h, id)).status).toBe('completed');
      const check = await jobsStoreReadiness(h.jobs).check();
      expect(check.ok).toBe(true);
      expect(check.detail).toMatch(/MiB free of 1\.0 MiB for job results/);
      expect(readdirSync(spoolDir)).toEqual([]);
      expect(readdirSync(join(dir, 'uploads'))).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('after an API restart (a new store on the same folder) a finished job still downloads; 410 job_lost only when its records are gone', async () => {
    const dir = join(root, 'disk-restart');
    const cfg = config();
    const first = await serve(new LocalJobStore({ dir, ttlSeconds: 3600, maxBytes: 64 * MiB }), cfg);
    let id: string;
    try {
      id = ((await (await submit(first, csv)).json()) as { id: string }).id;
      expect((await waitDone(first, id)).status).toBe('completed');
    } finally {
      await first.close();
    }
    const second = await serve(new LocalJobStore({ dir, ttlSeconds: 3600, maxBytes: 64 * MiB }), cfg);
    try {
      expect(((await (await fetch(`${second.base}/v1/jobs/${id}`)).json()) as { status: string }).status).toBe(
        'completed',
      );
      expect(await (await fetch(`${second.base}/v1/jobs/${id}/result`)).text()).toBe(await expected('csv', csv, cfg));
    } finally {
      await second.close();
    }
    // The database gone (a JOBS_DIR on a disk that was replaced): the job's records are really lost.
    for (const name of readdirSync(dir)) if (name.startsWith('jobs.db')) rmSync(join(dir, name));
    const third = await serve(new LocalJobStore({ dir, ttlSeconds: 3600, maxBytes: 64 * MiB }), cfg);
    try {
      for (const path of [`/v1/jobs/${id}`, `/v1/jobs/${id}/result`]) {
        const res = await fetch(`${third.base}${path}`);
        expect(res.status).toBe(410);
        const body = (await res.json()) as { code: string; message: string };
        expect(body.code).toBe('job_lost');
        expect(body.message).toMatch(/Submit the file again/);
      }
      // An id this service never issued stays a plain 404.
      expect((await fetch(`${third.base}/v1/jobs/${newJobId().replace(/.$/, 'x')}`)).status).toBe(404);
    } finally {
      await third.close();
    }
  });
});

describe('results in Redis', () => {
  const keyPrefix = (name: string) => `${prefix}-${name}`;

  it('are stored gzip; the ledger keeps the compressed size; the download is the decompressed output', async () => {
    const p = keyPrefix('gz');
    const cfg = config();
    const h = await serve(new RedisJobStore(redisClient, p, 60, 64 * MiB), cfg);
    try {
      const { id } = (await (await submit(h, csv, { Accept: 'application/x-ndjson' })).json()) as { id: string };
      expect((await waitDone(h, id)).status).toBe('completed');
      const segments = await redisClient.lrangeBuffer(`${p}:job:${id}:result`, 0, -1);
      const stored = Buffer.concat(segments);
      expect([stored[0], stored[1]]).toEqual([0x1f, 0x8b]);
      const want = await expected('ndjson', csv, cfg);
      expect(gunzipSync(stored).toString('utf8')).toBe(want);
      // The ledger counts every part the job keeps: the result, the other format, the errors-only CSV.
      let all = 0;
      for (const key of [`${p}:job:${id}:result`, `${p}:job:${id}:result:alternate`, `${p}:job:${id}:result:errors`]) {
        all += Buffer.concat(await redisClient.lrangeBuffer(key, 0, -1)).length;
      }
      expect(all).toBeGreaterThan(stored.length);
      expect(Number(await redisClient.hget(`${p}:job-bytes`, id))).toBe(all);
      expect(await (await fetch(`${h.base}/v1/jobs/${id}/result`)).text()).toBe(want);
      const head = await h.jobs.headroom();
      expect(head.usedBytes).toBe(all);
    } finally {
      await h.close();
      await deleteKeys(redis.url, p);
    }
  });

  it('refuse a job over the configured quota up front (503 job_store_full); /readyz goes not-ready when full', async () => {
    const p = keyPrefix('quota');
    const cfg = config();
    const store = new RedisJobStore(redisClient, p, 60, 1 * MiB);
    const h = await serve(store, cfg);
    try {
      const res = await submit(h, makeCsv(14_000, 3));
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('job_store_full');
      expect(body.message).toMatch(/JOBS_MAX_REDIS_BYTES/);
      expect(await redisClient.exists(`${p}:jobs`)).toBe(0); // no job record was created
      // Fill the quota with held jobs (each reserves at least 64 KiB) until the next one is refused.
      const held = await serve(store, cfg, heldAfter(pool, 0));
      try {
        let refused = 0;
        for (let i = 0; i < 20 && refused === 0; i++) {
          const r = await submit(held, makeCsv(500, 100 + i));
          if (r.status === 503) refused++;
          else expect(r.status).toBe(202);
          await r.arrayBuffer();
        }
        expect(refused).toBe(1);
        const check = await jobsStoreReadiness(held.jobs).check();
        expect(check.ok).toBe(false);
        expect(check.detail).toMatch(/of 1\.0 MiB for job results/);
        expect((await store.headroom()).freeBytes).toBeLessThan(Buffer.byteLength(makeCsv(500, 1)));
      } finally {
        await held.close(0);
      }
    } finally {
      await h.close();
      await deleteKeys(redis.url, p);
    }
  });

  it('a job stopped mid-run by a shutdown is handed back: queued, no partial result, its reservation kept', async () => {
    const p = keyPrefix('partial');
    // Results reach the store in ~1 MiB compressed segments: let about 30,000 students through before holding.
    const cfg = config({ BULK_CHUNK_STUDENTS: '1000' });
    const store = new RedisJobStore(redisClient, p, 60, 64 * MiB);
    const runner = heldAfter(pool, 30);
    const h = await serve(store, cfg, runner);
    const big = makeCsv(40_000, 5);
    const { id } = (await (await submit(h, big)).json()) as { id: string };
    await waitFor(async () => ((await redisClient.llen(`${p}:job:${id}:result`)) > 0 ? true : undefined), 'a part');
    expect(await redisClient.hexists(`${p}:job-bytes`, id)).toBe(1);
    await h.jobs.close(0); // the service shuts down: the running job is stopped and handed back
    try {
      const job = await store.get(id);
      expect(job?.status).toBe('queued');
      expect(job?.instance).toBe('');
      expect(job?.students_done).toBe(0);
      expect(await redisClient.exists(`${p}:job:${id}:result`)).toBe(0);
      expect(await redisClient.hexists(`${p}:job-bytes`, id)).toBe(1);
      // Its upload waits in the job's files for the next process.
      expect(readdirSync(h.jobs.files.dir)).toContain(`${id}.csv`);
    } finally {
      await h.close();
      await deleteKeys(redis.url, p);
    }
  });

  it('a job is marked failed (not left running) when its result cannot be stored, even if the store refuses at first', async () => {
    const p = keyPrefix('oom');
    const cfg = config();
    const real = new RedisJobStore(redisClient, p, 60, 64 * MiB);
    // The real store, with Redis answering as it does at maxmemory: result writes refused, and the first attempt
    // to mark the job failed refused too (before the partial result is deleted).
    let refusedUpdates = 0;
    const oom = () => Object.assign(new Error("OOM command not allowed when used memory > 'maxmemory'."), {});
    const store: JobStore = Object.assign(Object.create(real) as JobStore, {
      kind: real.kind,
      create: real.create.bind(real),
      get: real.get.bind(real),
      settleResult: real.settleResult.bind(real),
      clearResult: real.clearResult.bind(real),
      readResult: real.readResult.bind(real),
      headroom: real.headroom.bind(real),
      counts: real.counts.bind(real),
      close: real.close.bind(real),
      renew: real.renew.bind(real),
      claim: real.claim.bind(real),
      release: real.release.bind(real),
      appendResult: async () => {
        throw oom();
      },
      update: async (id: string, patch: Parameters<JobStore['update']>[1]) => {
        if (patch.status === 'failed' && refusedUpdates++ === 0) throw oom();
        return real.update(id, patch);
      },
    });
    const h = await serve(store, cfg);
    try {
      const { id } = (await (await submit(h, csv)).json()) as { id: string };
      const job = await waitDone(h, id);
      expect(job.status).toBe('failed');
      expect(refusedUpdates).toBeGreaterThanOrEqual(2);
      expect(await redisClient.exists(`${p}:job:${id}:result`)).toBe(0);
    } finally {
      await h.close();
      await deleteKeys(redis.url, p);
    }
  });

  it('keep nothing of a job after its TTL: no key of the prefix is left', async () => {
    const p = keyPrefix('ttl');
    const cfg = config({ JOB_TTL_SECONDS: '1' });
    const h = await serve(new RedisJobStore(redisClient, p, 1, 64 * MiB), cfg);
    try {
      const res = await submit(h, makeCsv(20, 5), { 'Idempotency-Key': `k-${p}` });
      const { id } = (await res.json()) as { id: string };
      expect((await waitDone(h, id)).status).toBe('completed');
      expect(await redisClient.keys(`${p}:*`)).not.toEqual([]);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await redisClient.keys(`${p}:*`)).toEqual([]);
    } finally {
      await h.close();
      await deleteKeys(redis.url, p);
    }
  });

  it('answers 410 job_lost when the job records vanish (Redis restarted without persistence)', async () => {
    const p = keyPrefix('lost');
    const cfg = config();
    const h = await serve(new RedisJobStore(redisClient, p, 3600, 64 * MiB), cfg);
    try {
      const { id } = (await (await submit(h, csv)).json()) as { id: string };
      expect((await waitDone(h, id)).status).toBe('completed');
      await deleteKeys(redis.url, p); // what a Redis restart without AOF/RDB leaves: none of the job's keys
      for (const path of [`/v1/jobs/${id}`, `/v1/jobs/${id}/result`]) {
        const res = await fetch(`${h.base}${path}`);
        expect(res.status).toBe(410);
        expect(((await res.json()) as { code: string }).code).toBe('job_lost');
      }
      expect((await fetch(`${h.base}/v1/jobs/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    } finally {
      await h.close();
      await deleteKeys(redis.url, p);
    }
  });
});

describe('the whole service', () => {
  it.each(['local', 'redis'] as const)(
    'with the %s store, /readyz has a jobs-store check and jobs run to completion',
    async (kind) => {
      const p = `${prefix}-svc`;
      const env: Record<string, string> =
        kind === 'redis'
          ? {
              REDIS_URL: redis.url,
              REDIS_PREFIX: p,
              JOBS_MAX_REDIS_BYTES: String(8 * MiB),
              JOBS_DIR: join(root, 'svc-r'),
            }
          : { JOBS_DIR: join(root, 'svc'), JOBS_MAX_DISK_BYTES: String(8 * MiB) };
      const svc = await startService(testConfig({ BULK_THREADS: '1', ...env }));
      try {
        const ready = await fetch(`${svc.base}/readyz`);
        const body = (await ready.json()) as { checks: { name: string; ok: boolean }[] };
        expect(body.checks.find((c) => c.name === 'jobs-store')?.ok).toBe(true);
        const res = await fetch(`${svc.base}/v1/jobs`, {
          method: 'POST',
          headers: { 'Content-Type': 'text/csv' },
          body: csv,
        });
        expect(res.status).toBe(202);
        const { id } = (await res.json()) as { id: string };
        const job = await waitFor(async () => {
          const j = (await (await fetch(`${svc.base}/v1/jobs/${id}`)).json()) as { status: string };
          return j.status === 'completed' || j.status === 'failed' ? j : undefined;
        }, 'the job');
        expect(job.status).toBe('completed');
        const cfg = config();
        expect(await (await fetch(`${svc.base}/v1/jobs/${id}/result`)).text()).toBe(await expected('csv', csv, cfg));
      } finally {
        await svc.close();
        if (kind === 'redis') await removePrefix(redis.url, p);
      }
    },
  );
});
