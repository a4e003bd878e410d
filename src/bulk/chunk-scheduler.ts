/**
 * The chunk scheduler of the bulk pipeline (pipeline.ts): runs chunks on the runner with at most `maxInflight`
 * of them between submission and the end of their write, and writes their outputs strictly in index order
 * through the reorder buffer. A chunk whose runner rejects, or returns another number of rows or students than
 * it was given, is written as internal_error rows instead: never a missing row.
 *
 * An async job's run (`sections`) writes each chunk's three outputs (ChunkOutcome.parts: CSV rows, NDJSON lines,
 * error rows) to three outputs; each chunk's result stats (result-stats.ts) are added up into the progress.
 */
import type { Writable } from 'node:stream';
import type { ChunkOutcome, ChunkRunner, ChunkTask } from './runner.ts';
import { ReorderBuffer } from './reorder-buffer.ts';
import { failedChunkOutcome } from './process-chunk.ts';
import { payloadText } from './chunk-payload.ts';
import type { CheckSummary, CheckTally } from './shadow-summary.ts';
import { addResultStats, type ResultStats } from './result-stats.ts';
import { abortReason, OutputClosedError, safely, waitDrain } from './output-writes.ts';

/** Message of the error rows of a chunk that could not be run (shown to the client: no internals). */
export const FAILED_CHUNK_MESSAGE =
  'not calculated: this group of students could not be processed (the calculation worker failed); resubmit these students';

export interface BulkProgress {
  /** Input bytes read so far. */
  bytes: number;
  /** Output rows written so far (one per input data row; NDJSON: rows of the students written). */
  rows: number;
  errorRows: number;
  students: number;
  chunks: number;
  /** The shadow check's counts so far, when the file has sis_* columns (src/bulk/shadow-summary.ts). */
  checks?: CheckSummary;
  /**
   * What the results written so far add up to (src/bulk/result-stats.ts). The run's own running totals, shared
   * by every progress report: copy them (copyResultStats) to keep them.
   */
  stats?: ResultStats;
}

/** The outputs of an async job's run: the CSV result, the NDJSON result and the errors-only CSV. */
export interface JobOutputs {
  csv: Writable;
  ndjson: Writable;
  errors: Writable;
}

/**
 * Runs chunks with at most `maxInflight` of them between submission and the end of their write, and writes
 * their outputs in index order.
 */
export interface SchedulerOptions {
  runner: ChunkRunner;
  output: Writable;
  maxInflight: number;
  signal: AbortSignal | undefined;
  onProgress: ((p: BulkProgress) => void) | undefined;
  onChunkError: ((error: unknown, index: number) => void) | undefined;
  recycleOutput: boolean;
  /** The run's identity, carried by each chunk (ChunkTask.runId). */
  runId: string;
  checks: CheckTally | undefined;
  /** Gets each chunk's payload bytes back once its outcome is in (ChunkBuilder.recycle). */
  recyclePayload?: (payload: Uint8Array) => void;
  /** An async job's run: each chunk's three sections go to these (`output` is then not written). */
  sections?: JobOutputs;
}

/**
 * The task of a chunk: its payload bytes, and the payload string decoded from them only if a runner reads it (the
 * queue runner does; the pool and inline runners do not need to).
 */
function chunkTask(index: number, payloadBytes: Uint8Array, runId: string): ChunkTask {
  let text: string | undefined;
  return {
    index,
    runId,
    payloadBytes,
    get payload(): string {
      text ??= payloadText(payloadBytes);
      return text;
    },
  };
}

/** A job's chunk outcome: UTF-8 bytes in three sections whose lengths add up to the bytes. */
function hasSections(out: ChunkOutcome): boolean {
  const { bytes, parts } = out;
  return bytes !== undefined && parts !== undefined && parts[0] + parts[1] + parts[2] === bytes.length;
}

export class ChunkScheduler {
  private inflight = 0;
  private nextIndex = 0;
  private readonly reorder = new ReorderBuffer<ChunkOutcome & { release?(): void }>();
  private writing = false;
  private waiters: (() => void)[] = [];
  private failure: { error: unknown } | undefined;
  private readonly opts: SchedulerOptions;
  readonly progress: BulkProgress;

  constructor(opts: SchedulerOptions, progress: BulkProgress) {
    this.opts = opts;
    this.progress = progress;
    const { signal } = opts;
    if (signal !== undefined) signal.addEventListener('abort', () => this.fail(abortReason(signal)), { once: true });
  }

