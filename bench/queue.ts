/**
 * npm run bench:queue [-- --students N] [--worker-threads T[,T…]] [--chunk S] [--rounds R] [--prefetch P[,P…]]
 *                       [--workers W[,W…]] [--worker-flag-modes "FLAGS[;FLAGS…]"] [--baseline DIR] [--help]
 *
 * The same generated file (N students, default 200,000) through the bulk pipeline several ways, in this one run:
 *   1. embedded: the in-process piscina pool (BULK_THREADS = cores), the default without Redis  ← the baseline
 *   2. queue, 1 worker process   (QUEUE_WORKER_THREADS = the first --worker-threads value, default 0: the worker
 *                                 computes on its own thread)
 *   3. queue, 2 worker processes (the same), then one mode per further --prefetch value (QUEUE_WORKER_PREFETCH)
 *      and per further --worker-threads value (default 1: a 1-thread pool in each worker), and per flag set of
 *      --worker-flag-modes (Node flags of the workers, e.g. a heap setting)
 *   4. with --baseline DIR: queue, 2 worker processes running DIR's queue code (another checkout of this
 *      repository with its node_modules: its workers/queue.worker.ts and src/queue/queue-runner.ts), to compare
 *      a change against the code before it in the same run
 * Modes are interleaved for R rounds (default 3) and the median is reported, so load from other processes on
 * the machine hits every mode alike. Prints students/s and the ratio to the embedded run, checks that the outputs
 * are byte-identical (sha256), then measures the per-chunk Redis cost: one real chunk payload sent through the
 * queue to a worker that does no calculation, against the same chunk handed to a local no-op runner.
 *
 * Then (--kill-rounds, default 1; --only-kill for that alone) what a worker SIGKILLed mid-file costs: a 50,000-student
 * file through two fresh workers, undisturbed and with one killed (bench/support/queue-kill.ts).
 *
 * Redis: REDIS_URL, else a throwaway `redis-server` on a free port. Keys live under a unique prefix, deleted
 * at the end. Ratios, not wall-clock thresholds: compare runs on the same machine only.
 */
import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pino from 'pino';
import { runBulk } from '../src/bulk/pipeline.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../src/bulk/runner.ts';
import { createPoolRunner } from '../src/bulk/runners/pool.ts';
import { loadConfig } from '../src/config.ts';
import { startChunkWorker } from '../src/queue/chunk-worker.ts';
import { createQueueRunner } from '../src/queue/queue-runner.ts';
import { QUEUE_NAME } from '../src/queue/settings.ts';
import { benchArgs } from './support/args.ts';
import { randomFilePieces } from './support/random-file.ts';
import { deleteKeys } from '../test/support/redis-keys.ts';
import { benchRedis, uniquePrefix } from './support/redis.ts';
import { killWorkers, startWorker } from './support/workers.ts';
import { killCost } from './support/queue-kill.ts';

/** The chunk signing key of this run (the API and the workers must share one; see QUEUE_SIGNING_KEY). */
const BENCH_SIGNING_KEY = randomBytes(32).toString('hex');

