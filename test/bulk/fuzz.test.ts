/**
 * Fuzz: mutated CSV files (quotes, delimiters, BOMs, blank lines, truncation, 1 MB cells, formula cells,
 * duplicate and non-contiguous ids, invalid UTF-8) never lose a row and never make the endpoint answer 5xx.
 *
 * "Never lose a row" is checked in two independent steps: (1) every physical line of the mutated file belongs to
 * exactly one record of the reader or is blank (the reader's recovery rule), and (2) the pipeline's output has
 * exactly one row per record, in order, echoing each record's student_id. Iterations are bounded (fixed seed) to
 * keep the suite fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp } from '../../src/api/app.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { AppError } from '../../src/errors.ts';
import { CsvRecordReader } from '../../src/bulk/csv-reader.ts';
import { type CsvRecord } from '../../src/bulk/csv-record.ts';
import { readHeader } from '../../src/bulk/csv-layout.ts';
import { isFormulaLike } from '../../src/bulk/output-csv.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { SAMPLE_CSV, bulkConfig, generatedCsv, parseNdjson, parseOutput, readText, runToString } from './helpers.ts';
import { applyMutation, mutationArb } from './mutations.ts';

/** The records the pipeline reads: its reader with the default limits of src/config.ts (the text pushed whole). */
function records(text: string): CsvRecord[] {
  const limits = bulkConfig();
  const reader = new CsvRecordReader(limits.BULK_MAX_ROW_CHARS, {
    header: true,
    maxCellChars: limits.BULK_MAX_CELL_CHARS,
  });
  const out: CsvRecord[] = [];
  reader.push(text, out);
  reader.end(out);
  return out;
}

/** Step (1): each physical line is in exactly one record, or is blank / all-empty cells. */
function expectEveryLineCovered(text: string, recs: CsvRecord[]): void {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const physical = body.split('\n');
  if (physical.at(-1) === '') physical.pop();
  const owner = new Array<number>(physical.length + 2).fill(-1);
  recs.forEach((r, k) => {
    const span = r.error === undefined ? r.cells.join(',').split('\n').length : 1;
    for (let l = r.line; l < r.line + span; l++) {
      expect(owner[l]).toBe(-1);
      owner[l] = k;
    }
  });
  physical.forEach((content, i) => {
    if (owner[i + 1] !== -1) return;
    const c = content.endsWith('\r') ? content.slice(0, -1) : content;
    expect(
      c.split(',').every((cell) => cell === '' || cell === '""'),
      `line ${i + 1} ${JSON.stringify(c)}`,
    ).toBe(true);
  });
}

const echo = (cell: string | undefined) => (cell === undefined ? '' : isFormulaLike(cell) ? `'${cell}` : cell);

/** Step (2): one output row per data record, in order, each echoing its record's student_id. */
function expectOneRowPerRecord(output: string, recs: CsvRecord[]): void {
  // In the file's own columns (an unnamed column, which the layout leaves out, still takes a place).
  const idIndex = recs[0]!.cells.findIndex((c) => c.trim().toLowerCase() === 'student_id');
  const rows = parseOutput(output);
  expect(rows.length).toBe(recs.length - 1);
  rows.forEach((row, i) => expect(row.student_id).toBe(echo(recs[i + 1]!.cells[idIndex])));
  expect(rows.every((r) => r.row_status === 'ok' || r.row_status === 'error')).toBe(true);
}

function headerIsValid(recs: CsvRecord[]): boolean {
  if (recs[0] === undefined || recs[0].error !== undefined) return false;
  try {
    readHeader(recs[0].cells);
    return true;
  } catch {
    return false;
  }
}

const base = readText(SAMPLE_CSV) + generatedCsv(30).csv.split('\n').slice(1).join('\n');
const inline = createInlineRunner();

describe('fuzz: mutated files never lose a row', () => {
  it('through the pipeline (inline runner, random input chunking)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 4096 }),
        async (mutations, piece) => {
          const text = mutations.reduce(applyMutation, base);
          const recs = records(text);
          expectEveryLineCovered(text, recs);
          const result = await runToString(text, inline, {
            pieces: [piece],
            config: bulkConfig({ BULK_CHUNK_STUDENTS: '7' }),
          }).catch((e: unknown) => e);
          if (!headerIsValid(recs)) {
            expect(result).toBeInstanceOf(AppError);
            expect((result as AppError).status).toBe(400);
            return;
          }
          expect(result).not.toBeInstanceOf(Error);
          expectOneRowPerRecord((result as { text: string }).text, recs);
        },
      ),
      { numRuns: 120, seed: 20260701 },
    );
  });

  it('1 MB cells, quoted and unquoted: an error row naming the column, echoed cut to BULK_MAX_CELL_CHARS', async () => {
    for (const quoted of [false, true]) {
      const text = applyMutation(base, { kind: 'bigCell', line: 3, quoted });
      const recs = records(text);
      expectEveryLineCovered(text, recs);
      const { text: out } = await runToString(text, inline, { pieces: [65_536] });
      expectOneRowPerRecord(out, recs);
      const rows = parseOutput(out);
      const big = rows.find((r) => r.term_label.startsWith('BBBB'))!;
      expect(big.row_status).toBe('error');
      expect(big.term_label).toBe('B'.repeat(1000));
      expect(big.error_message).toMatch(/the term_label cell has more than 1000 characters/);
      // The whole student is an error; every other student of the file is unaffected.
      const others = rows.filter((r) => r.student_id !== big.student_id);
      expect(rows.filter((r) => r.student_id === big.student_id).every((r) => r.row_status === 'error')).toBe(true);
      expect(others.length).toBeGreaterThan(0);
      expect(others.some((r) => r.row_status === 'ok')).toBe(true);
    }
  });

  it('invalid UTF-8 bytes do not lose rows', async () => {
    const bytes = Buffer.from(base);
    const broken = Buffer.concat([bytes.subarray(0, 900), Buffer.from([0xff, 0xc3]), bytes.subarray(900)]);
    const text = broken.toString('utf8');
    const recs = records(text);
    const { text: out } = await runToString(broken, inline, { pieces: [901] });
    expectOneRowPerRecord(out, recs);
  });
});

describe('fuzz: the endpoint never answers 5xx', () => {
  let runtime: Runtime;
  let server: Server;
  let url: string;
  const config = bulkConfig({ BULK_THREADS: '2', BULK_SYNC_MAX_ROWS: '40', BULK_CHUNK_STUDENTS: '9' });

  beforeAll(async () => {
    const logger = pino({ level: 'silent' });
    runtime = await createRuntime(config, logger);
    const app = createApp({ config, logger, runners: runtime.runners, readiness: [] }, { routers: runtime.routers });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/calculate/bulk`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await runtime?.close();
  });

  it('mutated files over HTTP (inline and pool, CSV and NDJSON): 200 with every row, or 400 for a broken header', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutationArb, { minLength: 1, maxLength: 4 }), fc.boolean(), async (mutations, nd) => {
        const text = mutations.reduce(applyMutation, base);
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'text/csv', accept: nd ? 'application/x-ndjson' : 'text/csv' },
          body: text,
        });
        const body = await res.text();
        expect(res.status).toBeLessThan(500);
        const recs = records(text);
        if (!headerIsValid(recs)) {
          expect(res.status).toBe(400);
          return;
        }
        expect(res.status).toBe(200);
        if (nd) {
          const lines = parseNdjson(body);
          expect(lines.every((l) => (l.error === null) !== (l.result === null))).toBe(true);
        } else {
          expectOneRowPerRecord(body, recs);
        }
      }),
      { numRuns: 40, seed: 7867384 },
    );
  });
});
