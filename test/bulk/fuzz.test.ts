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
import { CsvRecordReader, type CsvRecord } from '../../src/bulk/csv-reader.ts';
import { readHeader } from '../../src/bulk/csv-layout.ts';
import { isFormulaLike } from '../../src/bulk/output-csv.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { SAMPLE_CSV, bulkConfig, generatedCsv, parseNdjson, parseOutput, readText, runToString } from './helpers.ts';

type Mutation =
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; count: number }
  | { kind: 'duplicateLine'; line: number; to: number }
  | { kind: 'moveLine'; line: number; to: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'crlf' }
  | { kind: 'bom' }
  | { kind: 'semicolons'; line: number }
  | { kind: 'bigCell'; line: number; quoted: boolean };

const INSERTS = [
  '"',
  '""',
  ',',
  '\n',
  '\r\n',
  '\n\n',
  ',,,,\n',
  '\uFEFF',
  '=cmd|" /C calc"!A0',
  '+1',
  '@SUM(A1:A2)',
  '\t',
  "'",
  '\u00e9',
  '"x"y',
];

function applyMutation(text: string, m: Mutation): string {
  const lines = text.split('\n');
  const pos = (f: number) => Math.floor(f * (text.length + 1)) % (text.length + 1);
  switch (m.kind) {
    case 'insert': {
      const at = pos(m.at);
      return text.slice(0, at) + m.text + text.slice(at);
    }
    case 'delete': {
      const at = pos(m.at);
      return text.slice(0, at) + text.slice(at + m.count);
    }
    case 'duplicateLine':
    case 'moveLine': {
      if (lines.length < 3) return text;
      const i = 1 + (m.line % (lines.length - 1));
      const line = lines[i]!;
      if (m.kind === 'moveLine') lines.splice(i, 1);
      lines.splice(1 + (m.to % (lines.length - 1)), 0, line);
      return lines.join('\n');
    }
    case 'truncate':
      return text.slice(0, Math.max(1, pos(m.at)));
    case 'crlf':
      return text.replaceAll('\n', '\r\n');
    case 'bom':
      return `\uFEFF${text}`;
    case 'semicolons': {
      const i = 1 + (m.line % Math.max(1, lines.length - 1));
      if (lines[i] !== undefined) lines[i] = lines[i]!.replaceAll(',', ';');
      return lines.join('\n');
    }
    case 'bigCell': {
      const i = 1 + (m.line % Math.max(1, lines.length - 1));
      const big = 'B'.repeat(1024 * 1024);
      if (lines[i] !== undefined) {
        const cells = lines[i]!.split(',');
        cells[1] = m.quoted ? `"${big},"` : big;
        lines[i] = cells.join(',');
      }
      return lines.join('\n');
    }
  }
}

const unit = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('insert' as const), at: unit, text: fc.constantFrom(...INSERTS) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), at: unit, count: fc.integer({ min: 1, max: 5 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('duplicateLine' as const), line: fc.nat(), to: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('moveLine' as const), line: fc.nat(), to: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: unit }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crlf' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bom' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('semicolons' as const), line: fc.nat() }) },
);

function records(text: string): CsvRecord[] {
  const reader = new CsvRecordReader();
  const out: CsvRecord[] = [];
  reader.push(text.slice(0, text.indexOf('\n') + 1 || text.length), out);
  if (out[0] !== undefined && out[0].error === undefined) reader.expectedCells = out[0].cells.length;
  reader.push(text.slice(text.indexOf('\n') + 1 || text.length), out);
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
  const idIndex = readHeader(recs[0]!.cells).col.student_id;
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

  it('1 MB cells, quoted and unquoted, pass through whole', async () => {
    for (const quoted of [false, true]) {
      const text = applyMutation(base, { kind: 'bigCell', line: 3, quoted });
      const recs = records(text);
      expectEveryLineCovered(text, recs);
      const { text: out } = await runToString(text, inline, { pieces: [65_536] });
      expectOneRowPerRecord(out, recs);
      const big = parseOutput(out).find((r) => r.term_label.startsWith('BBBB'))!;
      expect(big.term_label.length).toBe(1024 * 1024 + (quoted ? 1 : 0));
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