const args = benchArgs('npm run bench:queue --', {
  students: { type: 'number', default: 200_000, help: 'students in the generated file' },
  'worker-threads': {
    type: 'string',
    default: '0,1',
    help: 'QUEUE_WORKER_THREADS of each worker process (0: computes on its own thread); a list (0,1) adds modes',
  },
  chunk: { type: 'number', default: 1000, help: 'students per chunk (BULK_CHUNK_STUDENTS)' },
  rounds: { type: 'number', default: 3, help: 'interleaved rounds; the median is reported' },
  prefetch: { type: 'string', default: '0', help: 'QUEUE_WORKER_PREFETCH of the workers; a list (0,1,2) adds modes' },
  workers: { type: 'string', default: '1,2', help: 'worker processes of each queue mode, a list' },
  baseline: { type: 'string', default: '', help: 'another checkout: its queue code runs as an extra mode' },
  'kill-rounds': {
    type: 'number',
    default: 1,
    min: 0,
    help: 'rounds of the SIGKILL measurement (a 50,000-student file, one of two workers killed mid-file; 0: none)',
  },
  'kill-students': { type: 'number', default: 50_000, help: 'students in the file of the SIGKILL measurement' },
  'only-kill': { type: 'boolean', default: false, help: 'run only the SIGKILL measurement' },
  'worker-node-args': {
    type: 'string',
    default: '',
    help: 'Node flags of the worker processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (then stopped by SIGTERM)',
  },
  'worker-flag-modes': {
    type: 'string',
    default: '',
    help: 'more Node flags, a mode each (the largest worker count), separated by ";", e.g. "--max-semi-space-size=16"',
  },
});
function numberList(name: string, text: string): number[] {
  const values = text.split(',').map((v) => Number(v.trim()));
  if (values.length === 0 || values.some((v) => !Number.isInteger(v) || v < 0)) {
    console.error(`--${name} must be a comma list of whole numbers (got ${JSON.stringify(text)})`);
    process.exit(2);
  }
  return values;
}
const STUDENTS = args.students;
const WORKER_THREADS = numberList('worker-threads', args['worker-threads']);
const CHUNK = args.chunk;
const ROUNDS = args.rounds;
const WARMUP = Math.min(STUDENTS, 30_000);
const PREFETCHES = numberList('prefetch', args.prefetch);
const WORKER_COUNTS = numberList('workers', args.workers).filter((n) => n > 0);
const BASELINE = args.baseline === '' ? undefined : resolve(args.baseline) + '/';
/** Node flags of the workers; with any, workers are stopped gracefully (SIGTERM) so a --cpu-prof is written. */
const WORKER_NODE_ARGS = args['worker-node-args'].split(' ').filter((a) => a !== '');
const stopWorkers = () => killWorkers(WORKER_NODE_ARGS.length === 0 ? 'SIGKILL' : 'SIGTERM');
/** Further flag sets of the workers (added to WORKER_NODE_ARGS), a queue mode each, to compare heap settings. */
const FLAG_MODES = args['worker-flag-modes']
  .split(';')
  .map((set) => set.split(' ').filter((a) => a !== ''))
  .filter((set) => set.length > 0);
/** The file: seeded, 2% invalid students so error rows travel the queue too. */
const file = (students: number) => randomFilePieces({ students, seed: 42, invalidShare: 0.02 });
const CORES = availableParallelism();
const silent = pino({ level: 'silent' });

