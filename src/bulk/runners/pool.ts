/**
 * The pool runner: a piscina pool of worker threads (pool-thread.ts, next to this file), each running
 * `processChunkPayload`. The payload crosses the thread boundary as shared UTF-8 bytes (or one string) and the
 * output comes back as transferred bytes (or one string), so the pipeline's thread only parses, groups and writes.
 *
 * The thread file is resolved next to this module: src/bulk/runners/pool-thread.ts when running from source (Node
 * strips the types), dist/src/bulk/runners/pool-thread.js when running the build.
 */
import { Piscina } from 'piscina';
import type { ResourceLimits } from 'node:worker_threads';
import type { ChunkOutcome, ChunkOutput, ChunkRunner, ChunkTask } from '../runner.ts';
import type { CalcTask } from './pool-thread.ts';
import { spareBuffers } from './spare-buffers.ts';

export interface PoolRunnerOptions {
  /** Worker threads (BULK_THREADS). */
  threads: number;
  /**
   * 'text' (default): outcomes carry `text`. 'bytes': outcomes carry UTF-8 `bytes` transferred from the thread
   * and `text: ''` — for the bulk pipeline, which writes them as they are.
   */
  output?: 'text' | 'bytes';
  /** V8 heap limits of each thread (default DEFAULT_THREAD_LIMITS). */
  resourceLimits?: ResourceLimits;
  /** Told about a thread that died outside a task (its task, if any, has been rejected already). */
  onThreadError?: (error: unknown) => void;
  /**
   * The module each thread runs (default: pool-thread next to this file, calcWorkerUrl()). Tests give one that
   * wraps it, to end a thread in the middle of a chunk.
   */
  threadModule?: URL;
}

/**
 * Recycled output buffers kept at most (each about one chunk's output, ~2 MB for 1,000 students): as many as the
 * chunks a run keeps in flight (BULK_MAX_INFLIGHT_CHUNKS' default), so a run in its steady state allocates none.
 * They are dropped once the pool has had no chunk for IDLE_SPARE_MS.
 */
const MAX_SPARE_BUFFERS = 8;
/** An idle pool drops its spare output buffers after this long. */
const IDLE_SPARE_MS = 2000;

/**
 * Heap limits of each worker thread. V8 sizes a thread's young generation from the machine's memory (over
 * 100 MB per thread on an ordinary server) although a chunk's working set is a few MB. 32 MB keeps the
 * scavenger cheap (measured: 16 MB costs about 15% more CPU, 48 MB gains nothing) while bounding memory. A V8 flag
 * wins over these limits: under npm start's `--max-semi-space-size=2` every thread's young generation is the main
 * thread's (read student by student, a chunk leaves it almost nothing that survives: docs/benchmarks.md). A thread
 * needs the heap of one student (payload-reader.ts reads a chunk student by student), far below the old
 * generation's cap. The cap is a backstop against a defect, not a way to refuse work: Node ends a thread at its
 * heap limit only on a best-effort basis (an allocation that cannot fit aborts the whole process), so nothing may
 * rely on reaching it. A thread that dies otherwise fails its chunk alone (error rows) and piscina starts a new one.
 */
export const DEFAULT_THREAD_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 32, maxOldGenerationSizeMb: 128 };

export interface PoolRunner extends ChunkRunner {
  readonly kind: 'pool';
  readonly threads: number;
  /** Runs an empty chunk through a thread (proves the pool answers), unless chunks are already queued. */
  ping(timeoutMs?: number): Promise<void>;
}

/** URL of the worker module matching how this module runs (source .ts or built .js). */
export function calcWorkerUrl(): URL {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./pool-thread${ext}`, import.meta.url);
}

const PING_PAYLOAD =
  '{"v":1,"f":"csv","h":["student_id","term_label","full_time_credits","credits_enrolled","dependency_status"],"s":[]}';

export function createPoolRunner(options: PoolRunnerOptions): PoolRunner {
  const threads = Math.max(1, Math.floor(options.threads));
  const asBytes = options.output === 'bytes';
  /** Output buffers the pipeline has finished writing, lent to the next chunks (bounds memory, spares the GC). */
  const spare = spareBuffers(MAX_SPARE_BUFFERS);
  const pool = new Piscina<CalcTask, ChunkOutcome>({
    filename: (options.threadModule ?? calcWorkerUrl()).href,
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: 1,
    // Threads stay up for the life of the process: no cold start on the next big file.
    idleTimeout: Number.POSITIVE_INFINITY,
    resourceLimits: options.resourceLimits ?? DEFAULT_THREAD_LIMITS,
  });
  // A thread that dies (heap limit, exit) rejects the task it was running, and piscina starts a new thread. When
  // the thread reports its death twice (an 'error' and then its exit), piscina emits the second on the pool as an
  // 'error' event; without a listener that event would throw and take the whole process down.
  pool.on('error', (error: unknown) => options.onThreadError?.(error));
  let closing: Promise<void> | undefined;
  let running = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  const settled = () => {
    running--;
    if (running > 0) return; // (the outputs of the last chunks are released after this, as they are written)
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (running === 0) spare.clear();
    }, IDLE_SPARE_MS).unref();
  };
  return {
    kind: 'pool',
    threads,
    inflightLimit: Math.max(4, 2 * threads),
    async run(task: ChunkTask): Promise<ChunkOutput> {
      if (closing !== undefined) throw new Error('the worker pool is closed');
      // Payload bytes on a SharedArrayBuffer reach the thread without a copy; else the string is cloned.
      const input = task.payloadBytes === undefined ? { payload: task.payload } : { payloadBytes: task.payloadBytes };
      if (!asBytes) return { index: task.index, ...(await pool.run(input)) };
      const lent = spare.take();
      running++;
      let outcome: ChunkOutcome;
      try {
        outcome = await pool.run(
          { ...input, bytes: true, buffer: lent },
          lent === undefined ? undefined : { transferList: [lent] },
        );
      } finally {
        settled();
      }
      return {
        index: task.index,
        ...outcome,
        release: spare.releaser(outcome.bytes!.buffer as ArrayBuffer, () => closing === undefined),
      };
    },
    async ping(timeoutMs = 5000): Promise<void> {
      if (closing !== undefined) throw new Error('the worker pool is closed');
      // Tasks waiting means the threads are busy with chunks: alive. Queueing a ping behind a large file would
      // only make readiness flap under load.
      if (pool.queueSize > 0) return;
      await pool.run(PING_PAYLOAD, { signal: AbortSignal.timeout(timeoutMs) });
    },
    close(): Promise<void> {
      closing ??= pool.destroy();
      return closing;
    },
  };
}
