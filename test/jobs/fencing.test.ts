/**
 * Stale-owner fencing (src/jobs/fencing.ts), with the local store (two stores on one JOBS_DIR, as two API processes
 * have) and with Redis (two connections, a per-run prefix). Process A runs a job and stalls: its runner holds a
 * chunk, and its lease renewals fail (the connection is lost). Its lease runs out, process B claims the job and runs
 * it again. Then A wakes up and goes on writing progress, result segments and its final status. Whether A wakes
 * after B finished or while B still runs, the job ends as B's run: completed by B's attempt, announced once by B,
 * never by A, and its three results byte-identical to an uninterrupted run of the file. A stops with one log line.
 * Every step waits for an event (a held chunk reached, a lease seen expired, a webhook heard, a log line written),
 * never for a fixed time.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runBulk } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { AsyncJobs } from '../../src/jobs/async-jobs.ts';
import { RESULT_PARTS, type JobRecord, type JobStore } from '../../src/jobs/job-store.ts';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { RedisJobStore } from '../../src/jobs/redis-job-store.ts';
import { holdingRunner } from '../cli/harness.ts';
import { makeCsv } from '../queue/csv-gen.ts';
import { testConfig } from '../queue/helpers.ts';
import { deleteKeys, findRedis, uniquePrefix, type TestRedis } from '../support/redis.ts';

const root = mkdtempSync(join(tmpdir(), 'sor-fencing-'));
const STUDENTS = 300;
const csv = makeCsv(STUDENTS, 25);
const config = testConfig({ BULK_CHUNK_STUDENTS: '50' }); // six chunks: the run can stall part-way
const A = 'host-a:1:aaaaaaaaaaaa';
const B = 'host-b:1:bbbbbbbbbbbb';
const TAKEN_OVER = 'async job taken over by another process: this run stops';
const HOUR = 3_600_000;

let redis: TestRedis;
const prefix = uniquePrefix('fencing');
const clients: Redis[] = [];
const closers: (() => Promise<void>)[] = [];
let reference: Record<string, string>;

beforeAll(async () => {
  redis = await findRedis();
  reference = await uninterrupted();
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(async () => {
  await deleteKeys(redis.url, prefix);
  for (const c of clients) c.disconnect();
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
/** The file spooled, as the upload routes hand it to AsyncJobs.submit. */
function upload() {
  const path = join(root, `upload-${++n}.csv`);
  writeFileSync(path, csv);
  const sha256 = createHash('sha256').update(csv).digest('hex');
  return { path, sha256, bytes: Buffer.byteLength(csv), students: STUDENTS };
}

/** A log that keeps its lines' messages. */
function capturedLog() {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line).msg) });
  return { logger, lines };
}

/** The store of one process: a LocalJobStore on the shared JOBS_DIR, or a RedisJobStore on its own connection. */
type StoreKind = 'local' | 'redis';
function processStore(kind: StoreKind, dir: string, keyPrefix: string): JobStore {
  if (kind === 'local') {
    const store = new LocalJobStore({ dir, ttlSeconds: 3600, maxBytes: 1 << 28 });
    closers.push(() => store.close());
    return store;
  }
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  clients.push(client);
  return new RedisJobStore(client, keyPrefix, 3600, 1 << 28);
}

/** `store` whose lease renewals fail, as when the connection to the store is lost while the process stalls. */
function renewalsFail(store: JobStore): JobStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'renew') return () => Promise.reject(new Error('connection lost'));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function service(store: JobStore, dir: string, runner: ChunkRunner, instance: string, leaseMs?: number) {
  const ended: JobRecord[] = [];
  const log = capturedLog();
  const jobs = new AsyncJobs({
    config,
    logger: log.logger,
    store,
    jobsDir: dir,
    runners: runner,
    runBulk,
    instance,
    leaseMs,
    renewEveryMs: leaseMs === undefined ? undefined : 10,
    recoverEveryMs: HOUR, // recovery runs when the test calls it (and at start-up)
    onJobEnded: (record) => void ended.push(record),
  });
  closers.push(() => jobs.close());
  return { jobs, ended, lines: log.lines };
}

async function until(probe: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Each result part of the job as downloaded: its size and sha256. */
async function results(store: JobStore, id: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const part of RESULT_PARTS) {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of store.readResult(id, part)) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    out[part] = `${bytes} bytes, sha256 ${hash.digest('hex')}`;
  }
  return out;
}

/** The three results of the file run once, on a store of its own, without a stall. */
async function uninterrupted(): Promise<Record<string, string>> {
  const dir = join(root, 'reference');
  const store = new LocalJobStore({ dir, ttlSeconds: 3600, maxBytes: 1 << 28 });
  const { jobs, ended } = service(store, dir, createInlineRunner(), A);
  try {
    const { record } = await jobs.submit(upload(), 'csv');
    await until(() => ended.length === 1, 'the reference run');
    expect(ended[0]).toMatchObject({ status: 'completed', students_done: STUDENTS });
    return await results(store, record.id);
  } finally {
    await jobs.close();
    await store.close();
  }
}

describe.each<StoreKind>(['local', 'redis'])('a stalled owner that lost its job (%s store)', (kind) => {
  it.each(['after the new owner finished', 'while the new owner runs'])(
    'stops quietly when it wakes %s: the job and its bytes are the new run’s',
    async (when) => {
      const dir = join(root, `${kind}-${++n}`);
      const keyPrefix = `${prefix}:${n}`;
      // A: a tiny lease, renewals that fail, and a runner that stalls at the second chunk.
      const holdA = holdingRunner(1);
      const a = service(renewalsFail(processStore(kind, dir, keyPrefix)), dir, holdA.runner, A, 20);
      const storeB = processStore(kind, dir, keyPrefix);
      const { record } = await a.jobs.submit(upload(), 'csv');
      await holdA.arrived;
      await until(async () => (await storeB.get(record.id))!.lease_until < Date.now(), "A's lease to run out");

      // B finds the job orphaned and claims it (at start-up); it runs it, held at its second chunk when A wakes then.
      const wakeWhileBRuns = when === 'while the new owner runs';
      const holdB = wakeWhileBRuns ? holdingRunner(1) : undefined;
      const b = service(storeB, dir, holdB?.runner ?? createInlineRunner(), B);
      await b.jobs.recover();
      expect(await storeB.get(record.id)).toMatchObject({ instance: B });
      if (holdB !== undefined) await holdB.arrived;
      else await until(() => b.ended.length === 1, "B's run to end");

      // A wakes up and goes on; wait until its run ended (one of these lines), then until it stopped.
      holdA.release();
      const endOfA = [TAKEN_OVER, 'async job completed', 'async job failed', 'async job cancelled while it ran'];
      await until(() => a.lines.some((line) => endOfA.includes(line)), "A's run to end");
      await a.jobs.close();
      holdB?.release();
      await until(() => b.ended.length === 1, "B's run to end");

      expect(await results(storeB, record.id)).toEqual(reference);
      expect(a.ended).toEqual([]);
      expect(a.lines.filter((line) => endOfA.includes(line))).toEqual([TAKEN_OVER]);
      expect(b.ended).toHaveLength(1);
      const final = await storeB.get(record.id);
      expect(final).toMatchObject({
        status: 'completed',
        instance: B,
        attempt: 2,
        students_done: STUDENTS,
        error: null,
      });
      expect(b.ended[0]).toMatchObject({ status: 'completed', attempt: 2, rows_done: final!.rows_done });
    },
    60_000,
  );
});
