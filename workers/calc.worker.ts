/**
 * Piscina task of the pool runner (src/bulk/runners/pool.ts): one chunk payload in, its output lines and counts
 * out. Everything happens in processChunkPayload, the same function the inline runner and the queue worker use.
 */
import { processChunkPayload } from '../src/bulk/process-chunk.ts';
import type { ChunkOutcome } from '../src/bulk/runner.ts';

export default function runChunk(payload: string): ChunkOutcome {
  return processChunkPayload(payload);
}
