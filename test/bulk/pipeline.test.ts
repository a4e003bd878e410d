import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable, Writable } from 'node:stream';
import { AppError } from '../../src/errors.ts';
import { runBulk, outcomeText } from '../../src/bulk/pipeline.ts';
import { FAILED_CHUNK_MESSAGE } from '../../src/bulk/chunk-scheduler.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner, type PoolRunner } from '../../src/bulk/runners/pool.ts';
import { processChunkPayload } from '../../src/bulk/process-chunk.ts';
import { MAX_ROWS_PER_STUDENT } from '../../src/bulk/group-students.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../../src/bulk/runner.ts';
import {
  HEADER,
  type OutputRow,
  SAMPLE_CSV,
  SAMPLE_EXPECTED_CSV,
  SAMPLE_EXPECTED_NDJSON,
  StringSink,
  bulkConfig,
  generatedCsv,
  parseNdjson,
  parseOutput,
  readText,
  row,
  runToString,
} from './helpers.ts';
import { EXAMPLES, examplesCsv, expectRowsMatchExample, withoutFreeText } from './examples.ts';

const inline = createInlineRunner();
let pool: PoolRunner;
let poolBytes: PoolRunner;

beforeAll(() => {
  pool = createPoolRunner({ threads: 2 });
  poolBytes = createPoolRunner({ threads: 1, output: 'bytes' });
});
afterAll(async () => {
  await pool.close();
  await poolBytes.close();
});

/** The payload of the golden sample's first chunk, as the pipeline builds it (captured through a runner). */
async function samplePayload(): Promise<string> {
  let payload = '';
  const capture: ChunkRunner = {
    kind: 'inline',
    run: (task) => {
      payload ||= task.payload;
      return inline.run(task);
    },
    close: async () => undefined,
  };
  await runToString(readText(SAMPLE_CSV), capture);
  return payload;
}

/** Wraps a runner, recording concurrency and optionally failing or corrupting chosen chunks. */
function instrumented(
  inner: ChunkRunner,
  opts: { fail?: (index: number) => boolean; wrongCount?: (index: number) => boolean; delayMs?: number } = {},
): ChunkRunner & { maxInflight: number; calls: number } {
  let inflight = 0;
  const r = {
    kind: inner.kind,
    maxInflight: 0,
    calls: 0,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      r.calls++;
      inflight++;
      r.maxInflight = Math.max(r.maxInflight, inflight);
      try {
        if (opts.delayMs) await new Promise((res) => setTimeout(res, opts.delayMs));
        if (opts.fail?.(task.index)) throw new Error('worker crashed (test)');
        const out = await inner.run(task);
        return opts.wrongCount?.(task.index) ? { ...out, rows: out.rows - 1 } : out;
      } finally {
        inflight--;
      }
    },
    close: () => inner.close(),
  };
  return r;
}

