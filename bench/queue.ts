/**
 * npm run bench:queue [-- --students N] [--worker-threads T] [--chunk S] [--rounds R]
 *
 * The same generated file (N students, default 200,000) through the bulk pipeline three ways, in this one run:
 *   1. embedded: the in-process piscina pool (BULK_THREADS = cores), the default without Redis  ← the baseline
 *   2. queue, 1 worker process   (T threads each, default 1)
 *   3. queue, 2 worker processes
 * Modes are interleaved for R rounds (default 3) and the median is reported, so load from other processes on
 * the machine hits every mode alike. Prints students/s and the ratio to the embedded run, checks the three outputs are byte-identical (sha256),
 * then measures the per-chunk Redis cost: one real chunk payload sent through the queue to a worker that does
 * no calculation, against the same chunk handed to a local no-op runner.
 *
 * Redis: REDIS_URL, else a throwaway `redis-server` on a free port. Keys live under a unique prefix, deleted
 * at the end. Ratios, not wall-clock thresholds: compare runs on the same machine only.
 */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { Queue } from 'bullmq';
import pino from 'pino';
import { runBulk } from '../src/bulk/pipeline.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../src/bulk/runner.ts';
import { createPoolRunner } from '../src/bulk/runners/pool.ts';
import { loadConfig } from '../src/config.ts';
import { startChunkWorker } from '../src/queue/chunk-worker.ts';
import { createQueueRunner } from '../src/queue/queue-runner.ts';
import { QUEUE_NAME } from '../src/queue/settings.ts';
import { csvPieces } from '../test/queue/csv-gen.ts';
import { killAll, startWorker } from '../test/support/processes.ts';
import { deleteKeys, findRedis, uniquePrefix } from '../test/support/redis.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : Number.NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

const STUDENTS = arg('students', 200_000);
const WORKER_THREADS = arg('worker-threads', 1);
const CHUNK = arg('chunk', 1000);
const ROUNDS = arg('rounds', 3);
const CORES = availableParallelism();
const silent = pino({ level: 'silent' });

interface RunResult {
  label: string;
  seconds: number;
  students: number;
  rows: number;
  sha256: string;
}

function progressLine(label: string, done: number): void {
  if (process.stderr.isTTY)
    process.stderr.write(
      `\r  ${label}: ${done.toLocaleString('en-US')} / ${STUDENTS.toLocaleString('en-US')} students`,
    );
}

async function runFile(label: string, runner: ChunkRunner, extraEnv: Record<string, string> = {}): Promise<RunResult> {
  const hash = createHash('sha256');
  const output = new Writable({
    write(chunk: Buffer, _e, cb) {
      hash.update(chunk);
      cb();
    },
  });
  const config = loadConfig({ BULK_CHUNK_STUDENTS: String(CHUNK), BULK_SYNC_MAX_ROWS: '0', ...extraEnv });
  const started = performance.now();
  let last = 0;
  const summary = await runBulk({
    input: Readable.from(csvPieces(STUDENTS, 42)),
    output,
    format: 'csv',
    runner,
    config,
    onProgress: (p) => {
      if (p.students - last >= 20_000) {
        last = p.students;
        progressLine(label, p.students);
      }
    },
  });
  const seconds = (performance.now() - started) / 1000;
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  return { label, seconds, students: summary.students, rows: summary.rows, sha256: hash.digest('hex') };
}

/** A runner that does no calculation: isolates the transport cost. */
const noopRunner: ChunkRunner = {
  kind: 'pool',
  async run(task: ChunkTask): Promise<ChunkOutput> {
    return { index: task.index, text: task.payload, rows: 1, errorRows: 0, students: 1 };
  },
  close: async () => undefined,
};

async function chunkCost(
  redisUrl: string,
  payload: string,
): Promise<{ localMs: number; queueMs: number; queueMsPipelined: number }> {
  const prefix = uniquePrefix('bench-cost');
  const config = loadConfig({ REDIS_URL: redisUrl, BULLMQ_PREFIX: prefix, LOG_LEVEL: 'silent' });
  const worker = startChunkWorker({ config, logger: silent, runner: noopRunner, concurrency: 8 });
  const runner = createQueueRunner({ config, logger: silent, fallback: noopRunner });
  try {
    await worker.ready();
    const bound = runner.forRequest('cost');
    for (let i = 0; i < 20; i++) await bound.run({ index: i, payload }); // warm-up
    const n = 200;
    let t = performance.now();
    for (let i = 0; i < n; i++) await noopRunner.run({ index: i, payload });
    const localMs = (performance.now() - t) / n;
    t = performance.now();
    for (let i = 0; i < n; i++) await bound.run({ index: 1000 + i, payload });
    const queueMs = (performance.now() - t) / n;
    t = performance.now();
    const inflight = 8;
    for (let i = 0; i < n; i += inflight) {
      await Promise.all(Array.from({ length: inflight }, (_, k) => bound.run({ index: 5000 + i + k, payload })));
    }
    const queueMsPipelined = (performance.now() - t) / n;
    return { localMs, queueMs, queueMsPipelined };
  } finally {
    await runner.close();
    await worker.close();
    await deleteKeys(redisUrl, prefix);
  }
}