interface RunResult {
  label: string;
  seconds: number;
  /** CPU seconds spent by every process of the run (this one, the workers, the Redis server). */
  cpuSeconds: number;
  split: CpuSample;
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

const CLK_TCK = 100;

/** user + system CPU seconds of a process, from /proc (0 where /proc is not available). */
function procCpu(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}

async function redisCpu(url: string): Promise<number> {
  const client = new Redis(url);
  try {
    const info = await client.info('cpu');
    const get = (k: string) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return get('used_cpu_sys') + get('used_cpu_user');
  } finally {
    client.disconnect();
  }
}

/**
 * user + system CPU seconds of a process's main thread and of its V8 platform threads (named V8Worker: parallel
 * scavenges, concurrent marking and sweeping for every isolate of the process), from /proc (0 where it is not
 * available). The rest of a process's CPU is its worker threads' (the calculation).
 */
function threadCpu(pid: number): { main: number; gc: number } {
  const cpu = { main: 0, gc: 0 };
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return cpu;
  }
  for (const tid of tids) {
    try {
      const main = tid === String(pid);
      if (!main && readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() !== 'V8Worker') continue;
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu[main ? 'main' : 'gc'] += (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
    } catch {
      // the thread ended
    }
  }
  return cpu;
}

interface CpuSample {
  api: number;
  workers: number;
  redis: number;
  /** Of api and workers: their main threads and their V8Worker (GC helper) threads. */
  apiMain: number;
  apiGc: number;
  workersMain: number;
  workersGc: number;
}

/** CPU of this process (all its threads), the given child processes and Redis: a load-independent cost. */
async function cpuNow(pids: number[], redisUrl: string | undefined): Promise<CpuSample> {
  const self = process.cpuUsage();
  let workers = 0;
  let workersMain = 0;
  let workersGc = 0;
  for (const pid of pids) {
    workers += procCpu(pid);
    const t = threadCpu(pid);
    workersMain += t.main;
    workersGc += t.gc;
  }
  const api = threadCpu(process.pid);
  return {
    api: (self.user + self.system) / 1e6,
    workers,
    redis: redisUrl ? await redisCpu(redisUrl) : 0,
    apiMain: api.main,
    apiGc: api.gc,
    workersMain,
    workersGc,
  };
}

async function runFile(
  label: string,
  runner: ChunkRunner,
  extraEnv: Record<string, string> = {},
  cpu: { pids: number[]; redisUrl?: string } = { pids: [] },
  students = STUDENTS,
): Promise<RunResult> {
  const hash = createHash('sha256');
  const output = new Writable({
    write(chunk: Buffer, _e, cb) {
      hash.update(chunk);
      cb();
    },
  });
  const config = loadConfig({ BULK_CHUNK_STUDENTS: String(CHUNK), BULK_SYNC_MAX_ROWS: '0', ...extraEnv });
  const cpuBefore = await cpuNow(cpu.pids, cpu.redisUrl);
  const started = performance.now();
  let last = 0;
  const summary = await runBulk({
    input: Readable.from(file(students)),
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
  const cpuAfter = await cpuNow(cpu.pids, cpu.redisUrl);
  const split = {
    api: cpuAfter.api - cpuBefore.api,
    workers: cpuAfter.workers - cpuBefore.workers,
    redis: cpuAfter.redis - cpuBefore.redis,
    apiMain: cpuAfter.apiMain - cpuBefore.apiMain,
    apiGc: cpuAfter.apiGc - cpuBefore.apiGc,
    workersMain: cpuAfter.workersMain - cpuBefore.workersMain,
    workersGc: cpuAfter.workersGc - cpuBefore.workersGc,
  };
  const cpuSeconds = split.api + split.workers + split.redis;
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  return {
    label,
    seconds,
    cpuSeconds,
    split,
    students: summary.students,
    rows: summary.rows,
    sha256: hash.digest('hex'),
  };
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
  const config = loadConfig({
    REDIS_URL: redisUrl,
    BULLMQ_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    QUEUE_SIGNING_KEY: BENCH_SIGNING_KEY,
  });
  const worker = startChunkWorker({ config, logger: silent, runner: noopRunner, concurrency: 8 });
  const runner = createQueueRunner({ config, logger: silent, fallback: noopRunner });
  try {
    await worker.ready();
    const bound = runner;
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
  const redis = await benchRedis();
  const prefixes: string[] = [];
  const pool = createPoolRunner({ threads: CORES, output: 'bytes' });
  const results: RunResult[] = [];
  console.log(
    `bench:queue — ${STUDENTS.toLocaleString('en-US')} students, chunks of ${CHUNK}, ${CORES} cores, ` +
      `Redis ${redis.url}, worker processes with QUEUE_WORKER_THREADS ${WORKER_THREADS.join(' / ')}` +
      (BASELINE ? `, baseline ${BASELINE}` : ''),
  );
  const kill = () =>
    killCost({
      redisUrl: redis.url,
      signingKey: BENCH_SIGNING_KEY,
      students: args['kill-students'],
      chunk: CHUNK,
      rounds: args['kill-rounds'],
      pool,
      logger: silent,
      onPrefix: (prefix) => prefixes.push(prefix),
    });
  try {
    if (args['only-kill']) {
      await kill();
      return;
    }
    // Each mode is set up once (workers stay up, like in production) and warmed up with an untimed run, so no
    // mode pays V8's JIT warm-up inside a timed run. Then interleaved rounds (embedded, 1 worker, 2 workers,
    // embedded, ...): load from other processes on the machine hits every mode alike.
    interface Mode {
      label: string;
      runner: ChunkRunner;
      env: Record<string, string>;
      pids: number[];
      fallbacks: () => number;
      close(): Promise<void>;
    }
    const modes: Mode[] = [
      {
        label: `embedded pool (${CORES} threads)`,
        runner: pool,
        env: {},
        pids: [],
        fallbacks: () => 0,
        close: async () => undefined,
      },
    ];
    // One queue mode per worker count (the first --prefetch and --worker-threads values), one per further prefetch
    // value and one per further thread count (the largest worker count), then the baseline's code with the largest
    // worker count.
    const most = Math.max(...WORKER_COUNTS);
    const prefetch0 = PREFETCHES[0] ?? 0;
    const threads0 = WORKER_THREADS[0] ?? 0;
    const queueModes: { workers: number; prefetch: number; threads: number; root?: string; flags?: string[] }[] =
      WORKER_COUNTS.map((workers) => ({ workers, prefetch: prefetch0, threads: threads0 }));
    for (const prefetch of PREFETCHES.slice(1)) queueModes.push({ workers: most, prefetch, threads: threads0 });
    for (const threads of WORKER_THREADS.slice(1)) queueModes.push({ workers: most, prefetch: prefetch0, threads });
    for (const flags of FLAG_MODES) queueModes.push({ workers: most, prefetch: prefetch0, threads: threads0, flags });
    if (BASELINE) queueModes.push({ workers: most, prefetch: prefetch0, threads: threads0, root: BASELINE });
    for (const { workers, prefetch, threads, root, flags = [] } of queueModes) {
      const prefix = uniquePrefix(`bench-${workers}w`);
      prefixes.push(prefix);
      const env = { REDIS_URL: redis.url, BULLMQ_PREFIX: prefix, QUEUE_SIGNING_KEY: BENCH_SIGNING_KEY };
      const pids: number[] = [];
      for (let i = 0; i < workers; i++) {
        // BULK_THREADS too, for a baseline checkout that predates QUEUE_WORKER_THREADS (it needs at least 1).
        const workerEnv = {
          ...env,
          QUEUE_WORKER_THREADS: String(threads),
          BULK_THREADS: String(Math.max(1, threads)),
          QUEUE_WORKER_PREFETCH: String(prefetch),
        };
        pids.push(await startWorker(workerEnv, undefined, root, [...WORKER_NODE_ARGS, ...flags]));
      }
      let fallbacks = 0;
      const fallback: ChunkRunner = {
        kind: 'pool',
        run: (t) => {
          fallbacks++;
          return pool.run(t);
        },
        close: async () => undefined,
      };
      const create: typeof createQueueRunner = root
        ? ((await import(`${root}src/queue/queue-runner.ts`)) as { createQueueRunner: typeof createQueueRunner })
            .createQueueRunner
        : createQueueRunner;
      const runner = create({
        config: loadConfig({ ...env, BULK_CHUNK_STUDENTS: String(CHUNK) }),
        logger: silent,
        fallback,
      });
      const label =
        `queue, ${workers} worker process${workers > 1 ? 'es' : ''}` +
        (PREFETCHES.length > 1 ? `, prefetch ${prefetch}` : '') +
        (WORKER_THREADS.length > 1 ? (threads === 0 ? ', no pool' : `, ${threads}-thread pool`) : '') +
        (flags.length > 0 ? `, ${flags.join(' ')}` : '') +
        (root ? ' (baseline code)' : '');
      modes.push({
        label,
        runner: runner,
        env,
        pids,
        fallbacks: () => fallbacks,
        close: () => runner.close(),
      });
    }
    const runs: RunResult[][] = modes.map(() => []);
    try {
      for (const mode of modes) await runFile(`${mode.label} (warm-up)`, mode.runner, mode.env, undefined, WARMUP);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, mode] of modes.entries()) {
          const before = mode.fallbacks();
          const r = await runFile(mode.label, mode.runner, mode.env, { pids: mode.pids, redisUrl: redis.url });
          if (mode.fallbacks() > before)
            r.label += ` (${mode.fallbacks() - before} chunks fell back to the local pool!)`;
          runs[i]?.push(r);
        }
        console.log(
          `  round ${round + 1}/${ROUNDS}: ` +
            runs.map((r) => `${r[r.length - 1]?.label}: ${r[r.length - 1]?.seconds.toFixed(2)} s`).join(', '),
        );
      }
    } finally {
      for (const mode of modes) await mode.close();
      await stopWorkers();
    }
    const median = (rs: RunResult[], by: (r: RunResult) => number): RunResult => {
      const sorted = [...rs].sort((a, b) => by(a) - by(b));
      return sorted[Math.floor(sorted.length / 2)] as RunResult;
    };
    for (const rs of runs) {
      const m = median(rs, (r) => r.seconds);
      // The CPU figures are those of the mode's median round by CPU: the round of median wall time may be one
      // that other load on the machine slowed without changing its CPU, or the other way round.
      const c = median(rs, (r) => r.cpuSeconds);
      // Identical only if every round of the mode gave the baseline's bytes.
      results.push({
        ...m,
        cpuSeconds: c.cpuSeconds,
        split: c.split,
        sha256: rs.every((r) => r.sha256 === m.sha256) ? m.sha256 : 'differs',
      });
    }

    const base = results[0] as RunResult;
    console.log('');
    console.log(`Median of ${ROUNDS} interleaved round(s):`);
    console.log(
      '| run | seconds | students/s | ratio to embedded | CPU ms / 1000 students | CPU cost ratio | output identical |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---|');
    for (const r of results) {
      const rate = r.students / r.seconds;
      const cpuPerK = (r.cpuSeconds * 1e6) / r.students;
      const baseCpuPerK = (base.cpuSeconds * 1e6) / base.students;
      console.log(
        `| ${r.label} | ${r.seconds.toFixed(2)} | ${Math.round(rate).toLocaleString('en-US')} | ` +
          `${(rate / (base.students / base.seconds)).toFixed(2)}× | ${cpuPerK.toFixed(0)} | ` +
          `${(cpuPerK / baseCpuPerK).toFixed(2)}× | ${r.sha256 === base.sha256 && r.rows === base.rows ? 'yes' : 'NO'} |`,
      );
    }
    console.log(
      'CPU = user+system seconds of the API process, the worker processes and the Redis server during the run ' +
        "(the mode's median round by CPU): unlike wall time it does not depend on other load on the machine. " +
        'Split per 1000 students:',
    );
    for (const r of results) {
      const k = 1e6 / r.students;
      console.log(
        `  ${r.label}: API process ${(r.split.api * k).toFixed(1)} ms (main thread ${(r.split.apiMain * k).toFixed(1)}, ` +
          `GC helper threads ${(r.split.apiGc * k).toFixed(1)}), workers ${(r.split.workers * k).toFixed(1)} ms ` +
          `(main threads ${(r.split.workersMain * k).toFixed(1)}, GC helper threads ${(r.split.workersGc * k).toFixed(1)}), ` +
          `Redis ${(r.split.redis * k).toFixed(1)} ms`,
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
      input: Readable.from(file(CHUNK)),
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
    const calcMsPerChunk = (base.cpuSeconds * 1000) / (base.students / CHUNK);
    console.log(`  whole embedded run  : ${calcMsPerChunk.toFixed(1)} ms of CPU per chunk (parse, calculate, write)`);
    if (args['kill-rounds'] > 0) await kill();
  } finally {
    await stopWorkers();
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
