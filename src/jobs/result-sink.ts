/** The job result's way into the store: compressed output grouped into ~1 MiB segments (src/jobs/async-jobs.ts). */
import { Writable } from 'node:stream';
import type { JobStore, ResultPart } from './job-store.ts';

/** Result segments are about this size (one Redis list element each). */
export const RESULT_SEGMENT_BYTES = 1024 * 1024;

/**
 * A Writable that groups one compressed result part of a job's run into ~1 MiB segments and appends them to the job
 * store, fenced by the run's attempt (src/jobs/fencing.ts: a run that lost the job fails with JobFencedError).
 */
export class ResultSink extends Writable {
  readonly #store: JobStore;
  readonly #id: string;
  readonly #part: ResultPart;
  readonly #attempt: number;
  #parts: Buffer[] = [];
  #size = 0;
  /** The store's refusal (job_store_full, or fenced): the run's end, whatever the pipeline reports after it. */
  failure: unknown;

  constructor(store: JobStore, id: string, part: ResultPart, attempt: number) {
    super({ decodeStrings: true });
    this.#store = store;
    this.#id = id;
    this.#part = part;
    this.#attempt = attempt;
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.#parts.push(chunk);
    this.#size += chunk.length;
    if (this.#size < RESULT_SEGMENT_BYTES) {
      cb();
      return;
    }
    this.#flush().then(
      () => cb(),
      (err: unknown) => cb(this.#failed(err)),
    );
  }

  #failed(err: unknown): Error {
    this.failure ??= err;
    return err instanceof Error ? err : new Error(String(err));
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.#flush().then(
      () => cb(),
      (err: unknown) => cb(this.#failed(err)),
    );
  }

  async #flush(): Promise<void> {
    if (this.#size === 0) return;
    const segment = Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    await this.#store.appendResult(this.#id, segment, this.#part, this.#attempt);
  }
}
