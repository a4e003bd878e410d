/**
 * `sor bulk --server URL`: the CLI submits the file to a running service's async job API, follows the progress
 * and writes the result: the same bytes and exit status as a local `sor bulk` of the same file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { freePort } from '../support/redis.ts';
import { makeCsv } from './csv-gen.ts';
import { type RunningService, startService, testConfig } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'sor-remote-'));
const input = join(dir, 'students.csv');
let service: RunningService;
let base: string;
const cliEnv = { BULK_CHUNK_STUDENTS: '100', BULK_SYNC_MAX_ROWS: '50', BULK_THREADS: '2' };

function io() {
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  return {
    io: { stdin: Readable.from([]), stdout: new PassThrough(), stderr, env: cliEnv },
    stderr: () => err,
  };
}

beforeAll(async () => {
  writeFileSync(input, makeCsv(1500, 21));
  // The service without Redis: the same job API on the in-process store.
  service = await startService(testConfig(cliEnv));
  base = service.base;
});

afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sor bulk --server', () => {
  it.each(['csv', 'ndjson'] as const)('writes the same %s and exit status as a local run', async (format) => {
    const local = io();
    const localOut = join(dir, `local.${format}`);
    const localCode = await main(['bulk', input, '-o', localOut, '--format', format], local.io);
    const remote = io();
    const remoteOut = join(dir, `remote.${format}`);
    const remoteCode = await main(['bulk', input, '-o', remoteOut, '--format', format, '--server', base], remote.io);
    expect(remoteCode).toBe(localCode);
    expect(remoteCode).toBe(2); // the generated file has invalid students: error rows
    expect(readFileSync(remoteOut, 'utf8')).toBe(readFileSync(localOut, 'utf8'));
    expect(remote.stderr()).toMatch(/job [0-9a-f]{52} accepted/);
    expect(remote.stderr()).toMatch(/1,500 students in .* error rows/);
  });

  it('exits 4 with the service’s sentence when it refuses the file (a bad header: 400 at submission), leaving no output file', async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'student_id,term_label\nS1,Fall\n');
    const out = join(dir, 'bad-out.csv');
    const r = io();
    expect(await main(['bulk', bad, '-o', out, '--server', base], r.io)).toBe(4);
    expect(r.stderr()).toMatch(
      /sor: error: the service refused to take the file \(validation_error\): The CSV header is invalid/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('exits 3 with one sentence when the server cannot be reached', async () => {
    const r = io();
    const url = `http://127.0.0.1:${await freePort()}`;
    expect(await main(['bulk', input, '-o', join(dir, 'x.csv'), '--server', url], r.io)).toBe(3);
    expect(r.stderr()).toMatch(
      new RegExp(
        `the service at ${url} did not answer \\(connection refused\\); check --server and that the service is running`,
      ),
    );
  });
});
