/**
 * The inline runner with output 'bytes' (src/bulk/runners/inline.ts), a queue worker's computing on its own thread:
 * the chunk's output as UTF-8 bytes, the same as the inline runner writes as text (a non-ASCII cell included), and the
 * output buffer lent to the next chunk only once the worker has released it (stored it in Redis).
 */
import { describe, expect, it } from 'vitest';
import { ChunkBuilder, payloadText } from '../../src/bulk/chunk-payload.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { SHORT_HEADER } from './helpers.ts';

/** A chunk of three students: two computed, one an error (credits enrolled is not a number). */
function payload(firstId: string): string {
  const builder = new ChunkBuilder('csv', SHORT_HEADER);
  builder.add(
    { l: [2, 3], c: [`${firstId},Fall,12,6,dependent,first_year`, `${firstId},Spring,12,9,dependent,first_year`] },
    60,
  );
  builder.add({ l: [4], c: [['Zoë-2', 'Été', '12', '12', 'independent', 'second_year']] }, 30);
  builder.add({ l: [5], c: ['S3,Fall,12,lots,dependent,first_year'] }, 30);
  return payloadText(builder.take());
}

describe('the inline runner with output bytes (a queue worker on its own thread)', () => {
  it('writes the chunk as UTF-8 bytes: the inline runner’s text, byte for byte, with its counts', async () => {
    const text = payload('S1');
    const inline = await createInlineRunner().run({ index: 0, payload: text });
    const runner = createInlineRunner({ output: 'bytes' });
    const out = await runner.run({ index: 7, payload: text });
    expect(out.index).toBe(7);
    expect(out.text).toBe('');
    expect(Buffer.from(out.bytes!).toString('utf8')).toBe(inline.text);
    expect(inline.text).toContain('Zoë-2,Été,');
    expect([out.rows, out.errorRows, out.students]).toEqual([4, 1, 3]);
    await runner.close();
  });

  it('lends a released output buffer to the next chunk, and never one still held', async () => {
    const runner = createInlineRunner({ output: 'bytes' });
    const first = await runner.run({ index: 0, payload: payload('S1') });
    const held = await runner.run({ index: 1, payload: payload('S2') });
    expect(held.bytes!.buffer).not.toBe(first.bytes!.buffer);
    const kept = Buffer.from(held.bytes!).toString('utf8');
    held.release!();
    held.release!(); // twice: still lent once
    const next = await runner.run({ index: 2, payload: payload('S9') });
    expect(next.bytes!.buffer).toBe(held.bytes!.buffer);
    const after = await runner.run({ index: 3, payload: payload('S8') });
    expect(after.bytes!.buffer).not.toBe(next.bytes!.buffer);
    expect(Buffer.from(next.bytes!).toString('utf8')).toBe(kept.replaceAll('S2,', 'S9,'));
    await runner.close();
  });
});