describe('golden sample (samples/sample.csv → samples/sample.expected.*)', () => {
  const sample = readText(SAMPLE_CSV);
  const expectedCsv = readText(SAMPLE_EXPECTED_CSV);

  it('inline and pool (text or transferred bytes) give byte-identical output equal to the golden file', async () => {
    expect((await runToString(sample, inline)).text).toBe(expectedCsv);
    expect((await runToString(sample, pool)).text).toBe(expectedCsv);
    expect((await runToString(sample, poolBytes)).text).toBe(expectedCsv);
    const out = await poolBytes.run({ index: 4, payload: await samplePayload() });
    expect([out.index, out.text, outcomeText(out)]).toEqual([4, '', processChunkPayload(await samplePayload()).text]);
  });

  it('is independent of chunk size, in-flight limit, input chunking, CRLF and a BOM', async () => {
    const variants = [
      { config: bulkConfig({ BULK_CHUNK_STUDENTS: '1', BULK_MAX_INFLIGHT_CHUNKS: '1' }), pieces: [1] },
      { config: bulkConfig({ BULK_CHUNK_STUDENTS: '2', BULK_MAX_INFLIGHT_CHUNKS: '3' }), pieces: [7, 3] },
    ];
    for (const v of variants) {
      expect((await runToString(sample, pool, v)).text).toBe(expectedCsv);
      expect((await runToString(sample, inline, v)).text).toBe(expectedCsv);
    }
    const crlfBom = `\uFEFF${sample.replaceAll('\n', '\r\n')}`;
    expect((await runToString(crlfBom, pool, { pieces: [5] })).text).toBe(expectedCsv);
    expect((await runToString(sample.trimEnd(), inline)).text).toBe(expectedCsv); // no final newline
  });

  it('NDJSON output equals its golden file, from both runners', async () => {
    const expected = readText(SAMPLE_EXPECTED_NDJSON);
    expect((await runToString(sample, inline, { format: 'ndjson' })).text).toBe(expected);
    expect((await runToString(sample, pool, { format: 'ndjson' })).text).toBe(expected);
  });

  it("the golden file's numbers are the examples.json figures for every student taken from examples.json", () => {
    const rows = parseOutput(expectedCsv);
    const ids = [...new Set(rows.map((r) => r.student_id))];
    let checked = 0;
    for (const id of ids) {
      const ex = EXAMPLES.find((e) => e.id === id);
      if (ex === undefined) continue;
      // Only the first (contiguous) block of the id is the example; a later block is the non-contiguous error.
      const first = rows.findIndex((r) => r.student_id === id);
      expectRowsMatchExample(rows.slice(first, first + ex.expected.terms.length), ex);
      checked++;
    }
    expect(checked).toBe(6);
  });

  it('the golden file shows the error rows, formula protection and quoting the layout promises', () => {
    const rows = parseOutput(expectedCsv);
    expect(rows.length).toBe(sample.trim().split('\n').length - 1);
    const bad = rows.filter((r) => r.student_id === 'BAD-1');
    expect(bad.map((r) => [r.row_status, r.error_code, r.error_field])).toEqual([
      ['error', 'validation_error', 'credits_enrolled'],
      ['error', 'validation_error', 'dependency_status'],
    ]);
    expect(bad.every((r) => r.annual_ft_credits === '' && r.equal_sub === '')).toBe(true);
    // SPLIT-1's rows are on lines 4 and 19: both are errors, the first group included.
    const split = rows.filter((r) => r.student_id === 'SPLIT-1');
    expect(split.map((r) => [r.term_label, r.row_status, r.error_field])).toEqual([
      ['Fall', 'error', 'student_id'],
      ['Spring', 'error', 'student_id'],
    ]);
    expect(split.every((r) => /rows are not contiguous.*first on line 4/.test(r.error_message))).toBe(true);
    expect(rows.find((r) => r.term_label.includes('Spring+2027'))?.term_label).toBe("'=Spring+2027");
    expect(rows.find((r) => r.term_label.startsWith('Fall, '))?.term_label).toBe('Fall, 2026');
  });
});

describe('every examples.json student in one CSV', () => {
  it('gives the examples.json figures in CSV, and their full results in NDJSON, with CRLF too', async () => {
    const csv = examplesCsv();
    for (const runner of [inline, pool]) {
      const { text, summary } = await runToString(csv, runner);
      expect(summary).toMatchObject({ students: EXAMPLES.length, errorRows: 0 });
      const rows = parseOutput(text);
      for (const ex of EXAMPLES)
        expectRowsMatchExample(
          rows.filter((r) => r.student_id === ex.id),
          ex,
        );
      const nd = parseNdjson((await runToString(examplesCsv(EXAMPLES, '\r\n'), runner, { format: 'ndjson' })).text);
      expect(nd.map((r) => r.student_id)).toEqual(EXAMPLES.map((e) => e.id));
      nd.forEach((r, i) => {
        expect(r.error).toBeNull();
        expect(withoutFreeText(r.result)).toEqual(EXAMPLES[i]!.expected);
      });
    }
  });
});

