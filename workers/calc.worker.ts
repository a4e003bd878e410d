/**
 * Piscina task of the pool runner (src/bulk/runners/pool.ts): one chunk payload in, its output lines and counts
 * out. Everything happens in processChunkPayload, the same function the inline runner and the queue worker use.
 *
 * Task: the payload string, or `{ payload, bytes: true }` to get the output back as UTF-8 bytes in a transferred
 * buffer (no copy across the thread boundary, no encoding on the pipeline's thread).
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { processChunkPayload } from '../src/bulk/process-chunk.ts';
import type { ChunkOutcome } from '../src/bulk/runner.ts';

export type CalcTask = string | { payload: string; bytes: true };

export default function runChunk(task: CalcTask): ChunkOutcome {
  if (typeof task === 'string') return processChunkPayload(task);
  const outcome = processChunkPayload(task.payload);
  // Buffer.from(string) may use the shared 8 KiB pool for small outputs: copy those into their own buffer.
  const encoded = Buffer.from(outcome.text, 'utf8');
  const bytes =
    encoded.byteOffset === 0 && encoded.byteLength === encoded.buffer.byteLength
      ? new Uint8Array(encoded.buffer, 0, encoded.byteLength)
      : new Uint8Array(encoded);
  // A Transferable: the value is structured-cloned, the buffer moved (not copied).
  const result: ChunkOutcome = { ...outcome, text: '', bytes };
  return move({ [transferableSymbol]: [bytes.buffer], [valueSymbol]: result }) as unknown as ChunkOutcome;
}
