/**
 * The pool runner: a piscina pool of worker threads (workers/calc.worker.ts), each running
 * `processChunkPayload`. The payload crosses the thread boundary as one string and the output comes back as one
 * string, so the pipeline's thread only parses, groups and writes.
 *
 * The worker file is resolved next to this module: workers/calc.worker.ts when running from source (Node strips
 * the types), dist/workers/calc.worker.js when running the build.
 */
import { Piscina } from 'piscina';
import type { ResourceLimits } from 'node:worker_threads';
import type { ChunkOutcome, ChunkOutput, ChunkRunner, ChunkTask } from '../runner.ts';
import type { CalcTask } from '../../../workers/calc.worker.ts';

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
}

/**
 * Heap limits of each worker thread. V8 sizes a thread's young generation from the machine's memory (over
 * 100 MB per thread on an ordinary server) although a chunk's working set is a few MB; a small young generation
 * keeps the process's memory flat. The old-generation cap only stops a runaway thread (a chunk holds at most
 * MAX_CHUNK_CHARS of cells): a thread that hits it dies and its chunk becomes error rows.
 */
export const DEFAULT_THREAD_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 256 };

export interface PoolRunner extends ChunkRunner {
  readonly kind: 'pool';
  readonly threads: number;
  /** Runs an empty chunk through a thread: proves the pool answers (readiness). */
  ping(timeoutMs?: number): Promise<void>;
}

/** URL of the worker module matching how this module runs (source .ts or built .js). */
export function calcWorkerUrl(): URL {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`../../../workers/calc.worker${ext}`, import.meta.url);
}

const PING_PAYLOAD =
  '{"v":1,"f":"csv","h":["student_id","term_label","full_time_credits","credits_enrolled","dependency_status"],"s":[]}';

export function createPoolRunner(options: PoolRunnerOptions): PoolRunner {
  const threads = Math.max(1, Math.floor(options.threads));
  const asBytes = options.output === 'bytes';
  const pool = new Piscina<CalcTask, ChunkOutcome>({
    filename: calcWorkerUrl().href,
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: 1,
    // Threads stay up for the life of the process: no cold start on the next big file.
    idleTimeout: Number.POSITIVE_INFINITY,
    resourceLimits: options.resourceLimits ?? DEFAULT_THREAD_LIMITS,
  });
  let closing: Promise<void> | undefined;
  return {
    kind: 'pool',
    threads,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      if (closing !== undefined) throw new Error('the worker pool is closed');
      const outcome = await pool.run(asBytes ? { payload: task.payload, bytes: true } : task.payload);
      return { index: task.index, ...outcome };
    },
    async ping(timeoutMs = 5000): Promise<void> {
      if (closing !== undefined) throw new Error('the worker pool is closed');
      const signal = AbortSignal.timeout(timeoutMs);
      await pool.run(PING_PAYLOAD, { signal });
    },
    close(): Promise<void> {
      closing ??= pool.destroy();
      return closing;
    },
  };
}
