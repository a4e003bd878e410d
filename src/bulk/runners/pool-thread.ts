/**
 * Piscina task of the pool runner (src/bulk/runners/pool.ts): one chunk payload in, its output lines and counts
 * out. Everything happens in processChunkPayload, the same function the inline runner and the queue worker use.
 *
 * Task: the payload string, or `{ payload | payloadBytes, bytes?: true, buffer? }` (payloadBytes: the UTF-8
 * payload on the pipeline's SharedArrayBuffer, shared, not copied), with `bytes: true` to get the output back as UTF-8 bytes in a
 * transferred buffer (no copy across the thread boundary, no encoding on the pipeline's thread), written into
 * `buffer` when one is lent (the pool runner recycles the buffers the pipeline has finished writing).
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { processChunkPayload } from '../process-chunk.ts';
import type { ChunkOutcome } from '../runner.ts';

export type CalcTask =
  | string
  | {
      /** The payload as a string, or as UTF-8 bytes (ChunkBuilder's SharedArrayBuffer: read, never kept). */
      payload?: string;
      payloadBytes?: Uint8Array;
      bytes?: true;
      buffer?: ArrayBuffer;
    };

export default function runChunk(task: CalcTask): ChunkOutcome {
  if (typeof task === 'string') return processChunkPayload(task);
  // The shared bytes are read in place, student by student (never decoded into one string of the whole chunk).
  const payload = task.payload ?? task.payloadBytes ?? '';
  if (task.bytes !== true) return processChunkPayload(payload);
  const outcome = processChunkPayload(payload, { bytes: true, buffer: task.buffer });
  // A Transferable: the counts are structured-cloned, the output buffer moved (not copied).
  return move({ [transferableSymbol]: [outcome.bytes!.buffer], [valueSymbol]: outcome }) as unknown as ChunkOutcome;
}