async function main(): Promise<void> {
  const redis = await findRedis();
  const prefixes: string[] = [];
  const pool = createPoolRunner({ threads: CORES });
  const results: RunResult[] = [];
  console.log(
    `bench:queue — ${STUDENTS.toLocaleString('en-US')} students, chunks of ${CHUNK}, ${CORES} cores, ` +
      `Redis ${redis.source}, worker processes with ${WORKER_THREADS} thread(s) each`,
  );
  try {
    // Interleaved rounds (embedded, 1 worker, 2 workers, embedded, ...): a neighbour's load hits every mode alike.
    const runs: RunResult[][] = [[], [], []];
    for (let round = 0; round < ROUNDS; round++) {
      runs[0]?.push(await runFile(`embedded pool (${CORES} threads)`, pool));
      for (const workers of [1, 2]) {
        const prefix = uniquePrefix(`bench-${workers}w`);
        prefixes.push(prefix);
        const env = { REDIS_URL: redis.url, BULLMQ_PREFIX: prefix };
        for (let i = 0; i < workers; i++) await startWorker({ ...env, BULK_THREADS: String(WORKER_THREADS) });
        const config = loadConfig({ ...env, BULK_CHUNK_STUDENTS: String(CHUNK) });
        let fallbacks = 0;
        const fallback: ChunkRunner = {
          kind: 'pool',
          run: (t) => {
            fallbacks++;
            return pool.run(t);
          },
          close: async () => undefined,
        };
        const runner = createQueueRunner({ config, logger: silent, fallback });
        try {
          const label = `queue, ${workers} worker process${workers > 1 ? 'es' : ''}`;
          const r = await runFile(label, runner.forRequest('bench'), env);
          if (fallbacks > 0) r.label += ` (${fallbacks} chunks fell back to the local pool!)`;
          runs[workers]?.push(r);
        } finally {
          await runner.close();
          await killAll();
        }
      }
      console.log(
        `  round ${round + 1}/${ROUNDS}: ` +
          runs.map((r) => `${r[r.length - 1]?.label}: ${r[r.length - 1]?.seconds.toFixed(2)} s`).join(', '),
      );
    }
    const median = (rs: RunResult[]): RunResult => {
      const sorted = [...rs].sort((a, b) => a.seconds - b.seconds);
      return sorted[Math.floor(sorted.length / 2)] as RunResult;
    };
    for (const rs of runs) {
      const m = median(rs);
      // Identical only if every round of the mode gave the baseline's bytes.
      results.push({ ...m, sha256: rs.every((r) => r.sha256 === m.sha256) ? m.sha256 : 'differs' });
    }

    const base = results[0] as RunResult;
    console.log('');
    console.log(`Median of ${ROUNDS} interleaved round(s):`);
    console.log('| run | seconds | students/s | ratio to embedded | output identical |');
    console.log('|---|---:|---:|---:|---|');
    for (const r of results) {
      const rate = r.students / r.seconds;
      console.log(
        `| ${r.label} | ${r.seconds.toFixed(2)} | ${Math.round(rate).toLocaleString('en-US')} | ` +
          `${(rate / (base.students / base.seconds)).toFixed(2)}× | ${r.sha256 === base.sha256 && r.rows === base.rows ? 'yes' : 'NO'} |`,
      );
    }

    // Per-chunk Redis cost, with one real payload of CHUNK students.
    let payload = '';
    const grab: ChunkRunner = {
      kind: 'pool',
      async run(task) {
        if (!payload) payload = task.payload;
        return pool.run(task);
      },
      close: async () => undefined,
    };
    await runBulk({
      input: Readable.from(csvPieces(CHUNK, 42)),
      output: new Writable({ write: (_c, _e, cb) => cb() }),
      format: 'csv',
      runner: grab,
      config: loadConfig({ BULK_CHUNK_STUDENTS: String(CHUNK) }),
    });
    const cost = await chunkCost(redis.url, payload);
    const kib = (Buffer.byteLength(payload) / 1024).toFixed(0);
    console.log('');
    console.log(`Per-chunk Redis cost (payload ${kib} KiB = ${CHUNK} students, no-op worker, same Redis):`);
    console.log(`  one chunk at a time : ${(cost.queueMs - cost.localMs).toFixed(2)} ms per chunk round trip`);
    console.log(
      `  8 chunks in flight  : ${(cost.queueMsPipelined - cost.localMs).toFixed(2)} ms per chunk ` +
        `(${(((cost.queueMsPipelined - cost.localMs) * 1000) / CHUNK).toFixed(1)} µs per student)`,
    );
    const calcMsPerChunk = (base.seconds * 1000 * CORES) / (base.students / CHUNK);
    console.log(`  calculation itself  : ${calcMsPerChunk.toFixed(1)} ms of CPU per chunk (from the embedded run)`);
  } finally {
    await killAll();
    await pool.close();
    for (const prefix of prefixes) {
      const q = new Queue(QUEUE_NAME, { connection: { url: redis.url }, prefix });
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
      await deleteKeys(redis.url, prefix);
    }
    await redis.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
