/**
 * The pool runner: a piscina pool of worker threads (workers/calc.worker.ts), each running
 * `processChunkPayload`. The payload crosses the thread boundary as one string and the output comes back as one
 * string, so the pipeline's thread only parses, groups and writes.
 *
 * The worker file is resolved next to this module: workers/calc.worker.ts when running from source (Node strips
 * the types), dist/workers/calc.worker.js when running the build.
 */
import { Piscina } from 'piscina';
import type { ChunkOutcome, ChunkOutput, ChunkRunner, ChunkTask } from '../runner.ts';

export interface PoolRunnerOptions {
  /** Worker threads (BULK_THREADS). */
  threads: number;
}

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
  const pool = new Piscina<string, ChunkOutcome>({
    filename: calcWorkerUrl().href,
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: 1,
    // Threads stay up for the life of the process: no cold start on the next big file.
    idleTimeout: Number.POSITIVE_INFINITY,
  });
  let closing: Promise<void> | undefined;
  return {
    kind: 'pool',
    threads,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      if (closing !== undefined) throw new Error('the worker pool is closed');
      const outcome = await pool.run(task.payload);
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
