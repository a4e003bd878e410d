/**
 * Piscina task of the pool runner (src/bulk/runners/pool.ts): one chunk payload in, its output lines and counts
 * out. Everything happens in processChunkPayload, the same function the inline runner and the queue worker use.
 *
 * Task: the payload string, or `{ payload, bytes: true, buffer? }` to get the output back as UTF-8 bytes in a
 * transferred buffer (no copy across the thread boundary, no encoding on the pipeline's thread), written into
 * `buffer` when one is lent (the pool runner recycles the buffers the pipeline has finished writing).
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { processChunkPayload } from '../process-chunk.ts';
import type { ChunkOutcome } from '../runner.ts';

export type CalcTask = string | { payload: string; bytes: true; buffer?: ArrayBuffer };

export default function runChunk(task: CalcTask): ChunkOutcome {
  if (typeof task === 'string') return processChunkPayload(task);
  const outcome = processChunkPayload(task.payload, { bytes: true, buffer: task.buffer });
  // A Transferable: the counts are structured-cloned, the output buffer moved (not copied).
  return move({ [transferableSymbol]: [outcome.bytes!.buffer], [valueSymbol]: outcome }) as unknown as ChunkOutcome;
}
