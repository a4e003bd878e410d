/**
 * The inline runner: runs each chunk on the calling thread. Used for small files (up to BULK_SYNC_MAX_ROWS
 * rows), where handing chunks to a thread would cost more than it saves. Each chunk starts on a fresh macrotask
 * so a request with several chunks still lets the event loop breathe between them.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../runner.ts';
import { processChunkPayload } from '../process-chunk.ts';

export function createInlineRunner(): ChunkRunner {
  let closed = false;
  return {
    kind: 'inline',
    async run(task: ChunkTask): Promise<ChunkOutput> {
      if (closed) throw new Error('the inline runner is closed');
      await nextMacrotask();
      // The pipeline's payload bytes, read in place before run settles (the pipeline reuses them afterwards).
      return { index: task.index, ...processChunkPayload(task.payloadBytes ?? task.payload) };
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
