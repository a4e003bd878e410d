/**
 * Crash files through the real server: src/server.ts run with `npm start`'s node
 * flags, one thread. Each file is answered with every row accounted for, and afterwards the server still
 * computes a normal file correctly.
 *
 *  - one student_id on many rows, each with a huge term_label (the issue: 36+ rows of 3.9 MB, 141 MB, killed
 *    the process from a piscina thread);
 *  - many huge cells spread over the file among normal students (the issue: 130 cells of 3.9 MB, 507 MB).
 *
 * CI runs smaller variants of the same shape that still exceed every limit (cells far over BULK_MAX_CELL_CHARS
 * and lines over BULK_MAX_ROW_CHARS, a student that would be megabytes); CRASH_FILES_FULL=1 runs the full-size
 * files and prints the server's peak RSS (VmHWM) and the time of each request. The files are generated on
 * the fly into a temporary directory, streaming, and deleted.
 */
import { serverEnv } from '../support/processes.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADER, ROOT, SAMPLE_CSV, parseOutput, row } from './helpers.ts';
import { expectSampleCsv } from './sample-doors.ts';

const FULL = process.env.CRASH_FILES_FULL === '1';
const REPO = new URL('.', ROOT).pathname;
const NODE = join(REPO, 'node_modules', '.bin', 'node');

/** The node flags of `npm start` (package.json), so the server runs with the heap settings it has in production. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  return words.slice(1).filter((w) => w.startsWith('--'));
}

/** Writes `lines()` to `path` as they come, honouring backpressure (never the whole file in memory). */
async function writeFile(path: string, lines: () => Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const line of lines()) {
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** POSTs the file as text/csv (streamed); resolves with the status and the body. */
function post(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/calculate/bulk`, { method: 'POST', headers: { 'content-type': 'text/csv' } });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    createReadStream(path).pipe(req);
  });
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

let dir: string;
let server: ChildProcess;
let url: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sor-crash-'));
  server = spawn(NODE, [...startFlags(), join(REPO, 'src', 'server.ts')], {
    cwd: REPO,
    env: serverEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  server.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  url = await new Promise<string>((resolve, reject) => {
    server.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      const m =
        /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(stdout) ?? /"url":"([^"]+)"[^\n]*"msg":"listening"/.exec(stdout);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
}, 60_000);

afterAll(async () => {
  if (server !== undefined && server.exitCode === null && server.signalCode === null) {
    server.kill('SIGKILL');
    await once(server, 'exit');
  }
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Sends the file, checks every row is answered, then checks the server still computes the sample correctly. */
async function sendAndCheck(name: string, path: string, expectRows: (rows: ReturnType<typeof parseOutput>) => void) {
  const started = performance.now();
  const { status, body } = await post(url, path);
  const seconds = (performance.now() - started) / 1000;
  if (FULL) {
    const size = (await stat(path)).size;
    console.log(
      `${name}: ${(size / 1e6).toFixed(0)} MB in ${seconds.toFixed(1)} s, server peak RSS ${peakRssMb(server.pid!)} MB`,
    );
  }
  expect(status).toBe(200);
  expectRows(parseOutput(body));
  expect(server.exitCode).toBeNull();
  const sample = await post(url, SAMPLE_CSV.pathname);
  expect(sample.status).toBe(200);
  expectSampleCsv(sample.body); // the golden rows as the HTTP door answers them (see sample-doors.ts)
}

describe('crash files through the real server', () => {
  it('one student_id on many rows, each with a huge term_label: every row an error row, the server stays up', async () => {
    const rows = 40;
    const cell = FULL ? 3_900_000 : 200_000;
    const path = join(dir, 'one-student.csv');
    await writeFile(path, function* () {
      yield `${HEADER}\n`;
      for (let r = 0; r < rows; r++) yield `${row('X1', `T${r}${'x'.repeat(cell)}`, '12')}\n`;
      yield `${row('OK1', 'Fall', '12')}\n`;
    });
    await sendAndCheck('one student, huge term_labels', path, (out) => {
      expect(out.length).toBe(rows + 1);
      const x = out.slice(0, rows);
      expect(x.every((r) => r.student_id === 'X1' && r.row_status === 'error')).toBe(true);
      expect(x[0]!.term_label).toBe(`T0${'x'.repeat(998)}`);
      expect(x[0]!.error_message).toMatch(/the term_label cell has more than 1000 characters/);
      expect(out[rows]).toMatchObject({ student_id: 'OK1', row_status: 'ok' });
    });
  }, 600_000);

  it('huge cells spread over a file of normal students: those students are errors, the others computed', async () => {
    const bigRows = 130;
    const cell = FULL ? 3_900_000 : 100_000;
    const path = join(dir, 'big-cells.csv');
    await writeFile(path, function* () {
      yield `${HEADER}\n`;
      for (let s = 0; s < bigRows; s++) {
        yield `${row(`N${s}`, 'Fall', '12')}\n${row(`N${s}`, 'Spring', '12')}\n`;
        yield `${row(`B${s}`, 'Fall', '12', { cost_of_attendance: '9'.repeat(cell) })}\n`;
      }
    });
    await sendAndCheck('big cells among normal students', path, (out) => {
      expect(out.length).toBe(bigRows * 3);
      const big = out.filter((r) => r.student_id.startsWith('B'));
      expect(big.length).toBe(bigRows);
      expect(big.every((r) => r.row_status === 'error' && /cost_of_attendance cell/.test(r.error_message))).toBe(true);
      expect(big.every((r) => r.cost_of_attendance === '9'.repeat(1000))).toBe(true);
      expect(out.filter((r) => r.student_id.startsWith('N')).every((r) => r.row_status === 'ok')).toBe(true);
    });
  }, 600_000);
});
