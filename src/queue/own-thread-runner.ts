/**
 * The runner of a queue worker that computes on its own thread (QUEUE_WORKER_THREADS=0): each chunk is processed
 * on the calling thread, one at a time, its output written as UTF-8 bytes into a buffer lent back by the chunk
 * before it, which is exactly what the worker stores in Redis.
 *
 * The bulk path's inline runner (src/bulk/runners/inline.ts) returns the output as a string instead, which cost
 * this process, per 1000-student chunk, a fresh ~2 MB output buffer, its decoding into a ~1.7 MB string and that
 * string's encoding back into a ~1.7 MB Buffer for the SET: ~5 ms of CPU on its main thread, and ~5 MB of
 * short-lived memory (external buffers and a string too large for the young generation) that kept its garbage
 * collector busy.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { processChunkPayload } from '../bulk/process-chunk.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../bulk/runner.ts';
import { spareBuffers } from '../bulk/runners/spare-buffers.ts';

/** Output buffers kept for reuse at most: one per job in flight (threads + prefetch) is enough. */
const MAX_SPARE_BUFFERS = 4;

export function createOwnThreadRunner(): ChunkRunner {
  const spare = spareBuffers(MAX_SPARE_BUFFERS);
  let closed = false;
  return {
    kind: 'inline',
    async run(task: ChunkTask): Promise<ChunkOutput> {
      if (closed) throw new Error('the runner is closed');
      // A fresh macrotask per chunk: the worker's event loop (lock renewals, the stalled check) runs between chunks.
      await nextMacrotask();
      // The payload's bytes as they came from Redis, read in place (never decoded into one string of the chunk).
      const outcome = processChunkPayload(task.payloadBytes ?? task.payload, { bytes: true, buffer: spare.take() });
      return {
        index: task.index,
        ...outcome,
        release: spare.releaser(outcome.bytes!.buffer as ArrayBuffer, () => !closed),
      };
    },
    async close(): Promise<void> {
      closed = true;
      spare.clear();
    },
  };
}
