/**
 * Every way a `sor` run can fail is one plain sentence on stderr (no errno code such as ENOENT, no stack) with the
 * exit status docs/command-line.md and `sor --help` give: a missing or unreadable file, an output folder that does
 * not exist, a service that does not answer, one that is unavailable for now, one that refuses the request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EXIT_STATUS_TEXT } from '../../src/cli/exit-codes.ts';
import { generatedCsv } from '../bulk/helpers.ts';
import { freePort } from '../support/redis.ts';
import { type RunningService, startService, testConfig } from '../queue/helpers.ts';
import { type CliRun, startCli, tempDir } from './harness.ts';

const tmp = tempDir('cli-errors');
const good = join(tmp.dir, 'students.csv');
writeFileSync(good, generatedCsv(3).csv);
let nobody: string;

beforeAll(async () => {
  nobody = `http://127.0.0.1:${await freePort()}`;
});
afterAll(() => tmp.rm());

const sor = (args: string[]) => startCli(args).done;

/** One sentence: a single line after "sor: error: " (after any "sor: uploading …" line), no errno code, no stack. */
function expectOneSentence(run: CliRun, code: number, sentence: string | RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  const said = run.stderr.replace(/^sor: uploading .*\n/, '');
  expect(said.split('\n').filter(Boolean)).toHaveLength(1);
  if (typeof sentence === 'string') expect(said).toBe(`sor: error: ${sentence}\n`);
  else expect(said).toMatch(sentence);
  expect(run.stderr).not.toMatch(/\bE[A-Z]{3,}\b|\n\s+at /);
}

describe('files', () => {
  const missing = join(tmp.dir, 'missing.csv');

  it('a missing file, for every command that reads one (exit 1), before any request', async () => {
    const sentence = `cannot read ${missing}: there is no such file`;
    expectOneSentence(await sor(['bulk', missing]), 1, sentence);
    expectOneSentence(await sor(['bulk', missing, '--server', nobody]), 1, sentence);
    expectOneSentence(await sor(['jobs', 'submit', missing, '--server', nobody]), 1, sentence);
  });

  it('a folder, or a path through a file, is not a file to read (exit 1)', async () => {
    expectOneSentence(await sor(['bulk', tmp.dir]), 1, `cannot read ${tmp.dir}: it is a folder, not a file`);
    const through = join(good, 'x.csv');
    expectOneSentence(await sor(['bulk', through]), 1, `cannot read ${through}: a part of the path is not a folder`);
  });

  it('an output folder that does not exist (exit 1), leaving nothing behind', async () => {
    const out = join(tmp.dir, 'no-such-folder', 'results.csv');
    expectOneSentence(await sor(['bulk', good, '-o', out]), 1, `cannot write ${out}: its folder does not exist`);
  });

  it('a file refused before any row (a bad header) keeps the service’s words (exit 1 locally)', async () => {
    const bad = join(tmp.dir, 'bad.csv');
    writeFileSync(bad, 'student_id,credits\nS1,6\n');
    const run = await sor(['bulk', bad]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^sor: error: The CSV header is invalid: column "credits" is not a column/);
  });
});

describe('a service', () => {
  let service: RunningService;
  let busy: Server;
  let busyUrl: string;

  beforeAll(async () => {
    service = await startService(testConfig({ SPOOL_DIR: join(tmp.dir, 'spool'), JOBS_DIR: join(tmp.dir, 'jobs') }));
    // A proxy in front of a service that is down: 503 with the v1 envelope.
    busy = createServer((_req, res) => {
      res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '5' });
      res.end(JSON.stringify({ code: 'service_busy', message: 'The service is busy.' }));
    });
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyUrl = `http://127.0.0.1:${(busy.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    await service.close();
  });

  it('that does not answer: exit 3', async () => {
    const sentence = `the service at ${nobody} did not answer (connection refused); check --server and that the service is running`;
    expectOneSentence(await sor(['jobs', 'status', 'abc', '--server', nobody]), 3, sentence);
    expectOneSentence(await sor(['jobs', 'submit', good, '--server', nobody]), 3, sentence);
  });

  it('that is unavailable for now (503): exit 3, try again later', async () => {
    expectOneSentence(
      await sor(['jobs', 'submit', good, '--server', busyUrl]),
      3,
      'the service could not take the file for now: The service is busy.; try again later',
    );
  });

  it('that refuses the request (4xx): exit 4, in its own words', async () => {
    const bad = join(tmp.dir, 'bad-remote.csv');
    writeFileSync(bad, 'student_id,credits\nS1,6\n');
    const run = await sor(['jobs', 'submit', bad, '--server', service.base]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(
      /^sor: uploading .*\nsor: error: the service refused to take the file \(validation_error\): The CSV header is invalid: column "credits"/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('no --server (nor SOR_SERVER), or one that is not a URL: a usage error (exit 1)', async () => {
    const none = await sor(['jobs', 'status', 'abc']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /^sor: sor jobs needs the service: --server URL \(or SOR_SERVER\)\n\nUsage: sor jobs submit/,
    );
    const notUrl = await sor(['jobs', 'status', 'abc', '--server', 'localhost:8080']);
    expect(notUrl.code).toBe(1);
    expect(notUrl.stderr).toMatch(/--server must (be a URL|start with http)/);
  });
});

describe('exit statuses', () => {
  const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

  it('sor --help and sor jobs --help list them; docs/command-line.md lists the same', async () => {
    for (const args of [['--help'], ['jobs', '--help'], ['bulk', '--help']]) {
      const run = await sor(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(EXIT_STATUS_TEXT);
    }
    const docs = readFileSync(new URL('../../docs/command-line.md', import.meta.url), 'utf8');
    expect(docs).toContain(EXIT_STATUS_TEXT);
  });

  it('a real process exits with them (3: no answer)', async () => {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'jobs', 'status', 'abc', '--server', nobody], {
        env: { PATH: process.env.PATH ?? '' },
        stdio: 'ignore',
      });
      child.on('error', reject);
      child.on('close', resolve);
    });
    expect(code).toBe(3);
  });
});

describe('nothing is left behind', () => {
  it('no partial output file after any failure above', () => {
    mkdirSync(tmp.dir, { recursive: true });
    expect(readdirSync(tmp.dir).filter((f) => f.includes('.partial-'))).toEqual([]);
  });
});
