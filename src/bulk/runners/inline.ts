/**
 * The inline runner: runs each chunk on the calling thread, one at a time. Each chunk starts on a fresh macrotask
 * so the event loop runs between chunks (a request with several chunks breathes; a queue worker renews its locks).
 *
 * Two users, as the pool runner's `output` option has:
 *  - 'text' (default): small files on the API (up to BULK_SYNC_MAX_ROWS rows), where handing chunks to a thread
 *    would cost more than it saves.
 *  - 'bytes': a queue worker that computes on its own thread (QUEUE_WORKER_THREADS=0). The output is written as
 *    UTF-8 bytes into a buffer lent back by an earlier chunk, which is exactly what the worker stores in Redis. As
 *    text it cost the worker, per 1000-student chunk, a fresh ~2 MB output buffer, its decoding into a ~1.7 MB
 *    string and that string's encoding back into a ~1.7 MB Buffer for the SET: ~5 ms of CPU on its main thread,
 *    and ~5 MB of short-lived memory (external buffers and a string too large for the young generation) that kept
 *    its garbage collector busy.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../runner.ts';
import { processChunkPayload } from '../process-chunk.ts';
import { spareBuffers } from './spare-buffers.ts';

/** Output buffers kept for reuse at most ('bytes'): one per chunk a queue worker has in flight is enough. */
const MAX_SPARE_BUFFERS = 4;

export function createInlineRunner(options: { output?: 'text' | 'bytes' } = {}): ChunkRunner {
  const spare = options.output === 'bytes' ? spareBuffers(MAX_SPARE_BUFFERS) : undefined;
  let closed = false;
  return {
    kind: 'inline',
    async run(task: ChunkTask): Promise<ChunkOutput> {
      if (closed) throw new Error('the inline runner is closed');
      await nextMacrotask();
      // The payload's bytes (the pipeline's, or a queue worker's from Redis) are read in place before run settles:
      // the pipeline reuses them afterwards.
      const payload = task.payloadBytes ?? task.payload;
      if (spare === undefined) return { index: task.index, ...processChunkPayload(payload) };
      const outcome = processChunkPayload(payload, { bytes: true, buffer: spare.take() });
      return {
        index: task.index,
        ...outcome,
        release: spare.releaser(outcome.bytes!.buffer as ArrayBuffer, () => !closed),
      };
    },
    async close(): Promise<void> {
      closed = true;
      spare?.clear();
    },
  };
}
