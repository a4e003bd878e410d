/**
 * The client examples the docs show (examples/clients/) run against a real service, as an integrator
 * runs them: Python `requests` (bulk and jobs), Java `HttpClient` (single-file `java Client.java`) and curl, each
 * sending the Windows-1252 semicolon export gzipped and reading a gzip answer. (The PowerShell example is not run:
 * PowerShell is not installed here; the README says so.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { pino } from 'pino';
import { createApp } from '../../src/api/app.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { bulkConfig } from '../bulk/helpers.ts';
import { encode, examplesFile, expectExamplesOutput } from '../bulk/registrar-files.ts';

const CLIENTS = fileURLToPath(new URL('../../examples/clients/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sor-clients-'));
const input = join(dir, 'export.csv');
writeFileSync(input, encode(examplesFile({ delimiter: ';', trailingEmpty: 2 }), 'windows-1252'));

let runtime: Runtime;
let server: Server;
let base: string;
const seen: { method: string; path: string; contentEncoding?: string; answered?: string }[] = [];

beforeAll(async () => {
  const logger = pino({ level: 'silent' });
  const config = bulkConfig({ BULK_THREADS: '1' });
  runtime = await createRuntime(config, logger);
  const app = createApp(
    { config, logger, runners: runtime.runners, readiness: runtime.readiness },
    { routers: runtime.routers },
  );
  const outer = express();
  outer.use((req, res, next) => {
    const entry: (typeof seen)[number] = {
      method: req.method,
      path: req.path,
      contentEncoding: req.headers['content-encoding'],
    };
    seen.push(entry);
    res.on('finish', () => (entry.answered = String(res.getHeader('content-encoding') ?? 'identity')));
    next();
  });
  outer.use(app);
  server = await new Promise<Server>((resolve) => {
    const s = outer.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await runtime?.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: CLIENTS, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The requests a client made since `from`, and what was answered. */
function since(from: number) {
  return seen.slice(from);
}

describe('client examples (examples/clients), run against the service', () => {
  it('Python requests, bulk: gzip up, gzip down, the right results', async () => {
    const out = join(dir, 'py-bulk.csv');
    const from = seen.length;
    const r = await run('python3', ['sor_client.py', 'bulk', base, input, out, 'windows-1252', 'semicolon']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectExamplesOutput(readFileSync(out, 'utf8'), false, ';');
    expect(since(from)).toEqual([
      { method: 'POST', path: '/v1/calculate/bulk', contentEncoding: 'gzip', answered: 'gzip' },
    ]);
  });

  it('Python requests, jobs: submit gzipped, poll, the result gzipped', async () => {
    const out = join(dir, 'py-job.csv');
    const from = seen.length;
    const r = await run('python3', ['sor_client.py', 'job', base, input, out, 'windows-1252', 'semicolon']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectExamplesOutput(readFileSync(out, 'utf8'), false, ';');
    const requests = since(from);
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/v1/jobs', contentEncoding: 'gzip' });
    expect(requests.at(-1)).toMatchObject({ method: 'GET', answered: 'gzip' });
    expect(requests.at(-1)!.path).toMatch(/^\/v1\/jobs\/[^/]+\/result$/);
  });

  it('Python requests: a refused file exits 1 with the error envelope', async () => {
    const r = await run('python3', ['sor_client.py', 'bulk', base, input, join(dir, 'never.csv'), 'windows-1252']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('400 validation_error: The CSV header is invalid');
    expect(r.stderr).toContain('?delimiter=semicolon');
  });

  it('Java HttpClient (java Client.java): gzip up, gzip down, the right results', { timeout: 120_000 }, async () => {
    const out = join(dir, 'java.csv');
    const from = seen.length;
    const r = await run('java', ['Client.java', base, input, out, 'windows-1252', 'semicolon']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectExamplesOutput(readFileSync(out, 'utf8'), false, ';');
    expect(since(from)).toEqual([
      { method: 'POST', path: '/v1/calculate/bulk', contentEncoding: 'gzip', answered: 'gzip' },
    ]);
  });

  it('curl (curl.sh): bulk and jobs, gzip both ways', { timeout: 60_000 }, async () => {
    const out = join(dir, 'curl.csv');
    const from = seen.length;
    const r = await run('sh', ['curl.sh', base, input, out, 'windows-1252', 'semicolon']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectExamplesOutput(readFileSync(out, 'utf8'), false, ';');
    expectExamplesOutput(readFileSync(`${out}.job`, 'utf8'), false, ';');
    const requests = since(from);
    expect(requests[0]).toEqual({
      method: 'POST',
      path: '/v1/calculate/bulk',
      contentEncoding: 'gzip',
      answered: 'gzip',
    });
    expect(requests[1]).toMatchObject({ method: 'POST', path: '/v1/jobs', contentEncoding: 'gzip' });
    expect(requests.at(-1)).toMatchObject({ method: 'GET', answered: 'gzip' });
  });
});
