/**
 * The one runner interface of the bulk pipeline (architecture.md: "one runner interface, three
 * implementations"). The pipeline in src/bulk hands a runner one chunk of students at a time and never knows
 * whether the chunk runs inline, on a piscina thread or on a BullMQ worker process on another machine.
 *
 * A chunk crosses every boundary (thread, queue, process) as ONE compact string (`payload`), built and read
 * only by src/bulk (see process-chunk.ts). Runners treat it as opaque bytes.
 */

import type { CheckSummary } from './shadow-summary.ts';
import type { ResultStats } from './result-stats.ts';

export type RunnerKind = 'inline' | 'pool' | 'queue';

export interface ChunkTask {
  /** 0-based position of the chunk in its file; the reorder buffer writes chunks strictly in this order. */
  index: number;
  /** Opaque, self-contained description of the chunk's students (format, columns, cells). */
  payload: string;
  /**
   * Optional: the same payload as UTF-8 bytes, on a SharedArrayBuffer the pipeline reuses once the chunk's
   * outcome is in (never read it after `run` settles). The pipeline's tasks carry it and decode `payload` only
   * when a runner reads it (a getter); the pool runner hands these bytes to its thread without a copy.
   */
  payloadBytes?: Uint8Array;
  /**
   * The identity of the bulk run (one request or one async job) the chunk belongs to: a random id minted by
   * runBulk (run-id.ts) and carried by every chunk of that run, so a runner that names things per run (the
   * queue runner's chunk job ids) needs no per-request copy of itself. Not derived from the request or job id.
   * Absent when a chunk is run on its own (tests, benchmarks): the runner then treats it as a run of one chunk.
   */
  runId?: string;
}

/** What processing a chunk's payload yields; identical whichever runner produced it. */
export interface ChunkOutcome {
  /** The chunk's output, ready to write: CSV lines or NDJSON lines, each ending in "\n". */
  text: string;
  /**
   * Optional: the same output already encoded as UTF-8, in which case `text` is ''. The pool runner returns
   * bytes when created with `output: 'bytes'` (the buffer is transferred from the thread, not copied, and the
   * pipeline's thread writes it without encoding); consumers that need text use `outcomeText()` (pipeline.ts).
   */
  bytes?: Uint8Array;
  /** Input data rows accounted for (CSV output writes exactly this many lines). */
  rows: number;
  /** Rows whose row_status is error. */
  errorRows: number;
  students: number;
  /**
   * Files with sis_* columns: the chunk's shadow-check counts (src/bulk/shadow-summary.ts), added up on the
   * pipeline's thread. An outcome without them (a chunk that could not be run) is counted from its output.
   */
  checks?: CheckSummary;
  /**
   * What the chunk's results add up to (src/bulk/result-stats.ts): every outcome of process-chunk.ts has them; a
   * runner that does not report them (a test's stand-in) leaves the run's summary without that chunk.
   */
  stats?: ResultStats;
  /**
   * A job's chunk (payload `o`): the output holds three sections, in bytes: the CSV rows, the NDJSON lines and
   * the CSV's error rows, of these lengths (then `bytes` is set and `text` is '').
   */
  parts?: [number, number, number];
}

export interface ChunkOutput extends ChunkOutcome {
  index: number;
  /**
   * Optional: hands `bytes`' buffer back to the runner for reuse. The pipeline calls it once the output stream
   * has consumed the bytes (its write callback), and only when the caller allowed it (`recycleOutput`), because a
   * Writable that keeps written chunks (collects them) would see them overwritten.
   */
  release?(): void;
}

export interface ChunkRunner {
  readonly kind: RunnerKind;
  /**
   * Optional: the most chunks of one run worth having in flight on this runner; the pipeline keeps at most this
   * many and BULK_MAX_INFLIGHT_CHUNKS. A pool of threads says twice its threads: one computing and one done per
   * thread keep every thread busy, and each chunk in flight holds its output buffer (~2 MB).
   */
  readonly inflightLimit?: number;
  /**
   * Runs one chunk. Rejects only when the chunk could not be run at all (pool closed, queue timeout after
   * retries); bad student data never rejects: it becomes error rows inside `text`.
   */
  run(task: ChunkTask): Promise<ChunkOutput>;
  /** Releases threads, connections and timers. Idempotent. */
  close(): Promise<void>;
}
