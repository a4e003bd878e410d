/**
 * The `sor` CLI as a user runs it (a child process on src/cli/main.ts): same bytes as the pipeline, exit statuses,
 * stdin/stdout, no partial output file on failure; and the progress reporter's two display modes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { ProgressReporter } from '../../src/cli/progress.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { expectSampleCsv, expectSampleNdjson } from '../bulk/sample-doors.ts';
import { SAMPLE_CSV, bulkConfig, generatedCsv, readText, runToString } from '../bulk/helpers.ts';
import { EXAMPLES, withoutFreeText } from '../bulk/examples.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const SAMPLE = fileURLToPath(SAMPLE_CSV);
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sor-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sor(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: dir,
      // Only what the CLI needs: never inherit a developer's BULK_* or REDIS_URL.
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.end(options.stdin ?? '');
  });
}

describe('sor bulk', () => {
  it('writes the golden output to -o OUT and exits 2 when some rows are errors, with a summary line', async () => {
    const out = join(dir, 'sample.out.csv');
    const run = await sor(['bulk', SAMPLE, '-o', out]);
    expect(run.code).toBe(2);
    expectSampleCsv(readFileSync(out, 'utf8'));
    // BAD-1 (2 rows) and SPLIT-1 (2 rows: its rows are not contiguous, so both are errors).
    expect(run.stderr).toMatch(/sor: 18 rows, 9 students in .* s \(.* students\/s, inline runner\): 4 error rows/);
    expect(run.stdout).toBe('');
  });

  it('reads stdin and writes stdout with "-", CSV and NDJSON', async () => {
    const csv = await sor(['bulk', '-'], { stdin: readText(SAMPLE_CSV) });
    expect(csv.code).toBe(2);
    expectSampleCsv(csv.stdout);
    const nd = await sor(['bulk', SAMPLE, '--format', 'ndjson', '-o', '-']);
    expect(nd.code).toBe(2);
    expectSampleNdjson(nd.stdout);
  });

  it('runs a large file on the pool, byte-identical to the inline pipeline, and exits 0 when all rows are ok', async () => {
    const { csv } = generatedCsv(700);
    const input = join(dir, 'big.csv');
    writeFileSync(input, csv);
    const expected = (await runToString(csv, createInlineRunner(), { config: bulkConfig() })).text;
    const run = await sor(['bulk', input, '-o', join(dir, 'big.out.csv'), '--threads', '2'], {
      env: { BULK_SYNC_MAX_ROWS: '100', BULK_CHUNK_STUDENTS: '64' },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/pool runner\): all rows ok/);
    expect(readFileSync(join(dir, 'big.out.csv'), 'utf8')).toBe(expected);
  });

  it('fails with exit 1 on a bad header and leaves no output file behind', async () => {
    const input = join(dir, 'bad.csv');
    writeFileSync(input, 'student_id,credits\nS1,6\n');
    const run = await sor(['bulk', input, '-o', join(dir, 'bad.out.csv')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/sor: error: The CSV header is invalid.*\n {2}credits: is not a column/s);
    expect(readdirSync(dir).filter((f) => f.startsWith('bad.out'))).toEqual([]);
  });

  it('exit 1 with usage for bad arguments or a missing file', async () => {
    for (const args of [
      ['bulk'],
      ['bulk', SAMPLE, '--format', 'xml'],
      ['bulk', SAMPLE, '--threads', '0'],
      ['nope'],
      [],
    ]) {
      const run = await sor(args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toMatch(/Usage:/);
    }
    const missing = await sor(['bulk', join(dir, 'missing.csv')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`sor: error: cannot read ${join(dir, 'missing.csv')}: there is no such file\n`);
    expect(existsSync(join(dir, 'missing.csv'))).toBe(false);
  });
});

describe('sor calculate', () => {
  it('prints the CalculationResult of a request file (examples.json figures) and exits 0', async () => {
    const ex = EXAMPLES.find((e) => e.id === 'FSA-4')!;
    const file = join(dir, 'fsa4.json');
    writeFileSync(file, JSON.stringify(ex.request));
    const run = await sor(['calculate', file]);
    expect(run.code).toBe(0);
    expect(withoutFreeText(JSON.parse(run.stdout))).toEqual(ex.expected);
    const stdin = await sor(['calculate', '-'], { stdin: JSON.stringify(ex.request) });
    expect(stdin.stdout).toBe(run.stdout);
  });

  it('exits 2 with the validation envelope for an invalid request, 1 for a file that is not JSON', async () => {
    const invalid = await sor(['calculate', '-'], { stdin: JSON.stringify({ dependency_status: 'x', terms: [] }) });
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stdout)).toMatchObject({
      code: 'validation_error',
      field_errors: expect.arrayContaining([expect.objectContaining({ field: 'dependency_status' })]),
    });
    const notJson = await sor(['calculate', '-'], { stdin: '{nope' });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/not valid JSON/);
  });
});

describe('ProgressReporter', () => {
  function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
    const parts: string[] = [];
    const w = new Writable({
      write(chunk: Buffer, _e, cb) {
        parts.push(chunk.toString());
        cb();
      },
    }) as Writable & { isTTY: boolean; text: () => string };
    w.isTTY = isTTY;
    w.text = () => parts.join('');
    return w;
  }
  const progress = { rows: 1200, errorRows: 3, students: 480 };

  it('draws a redrawn bar of students finished, with students/s and ETA, on a terminal', () => {
    const out = sink(true);
    const r = new ProgressReporter(out, 960, 0);
    r.update(progress);
    r.finish();
    const ESC = String.fromCharCode(27);
    const text = out.text().replaceAll(`\r${ESC}[K`, '<clear>');
    expect(text).toMatch(
      /^<clear>\[#{12}-{12}\] 50% 480 \/ 960 students, [\d,]+ students\/s, 1,200 rows, 3 error rows, ETA \d+:\d\d<clear>$/,
    );
  });

  it('writes plain lines otherwise (and no percentage when the total is unknown)', () => {
    const out = sink(false);
    const r = new ProgressReporter(out, undefined, 0);
    r.update(progress);
    r.update({ ...progress, rows: 2400 });
    r.finish();
    const lines = out.text().split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^sor: 480 students, [\d,]+ students\/s, 1,200 rows, 3 error rows$/);
  });

  it('says 100% only when every student is done (99% for 99.9%)', () => {
    const out = sink(false);
    const r = new ProgressReporter(out, 5000, 0);
    for (const students of [0, 2500, 4995, 4999, 5000]) r.update({ students });
    const lines = out.text().split('\n').filter(Boolean);
    expect(lines.map((l) => /^sor: (\d+)% /.exec(l)?.[1])).toEqual(['0', '50', '99', '99', '100']);
    expect(lines[0]).toMatch(/ETA --:--$/); // no student done yet: no rate to tell
    expect(lines[4]).toMatch(/^sor: 100% 5,000 \/ 5,000 students, .*ETA 0:00$/);
  });
});
