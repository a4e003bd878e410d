/**
 * The CSV output's delimiter: a semicolon file is answered in semicolons and a tab file in tabs (the file's own,
 * so the spreadsheet that wrote it opens the answer), unless another is asked for (`outputDelimiter`). The
 * delimiter travels in the chunk payload (version 3, `d`), so every runner writes it; a cell holding it is quoted.
 */
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { ChunkBuilder, decodePayload, payloadText } from '../../src/bulk/chunk-payload.ts';
import { runBulk } from '../../src/bulk/pipeline.ts';
import { prescanStream } from '../../src/bulk/prescan.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import {
  DEFAULT_DIALECT,
  dialectKey,
  isDefaultDialect,
  withOutputDelimiter,
  type CsvDelimiter,
  type CsvDialect,
} from '../../src/bulk/csv-dialect.ts';
import { DEFAULT_POLICY, resolvePolicy } from '../../src/domain/policy.ts';
import { bulkConfig, StringSink } from './helpers.ts';
import { examplesFile, expectExamplesOutput, studentName } from './registrar-files.ts';

const config = bulkConfig({ BULK_CHUNK_STUDENTS: '4' });

async function run(text: string, dialect: CsvDialect, runner: ChunkRunner = createInlineRunner()): Promise<string> {
  const scan = await prescanStream(Readable.from([Buffer.from(text)]), { dialect });
  expect(scan.problem).toBeUndefined();
  const sink = new StringSink();
  await runBulk({
    input: Readable.from([text]),
    output: sink,
    format: 'csv',
    runner,
    config,
    dialect,
    nonContiguous: scan.nonContiguous,
  });
  return sink.text();
}

const dialect = (delimiter: CsvDelimiter, output?: CsvDelimiter): CsvDialect =>
  withOutputDelimiter({ ...DEFAULT_DIALECT, delimiter, extraColumns: 'keep' }, output);

describe('semicolon in, semicolon out (and tab, tab)', () => {
  it.each([
    ['semicolon', ';'],
    ['tab', '\t'],
  ] as const)('a %s file round-trips: its cells echoed as they were, the figures of examples.json', async (_, d) => {
    // student_name holds the delimiter, a comma and a quote-free text: quoted where the delimiter needs it.
    const text = examplesFile({ delimiter: d, extraColumn: true });
    const out = await run(text, dialect(d));
    const rows = expectExamplesOutput(out, true, d);
    const input = parse(text, { delimiter: d, columns: true }) as Record<string, string>[];
    rows.forEach((r, i) => {
      for (const [column, value] of Object.entries(input[i]!))
        expect((r as Record<string, string>)[column]).toBe(value);
    });
    expect(out).toContain(d === ';' ? `"${studentName('FSA-1-Zoë-Ñ')}"` : studentName('FSA-1-Zoë-Ñ'));
    // The same rows as the comma file gives, cell for cell.
    const comma = parse(await run(examplesFile({ extraColumn: true }), dialect(',')), { columns: true });
    expect(parse(out, { delimiter: d, columns: true })).toEqual(comma);
  });

  it('asked otherwise: a semicolon file answered in commas is byte for byte the comma file’s answer, and back', async () => {
    const comma = await run(examplesFile({ extraColumn: true }), dialect(','));
    expect(await run(examplesFile({ delimiter: ';', extraColumn: true }), dialect(';', ','))).toBe(comma);
    const semi = await run(examplesFile({ delimiter: ';', extraColumn: true }), dialect(';'));
    expect(await run(examplesFile({ extraColumn: true }), dialect(',', ';'))).toBe(semi);
  });

  it('the pool runner (a worker thread) writes the same bytes as the inline runner', async () => {
    const pool = createPoolRunner({ threads: 1, output: 'bytes' });
    try {
      const text = examplesFile({ delimiter: ';', extraColumn: true });
      expect(await run(text, dialect(';'), pool)).toBe(await run(text, dialect(';')));
    } finally {
      await pool.close();
    }
  });
});

describe('the output delimiter in the dialect and the chunk payload', () => {
  it('is kept only when it differs from the input’s, and is part of the dialect’s key', () => {
    expect(dialect(';', ';')).toEqual(dialect(';'));
    expect(dialect(';').outputDelimiter).toBeUndefined();
    expect(dialect(';', ',').outputDelimiter).toBe(',');
    expect(dialectKey(dialect(';', ','))).not.toBe(dialectKey(dialect(';')));
    expect(isDefaultDialect(withOutputDelimiter(DEFAULT_DIALECT, ';'))).toBe(false);
    expect(isDefaultDialect(withOutputDelimiter(DEFAULT_DIALECT, ','))).toBe(true);
  });

  const HEADER = ['student_id', 'term_label', 'full_time_credits', 'credits_enrolled', 'dependency_status'];
  function payloadOf(d: CsvDelimiter, policy = DEFAULT_POLICY, format: 'csv' | 'ndjson' = 'csv'): string {
    const builder = new ChunkBuilder(format, HEADER, policy, { delimiter: d });
    builder.add({ l: [2], c: ['A,Fall,12,12,dependent'] }, 20);
    return payloadText(builder.take());
  }

  it('a comma output leaves the payload as it was; another makes it version 3 with d (with or without a policy)', () => {
    expect(payloadOf(',').startsWith('{"v":1,"f":"csv","h":')).toBe(true);
    expect(payloadOf(';').startsWith('{"v":3,"f":"csv","d":";","h":')).toBe(true);
    expect(decodePayload(payloadOf('\t')).d).toBe('\t');
    const policy = resolvePolicy({ remainder_placement: 'last_term' });
    const both = decodePayload(payloadOf(';', policy));
    expect([both.v, both.d, both.p]).toEqual([3, ';', policy]);
    expect(payloadOf(';', DEFAULT_POLICY, 'ndjson').startsWith('{"v":1,')).toBe(true); // NDJSON has no delimiter
  });

  it.each([
    ['a version-3 payload without d', '{"v":3,"f":"csv","h":[],"s":[]}'],
    ['a version-3 payload with a comma d', '{"v":3,"f":"csv","d":",","h":[],"s":[]}'],
    ['a version-3 payload with another d', '{"v":3,"f":"csv","d":"|","h":[],"s":[]}'],
    ['a version-1 payload with d', '{"v":1,"f":"csv","d":";","h":[],"s":[]}'],
  ])('%s is malformed (a worker never writes the wrong delimiter)', (_, text) => {
    expect(() => decodePayload(text)).toThrow(SyntaxError);
  });
});
