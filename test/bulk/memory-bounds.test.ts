/**
 * What keeps the pipeline's memory flat as files grow: chunk payloads travel as bytes on a few
 * recycled buffers (never overwritten while their chunk is in flight), and the set of student ids is kept only
 * when no prescan said which students are not contiguous (the grouper then still finds them itself).
 */
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { runBulk } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner, ChunkTask } from '../../src/bulk/runner.ts';
import { HEADER, StringSink, bulkConfig, generatedCsv, parseOutput, row, runToString } from './helpers.ts';
import { mulberry32 } from '../support/prng.ts';

/** The inline runner, finishing chunks after random delays (out of order), recording each chunk's payload bytes. */
function slowRecordingRunner(seed: number) {
  const inline = createInlineRunner();
  const random = mulberry32(seed);
  const buffers = new Set<ArrayBufferLike>();
  const corrupted: number[] = [];
  let chunks = 0;
  const runner: ChunkRunner = {
    kind: 'inline',
    async run(task: ChunkTask) {
      chunks++;
      const bytes = task.payloadBytes!;
      buffers.add(bytes.buffer);
      const before = Buffer.from(bytes).toString('utf8');
      await sleep(Math.floor(random() * 4));
      // Still the same bytes when the chunk is done: the buffer was not handed to another chunk meanwhile.
      if (Buffer.from(bytes).toString('utf8') !== before) corrupted.push(task.index);
      const out = await inline.run(task);
      await sleep(Math.floor(random() * 4));
      return out;
    },
    close: () => inline.close(),
  };
  return { runner, buffers, corrupted, chunks: () => chunks };
}

describe('chunk payload buffers', () => {
  it('are recycled: a file of 120 chunks uses about as many buffers as chunks in flight, none reused early', async () => {
    const { csv, rows } = generatedCsv(12_000);
    const config = bulkConfig({ BULK_CHUNK_STUDENTS: '100', BULK_MAX_INFLIGHT_CHUNKS: '8', BULK_SYNC_MAX_ROWS: '0' });
    const slow = slowRecordingRunner(7);
    const { text, summary } = await runToString(csv, slow.runner, { config });
    expect(slow.chunks()).toBe(120);
    expect(slow.corrupted).toEqual([]);
    // 8 in flight, one being built, one being handed back: never one per chunk.
    expect(slow.buffers.size).toBeLessThanOrEqual(10);
    expect(summary.rows).toBe(rows);
    // The same output as the plain inline runner, which reads the payload as a string.
    expect(text).toBe((await runToString(csv, createInlineRunner(), { config })).text);
  });
});

describe('non-contiguous students without a prescan', () => {
  it('the grouper finds a later group of rows itself and makes it an error; the first group is computed', async () => {
    const text = [
      HEADER,
      row('A1', 'Fall', '12'),
      row('B1', 'Fall', '12'),
      row('A1', 'Spring', '12'),
      row('C1', 'Fall', '6'),
      '',
    ].join('\n');
    const sink = new StringSink();
    // No `nonContiguous`: what runBulk does for a caller that has not prescanned the file.
    await runBulk({
      input: Readable.from([text]),
      output: sink,
      format: 'csv',
      runner: createInlineRunner(),
      config: bulkConfig(),
    });
    const out = parseOutput(sink.text());
    expect(out.map((r) => [r.student_id, r.term_label, r.row_status])).toEqual([
      ['A1', 'Fall', 'ok'],
      ['B1', 'Fall', 'ok'],
      ['A1', 'Spring', 'error'],
      ['C1', 'Fall', 'ok'],
    ]);
    expect(out[2]!.error_message).toContain('already appeared on line 2');
  });
});
