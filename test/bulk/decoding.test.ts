/**
 * The reading stage below the HTTP doors: a file in another charset or with another delimiter gives the
 * same output as its UTF-8 comma form, however its bytes are cut into pieces (a UTF-16 surrogate pair or a
 * Windows-1252 byte split across reads included), and the prescan and the pipeline agree on it.
 */
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { runBulk } from '../../src/bulk/pipeline.ts';
import { prescanStream } from '../../src/bulk/prescan.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { CsvRecordReader } from '../../src/bulk/csv-reader.ts';
import { type CsvRecord } from '../../src/bulk/csv-record.ts';
import { DEFAULT_DIALECT, type CsvDialect } from '../../src/bulk/csv-dialect.ts';
import { bulkConfig, piecewise, StringSink } from './helpers.ts';
import { encode, examplesFile, expectExamplesOutput } from './registrar-files.ts';

const inline = createInlineRunner();
const config = bulkConfig({ BULK_CHUNK_STUDENTS: '3' });

async function run(bytes: Buffer, dialect: CsvDialect, pieces: number[]): Promise<string> {
  const scan = await prescanStream(Readable.from(piecewise(bytes, pieces)), { dialect });
  expect(scan.problem).toBeUndefined();
  const sink = new StringSink();
  await runBulk({
    input: Readable.from(piecewise(bytes, pieces)),
    output: sink,
    format: 'csv',
    runner: inline,
    config,
    dialect,
    nonContiguous: scan.nonContiguous,
  });
  return sink.text();
}

/** A term label with an emoji: a surrogate pair in UTF-16, four bytes in UTF-8. */
const text = examplesFile({ trailingEmpty: 1 }).replaceAll('échéance', 'échéance 🎓');

describe('the decoding stage in front of the reader', () => {
  it('UTF-8 comma, Windows-1252 semicolon and UTF-16BE tab forms give the same output, whatever the pieces', async () => {
    const expected = await run(Buffer.from(text), DEFAULT_DIALECT, [65_536]);
    expect(expected).toContain('🎓');
    expectExamplesOutput(expected.replaceAll(' 🎓', ''));
    const semicolon1252 = encode(
      examplesFile({ delimiter: ';', trailingEmpty: 1 }).replaceAll('échéance', 'échéance ü'),
      'windows-1252',
    );
    const expected1252 = (await run(Buffer.from(text.replaceAll('🎓', 'ü')), DEFAULT_DIALECT, [65_536])).toString();
    const tab16 = Buffer.concat([
      Buffer.from([0xfe, 0xff]),
      encode(examplesFile({ delimiter: '\t', trailingEmpty: 1 }).replaceAll('échéance', 'échéance 🎓'), 'utf-16be'),
    ]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 5 }), async (pieces) => {
        // Answered in commas when asked (by default a file is answered in its own delimiter: test/api).
        const comma = { ...DEFAULT_DIALECT, outputDelimiter: ',' } as const;
        expect(await run(semicolon1252, { ...comma, charset: 'windows-1252', delimiter: ';' }, pieces)).toBe(
          expected1252,
        );
        expect(await run(tab16, { ...comma, charset: 'utf-16', delimiter: '\t' }, pieces)).toBe(expected);
      }),
      { numRuns: 25, seed: 13 },
    );
  });

  it('an invalid Windows-1252 byte is found on the same line whatever the pieces', async () => {
    const lines = text.split('\r\n');
    const bytes = Buffer.concat([
      encode(`${lines.slice(0, 5).join('\r\n')}\r\nX`, 'windows-1252'),
      Buffer.from([0x8d]),
      encode(`\r\n${lines.slice(5).join('\r\n')}`, 'windows-1252'),
    ]);
    for (const pieces of [[1], [2, 3], [7], [65_536]]) {
      const scan = await prescanStream(Readable.from(piecewise(bytes, pieces)), {
        dialect: { ...DEFAULT_DIALECT, charset: 'windows-1252' },
      });
      expect(scan.problem?.message, String(pieces)).toMatch(/^The CSV file is not valid windows-1252: line 6 /);
    }
  });

  it('the reader splits on ";" and TAB with quotes as for commas (a quoted delimiter stays in its cell)', () => {
    for (const d of [';', '\t']) {
      const reader = new CsvRecordReader(1000, { delimiter: d, header: true, rawLines: true });
      const out: CsvRecord[] = [];
      reader.push(`a${d}b${d}c\n"x${d}y"${d}2,"q""r"${d}3\n1${d}${d}\n"a"${d}"b",c\n`, out);
      reader.end(out);
      expect(out.map((r) => r.cells)).toEqual([
        ['a', 'b', 'c'],
        [`x${d}y`, '2,"q""r"', '3'], // a comma is an ordinary character, as a quote inside an unquoted cell
        ['1', '', ''],
        ['a', 'b",c'], // a broken record: its line split leniently
      ]);
      expect(out[3]!.error).toBe(
        `malformed CSV: a closing quote is followed by "," instead of ${d === ';' ? 'a semicolon' : 'a tab'} or a ` +
          'line end; this line was not processed and reading resumed on the next line',
      );
      expect(out.every((r) => r.raw === undefined)).toBe(true);
    }
  });
});