  private fail(error: unknown): void {
    this.failure ??= { error };
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }

  /** Waits for a free slot, then starts the chunk. Throws once the pipeline has failed. */
  async submit(payload: Uint8Array, rows: number, students: number): Promise<void> {
    while (this.inflight >= this.opts.maxInflight && this.failure === undefined) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.throwIfFailed();
    const index = this.nextIndex++;
    this.inflight++;
    let run: Promise<ChunkOutcome & { release?(): void }>;
    const task = chunkTask(index, payload, this.opts.runId);
    try {
      run = this.opts.runner.run(task);
    } catch (error) {
      run = Promise.reject(error);
    }
    run
      .then((out) => {
        if (out.rows !== rows || out.students !== students) {
          throw new Error(
            `runner returned ${out.rows} rows / ${out.students} students for chunk ${index} (expected ${rows} / ${students})`,
          );
        }
        if (this.opts.sections !== undefined && !hasSections(out)) {
          throw new Error(`runner returned chunk ${index} without the outputs of a job`);
        }
        return out;
      })
      .catch((error: unknown) => {
        this.opts.onChunkError?.(error, index);
        return failedChunkOutcome(task.payload, FAILED_CHUNK_MESSAGE);
      })
      .then(
        (out) => {
          this.opts.recyclePayload?.(payload); // the runner is done with it, and so is the failure path
          this.reorder.put(index, out);
          void this.pump();
        },
        (error: unknown) => this.fail(error),
      );
  }

  /** Writes every chunk that is next in order, awaiting 'drain' between writes. */
  private async pump(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      for (let out = this.reorder.take(); out !== undefined; out = this.reorder.take()) {
        if (this.failure !== undefined) return;
        const release = this.opts.recycleOutput ? out.release : undefined;
        if (this.opts.sections === undefined) await this.write(out, release);
        else await this.writeSections(out, this.opts.sections, release);
        const p = this.progress;
        p.rows += out.rows;
        p.errorRows += out.errorRows;
        p.students += out.students;
        p.chunks++;
        if (this.opts.checks !== undefined) p.checks = this.opts.checks.summary();
        if (p.stats !== undefined && out.stats !== undefined) addResultStats(p.stats, out.stats);
        this.inflight--;
        this.wake();
        this.opts.onProgress?.({ ...p });
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.writing = false;
    }
  }

  private async write(out: ChunkOutcome & { release?(): void }, release: (() => void) | undefined): Promise<void> {
    const { output } = this.opts;
    if (output.destroyed || output.writableEnded) throw new OutputClosedError();
    const data = out.bytes ?? out.text;
    this.opts.checks?.add(out); // before the bytes can be handed back for reuse
    const ok =
      data.length === 0 ||
      (release === undefined ? output.write(data) : output.write(data, () => safely(() => release.call(out))));
    if (!ok) await waitDrain(output, this.opts.signal);
  }

  /** A job's chunk: its CSV rows, NDJSON lines and error rows to their outputs; its buffer released after all three. */
  private async writeSections(
    out: ChunkOutcome & { release?(): void },
    sections: JobOutputs,
    release: (() => void) | undefined,
  ): Promise<void> {
    const bytes = out.bytes!;
    const [csv, ndjson] = out.parts!;
    const views = [bytes.subarray(0, csv), bytes.subarray(csv, csv + ndjson), bytes.subarray(csv + ndjson)] as const;
    const outputs = [sections.csv, sections.ndjson, sections.errors] as const;
    if (outputs.some((o) => o.destroyed || o.writableEnded)) throw new OutputClosedError();
    this.opts.checks?.add({ text: '', bytes: views[0], checks: out.checks }); // read from the CSV rows if need be
    let pending = 3;
    const written = () => {
      if (--pending === 0 && release !== undefined) safely(() => release.call(out));
    };
    const full: Writable[] = [];
    for (let i = 0; i < 3; i++) {
      const view = views[i]!;
      if (view.length === 0) written();
      else if (!outputs[i]!.write(view, written)) full.push(outputs[i]!);
    }
    for (const output of full) await waitDrain(output, this.opts.signal);
  }

  /** Resolves when every submitted chunk has been written; rejects if the pipeline failed. */
  async finish(): Promise<void> {
    while (this.inflight > 0 && this.failure === undefined) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.throwIfFailed();
  }
}
