/**
 * Output buffers lent from one chunk to the next (the pool's threads, a queue worker on its own thread): a chunk's
 * output is written into the buffer of a chunk whose output the caller has finished with, so a run in its steady
 * state allocates none and the garbage collector is spared ~2 MB per 1,000-student chunk.
 */

/** A buffer larger than this (a chunk of huge cells) is not kept for reuse. */
export const MAX_SPARE_BYTES = 8 * 1024 * 1024;

export interface SpareBuffers {
  /** A buffer to lend to the next chunk, if one was given back. */
  take(): ArrayBuffer | undefined;
  /** The `release` of a chunk's output: its buffer is kept for a later chunk (once, while `keep()` allows). */
  releaser(buffer: ArrayBuffer, keep?: () => boolean): () => void;
  /** Drops every buffer kept (the runner is idle or closed). */
  clear(): void;
}

export function spareBuffers(max: number): SpareBuffers {
  const spare: ArrayBuffer[] = [];
  return {
    take: () => spare.pop(),
    releaser(buffer, keep = () => true) {
      let released = false;
      return () => {
        if (released || !keep() || spare.length >= max) return;
        released = true;
        if (buffer.byteLength <= MAX_SPARE_BYTES && !buffer.detached) spare.push(buffer);
      };
    },
    clear() {
      spare.length = 0;
    },
  };
}