describe('every input row is accounted for, in order', () => {
  it('a generated file: one output row per input row, same ids in the same order, inline = pool', async () => {
    const { csv, rows } = generatedCsv(1200);
    const config = bulkConfig({ BULK_CHUNK_STUDENTS: '97' });
    const a = await runToString(csv, inline, { config });
    const b = await runToString(csv, pool, { config, pieces: [4093] });
    expect(b.text).toBe(a.text);
    expect(a.summary).toMatchObject({ rows, students: 1200, errorRows: 0, chunks: Math.ceil(1200 / 97) });
    const out = parseOutput(a.text);
    const ids = csv
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]);
    expect(out.map((r) => r.student_id)).toEqual(ids);
  });

  it('turns every kind of bad row into error rows without touching the good students', async () => {
    const lines = [
      HEADER,
      row('OK-1', 'Fall', '6'),
      row('OK-1', 'Spring', '9'),
      row('WIDTH', 'Fall', '6') + ',extra',
      row('WIDTH', 'Spring', '9'),
      'BROKEN,"Fall,12,6',
      row('CONTRA', 'Fall', '6'),
      row('CONTRA', 'Spring', '9', { subsidized_amount: '1000' }),
      row('OK-2', 'Fall', '12'),
      row('OK-1', 'Summer', '6'),
      row('', 'Fall', '6'),
      row('OK-3', 'Fall', '9'),
    ];
    const { text, summary } = await runToString(lines.join('\n') + '\n', inline);
    const out = parseOutput(text);
    // OK-1 comes back after other students: every one of its rows is an error, its first group included.
    expect(out.map((r) => [r.student_id, r.row_status])).toEqual([
      ['OK-1', 'error'],
      ['OK-1', 'error'],
      ['WIDTH', 'error'],
      ['WIDTH', 'error'],
      ['BROKEN', 'error'],
      ['CONTRA', 'error'],
      ['CONTRA', 'error'],
      ['OK-2', 'ok'],
      ['OK-1', 'error'],
      ['', 'error'],
      ['OK-3', 'ok'],
    ]);
    expect(summary).toMatchObject({ rows: 11, errorRows: 9 });
    expect(out[2]!.error_message).toBe('the row has 18 cells but the header has 17');
    expect(out[3]!.error_message).toBe('not calculated: this student has errors on line 4');
    expect(out[4]!.error_message).toMatch(/^malformed CSV: a quoted field is not closed/);
    expect([out[6]!.error_field, out[5]!.error_message]).toEqual([
      'subsidized_amount',
      'not calculated: this student has errors on line 8',
    ]);
    for (const i of [0, 1, 8]) {
      expect(out[i]!.error_message).toMatch(/not contiguous.*"OK-1" appears in separate groups.*first on line 2/);
    }
    expect([out[9]!.error_field, out[9]!.error_message]).toEqual(['student_id', 'student_id: is required']);
    expect(out.every((r) => r.row_status === 'ok' || r.error_code === 'validation_error')).toBe(true);
  });

  it('cuts a run of more than MAX_ROWS_PER_STUDENT rows of one id into error segments', async () => {
    const n = MAX_ROWS_PER_STUDENT * 2 + 5;
    const lines = [HEADER, ...Array.from({ length: n }, (_, i) => row('SAME', `T${i}`, '6')), row('NEXT', 'Fall', '6')];
    const { text, summary } = await runToString(lines.join('\n'), inline);
    const out = parseOutput(text);
    expect(out.length).toBe(n + 1);
    expect(out.slice(0, n).every((r) => r.row_status === 'error' && r.error_field === 'student_id')).toBe(true);
    expect(out.at(-1)!.row_status).toBe('ok');
    expect(summary.students).toBe(4);
  });

  it('NDJSON: one BulkResult per student, errors name CSV columns and lines', async () => {
    const csv = [HEADER, row('A', 'Fall', 'six'), row('A', 'Spring', '9'), row('B', 'Fall', '6')].join('\n');
    const nd = parseNdjson((await runToString(csv, inline, { format: 'ndjson' })).text);
    expect(nd.map((r) => r.student_id)).toEqual(['A', 'B']);
    expect(nd[0]!.result).toBeNull();
    expect(nd[0]!.error).toEqual({
      code: 'validation_error',
      message: 'The student has 1 error.',
      field_errors: [{ field: 'credits_enrolled', message: expect.stringMatching(/^line 2: must be a decimal/) }],
    });
    expect(nd[1]!.error).toBeNull();
  });
});

