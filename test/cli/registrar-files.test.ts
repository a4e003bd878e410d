/**
 * The command line: --help / --version as a user runs them (a child process), the dialect options on a
 * local run, and --server through a path prefix with gzip both ways (a real service mounted under /sor/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { pino } from 'pino';
import { createApp } from '../../src/api/app.ts';
import { main } from '../../src/cli/main.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { bulkConfig } from '../bulk/helpers.ts';
import { encode, examplesFile, expectExamplesOutput } from '../bulk/registrar-files.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const dir = mkdtempSync(join(tmpdir(), 'sor-files-cli-'));

function sor(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function memoryIo() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  stdout.resume();
  return { io: { stdin: Readable.from([]), stdout, stderr, env: {} }, stderr: () => err };
}

/** The Done-when file of the issue (not gzipped: the CLI reads files; it gzips them itself for --server). */
const doneWhen = join(dir, 'export-1252.csv');
writeFileSync(doneWhen, encode(examplesFile({ delimiter: ';', extraColumn: true, trailingEmpty: 2 }), 'windows-1252'));
const DIALECT_ARGS = ['--encoding', 'windows-1252', '--delimiter', 'semicolon', '--keep-extra-columns'];

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('help and version', () => {
  it.each([
    [['--help'], /^Usage:\n {2}sor bulk IN\.csv/],
    [['bulk', '--help'], /^Usage: sor bulk IN\.csv .*\n[\s\S]*--encoding CHARSET/],
    [['bulk', '-h'], /^Usage: sor bulk IN\.csv/],
    [['calculate', '--help'], /^Usage: sor calculate REQUEST\.json/],
  ])('sor %s exits 0 with the usage on stdout', async (args, usage) => {
    const run = await sor(args);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(usage);
    expect(run.stderr).toBe('');
  });

  it('sor --version prints the package version', async () => {
    const run = await sor(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`sor ${PACKAGE.version}\n`);
  });

  it('a bad --encoding or --delimiter is a usage error (exit 1)', async () => {
    const bad = await sor(['bulk', doneWhen, '--encoding', 'ebcdic']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--encoding must be one of: utf-8, windows-1252');
    const delim = await sor(['bulk', doneWhen, '--delimiter', 'pipe']);
    expect(delim.code).toBe(1);
    expect(delim.stderr).toContain('--delimiter must be one of: comma, semicolon, tab');
  });
});

describe('sor bulk with the dialect options (local)', () => {
  it('reads the Windows-1252 semicolon export with an extra column; --bom starts the output with a BOM', async () => {
    const out = join(dir, 'local.csv');
    const run = await sor(['bulk', doneWhen, '-o', out, ...DIALECT_ARGS, '--bom']);
    expect(run.stderr).toMatch(/all rows ok/);
    expect(run.code).toBe(0);
    const bytes = readFileSync(out);
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expectExamplesOutput(bytes.subarray(3).toString('utf8'), true, ';');
  });

  it('answers in semicolons, or in commas with --output-delimiter comma', async () => {
    const out = join(dir, 'local-comma.csv');
    const run = await sor(['bulk', doneWhen, '-o', out, ...DIALECT_ARGS, '--output-delimiter', 'comma']);
    expect(run.code, run.stderr).toBe(0);
    expectExamplesOutput(readFileSync(out, 'utf8'), true, ',');
    const bad = await sor(['bulk', doneWhen, ...DIALECT_ARGS, '--output-delimiter', 'pipe']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--output-delimiter must be one of: comma, semicolon, tab');
  });

  it('without the options: exit 1 with the delimiter hint', async () => {
    const run = await sor(['bulk', doneWhen, '-o', join(dir, 'never.csv')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('This file seems to use ";" between cells');
    expect(run.stderr).toContain('--delimiter semicolon');
  });
});

describe('sor bulk --server behind a path prefix, gzip both ways', () => {
  let runtime: Runtime;
  let server: Server;
  let base: string;
  const seen: { method: string; path: string; contentEncoding?: string; acceptEncoding?: string }[] = [];
  const answered: string[] = [];

  beforeAll(async () => {
    const logger = pino({ level: 'silent' });
    const config = bulkConfig({ BULK_THREADS: '1' });
    runtime = await createRuntime(config, logger);
    const app = createApp(
      { config, logger, runners: runtime.runners, readiness: runtime.readiness },
      { routers: runtime.routers },
    );
    // A reverse proxy's view: the service lives under /sor/.
    const outer = express();
    outer.use((req, res, next) => {
      seen.push({
        method: req.method,
        path: req.originalUrl,
        contentEncoding: req.headers['content-encoding'],
        acceptEncoding: req.headers['accept-encoding'],
      });
      res.on('finish', () => {
        if (req.originalUrl.endsWith('/result')) answered.push(String(res.getHeader('content-encoding')));
      });
      next();
    });
    outer.use('/sor', app);
    server = await new Promise<Server>((resolve) => {
      const s = outer.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sor/`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await runtime?.close();
  });

  it('submits under the prefix, gzipped, with the dialect; the result comes gzipped and is right', async () => {
    const out = join(dir, 'remote.csv');
    const cli = memoryIo();
    const code = await main(['bulk', doneWhen, '-o', out, ...DIALECT_ARGS, '--server', base], cli.io);
    expect(cli.stderr()).toMatch(/all rows ok/);
    expect(code).toBe(0);
    expectExamplesOutput(readFileSync(out, 'utf8'), true, ';');
    const post = seen.find((s) => s.method === 'POST')!;
    expect(post.path).toBe('/sor/v1/jobs?charset=windows-1252&delimiter=semicolon&extra_columns=keep');
    expect(post.contentEncoding).toBe('gzip');
    expect(seen.every((s) => s.path.startsWith('/sor/v1/jobs'))).toBe(true);
    expect(seen.find((s) => s.path.endsWith('/result'))?.acceptEncoding).toMatch(/gzip/);
    expect(answered).toEqual(['gzip']);
  });
});