describe('limits, header and runner choice', () => {
  it('a bad header rejects with 400 before anything is written', async () => {
    for (const csv of [`student_id,term_label\nS1,Fall\n`, '', '\n\n', '"student_id,term_label\n']) {
      const sink = new StringSink();
      const err = await runBulk({
        input: Readable.from([Buffer.from(csv)]),
        output: sink,
        format: 'csv',
        runner: inline,
        config: bulkConfig(),
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(400);
      expect(sink.text()).toBe('');
    }
  });

  it('more rows than maxRows: 413 before output when it shows up while probing, error rows after', async () => {
    const { csv, rows } = generatedCsv(10); // 23 rows
    expect(rows).toBe(23);
    const small = await runToString(
      csv,
      { small: inline, large: pool },
      {
        config: bulkConfig({ BULK_SYNC_MAX_ROWS: '100' }),
        limits: { maxRows: 20 },
      },
    ).catch((e: unknown) => e);
    expect((small as AppError).status).toBe(413);

    const { text, summary } = await runToString(
      csv,
      { small: inline, large: pool },
      {
        config: bulkConfig({ BULK_SYNC_MAX_ROWS: '5' }),
        limits: { maxRows: 20 },
      },
    );
    const out = parseOutput(text);
    expect(out.length).toBe(23);
    expect(out.slice(20).every((r) => /more than 20 data rows/.test(r.error_message))).toBe(true);
    expect(out.slice(0, 19).every((r) => r.row_status === 'ok')).toBe(true);
    expect(summary.runner).toBe('pool');
  });

  it('more bytes than maxBytes before output is a 413', async () => {
    const { csv } = generatedCsv(50);
    const err = await runToString(csv, inline, { limits: { maxBytes: 2000 }, pieces: [1000] }).catch((e: unknown) => e);
    expect((err as AppError).status).toBe(413);
  });

  it('chooses the small runner up to BULK_SYNC_MAX_ROWS rows and the large one above', async () => {
    const choice = { small: inline, large: pool };
    const { csv, rows } = generatedCsv(10);
    expect(rows).toBe(23);
    const at = (max: number) => runToString(csv, choice, { config: bulkConfig({ BULK_SYNC_MAX_ROWS: String(max) }) });
    expect((await at(23)).summary.runner).toBe('inline');
    expect((await at(22)).summary.runner).toBe('pool');
    expect((await at(0)).summary.runner).toBe('pool');
  });
});

describe('fail-safe and backpressure', () => {
  it('a chunk whose runner rejects becomes internal_error rows; the other chunks are intact', async () => {
    const { csv, rows } = generatedCsv(40);
    const config = bulkConfig({ BULK_CHUNK_STUDENTS: '10' });
    const good = parseOutput((await runToString(csv, inline, { config })).text);
    const flaky = instrumented(inline, { fail: (i) => i === 1, wrongCount: (i) => i === 3 });
    const { text, summary } = await runToString(csv, flaky, { config });
    const out = parseOutput(text);
    expect(out.length).toBe(rows);
    expect(summary.errorRows).toBe(out.filter((r) => r.row_status === 'error').length);
    const studentsOf = (r: OutputRow) => Number(r.student_id.slice(1));
    for (let i = 0; i < out.length; i++) {
      const chunk = Math.floor(studentsOf(out[i]!) / 10);
      if (chunk === 1 || chunk === 3) {
        expect([out[i]!.row_status, out[i]!.error_code, out[i]!.error_message]).toEqual([
          'error',
          'internal_error',
          FAILED_CHUNK_MESSAGE,
        ]);
        expect(out[i]!.credits_enrolled).toBe(good[i]!.credits_enrolled); // input still echoed
      } else {
        expect(out[i]).toEqual(good[i]);
      }
    }
  });

  it('a slow client holds the parser: at most BULK_MAX_INFLIGHT_CHUNKS chunks in flight, input read lazily', async () => {
    const { csv } = generatedCsv(400);
    const config = bulkConfig({ BULK_CHUNK_STUDENTS: '10', BULK_MAX_INFLIGHT_CHUNKS: '3' });
    const runner = instrumented(inline);
    const pieces = Buffer.from(csv);
    let offered = 0;
    const input = new Readable({
      highWaterMark: 1024,
      read() {
        if (offered >= pieces.length) return this.push(null);
        this.push(pieces.subarray(offered, offered + 512));
        offered += 512;
      },
    });
    let written = 0;
    const samples: { offered: number; written: number }[] = [];
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _e, cb) {
        written += chunk.length;
        samples.push({ offered, written });
        setTimeout(cb, 2);
      },
    });
    const summary = await runBulk({ input, output: slow, format: 'csv', runner, config });
    expect(summary.students).toBe(400);
    expect(runner.maxInflight).toBeLessThanOrEqual(3);
    // Input bytes ahead of the output never exceed a few chunks' worth (no whole-file buffering).
    const worstLead = Math.max(...samples.map((s) => s.offered - (s.written * csv.length) / (written || 1)));
    expect(worstLead).toBeLessThan(csv.length / 3);
  });

  it('aborting stops reading and rejects; the runner is not called again', async () => {
    const { csv } = generatedCsv(300);
    const abort = new AbortController();
    const runner = instrumented(inline, { delayMs: 5 });
    const config = bulkConfig({ BULK_CHUNK_STUDENTS: '5', BULK_MAX_INFLIGHT_CHUNKS: '2' });
    const run = runBulk({
      input: Readable.from(Array.from({ length: 100 }, (_, i) => csv.slice(i * 1000, (i + 1) * 1000)).filter(Boolean)),
      output: new StringSink(),
      format: 'csv',
      runner,
      config,
      signal: abort.signal,
      onProgress: (p) => {
        if (p.chunks === 3) abort.abort(new Error('client went away'));
      },
    });
    await expect(run).rejects.toThrow('client went away');
    const calls = runner.calls;
    await new Promise((r) => setTimeout(r, 50));
    expect(runner.calls).toBe(calls);
    expect(calls).toBeLessThan(10);
  });

  it('recycled output buffers (pool, bytes) never change a byte, even with a slow output', async () => {
    const { csv } = generatedCsv(600);
    const config = bulkConfig({ BULK_CHUNK_STUDENTS: '25', BULK_MAX_INFLIGHT_CHUNKS: '4' });
    const expected = (await runToString(csv, inline, { config })).text;
    const parts: Buffer[] = [];
    const slow = new Writable({
      highWaterMark: 4096,
      write(chunk: Buffer, _e, cb) {
        // Reads the chunk only just before calling back: a buffer reused any earlier would show here.
        setTimeout(() => {
          parts.push(Buffer.from(chunk));
          cb();
        }, 1);
      },
    });
    await runBulk({
      input: Readable.from([Buffer.from(csv)]),
      output: slow,
      format: 'csv',
      runner: poolBytes,
      config,
      recycleOutput: true,
    });
    expect(Buffer.concat(parts).toString('utf8')).toBe(expected);
  });

  it('processChunkPayload never throws on bad student data and counts rows exactly', () => {
    const payload = JSON.stringify({
      v: 1,
      f: 'csv',
      h: HEADER.split(','),
      s: [
        { l: [2], c: [['x']] },
        { l: [3, 4], c: [row('A', 'F', '6').split(','), row('A', 'S', '=1').split(',')] },
      ],
    });
    const out = processChunkPayload(payload);
    expect(out).toMatchObject({ rows: 3, errorRows: 3, students: 2 });
    expect(out.text.split('\n').length).toBe(4);
  });
});

describe("the run's identity travels with each chunk (ChunkTask.runId)", () => {
  it('every chunk of one run carries the same random run id; two runs of the same file carry different ones', async () => {
    const seen: { index: number; runId: string | undefined }[] = [];
    const recording: ChunkRunner = {
      kind: 'inline',
      run: (task) => {
        seen.push({ index: task.index, runId: task.runId });
        return inline.run(task);
      },
      close: async () => undefined,
    };
    const config = bulkConfig({ BULK_CHUNK_STUDENTS: '1' });
    const sample = readText(SAMPLE_CSV);
    await runToString(sample, recording, { config });
    const first = seen.splice(0);
    await runToString(sample, recording, { config });
    const second = seen.splice(0);
    expect(first.length).toBeGreaterThan(3);
    const ids = (runs: typeof first) => new Set(runs.map((s) => s.runId));
    expect(ids(first).size).toBe(1);
    expect(ids(second).size).toBe(1);
    const [a] = ids(first);
    const [b] = ids(second);
    expect(a).toMatch(/^r[0-9a-f]{24}$/);
    expect(b).toMatch(/^r[0-9a-f]{24}$/);
    expect(a).not.toBe(b);
  });
});
