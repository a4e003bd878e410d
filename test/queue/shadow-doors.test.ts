/**
 * The shadow check through every door, with a file of one student per reason (test/bulk/shadow-files.ts): the
 * inline pipeline's bytes are the reference; the pool, the queue (a real Redis and a real worker process, nothing
 * run locally), POST /v1/calculate/bulk, POST /v1/jobs (memory and Redis stores) and the CLI (local and --server)
 * give the same bytes in CSV and NDJSON, the job status carries the same check_summary, and the CLI prints the
 * summary table and exits 2.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkFormat } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner, type PoolRunner } from '../../src/bulk/runners/pool.ts';
import type { CheckSummary } from '../../src/bulk/shadow-summary.ts';
import { createQueueRunner } from '../../src/queue/queue-runner.ts';
import { killAll, startWorker } from '../support/processes.ts';
import { findRedis, uniquePrefix, type TestRedis } from '../support/redis.ts';
import { runToString } from '../bulk/helpers.ts';
import { SHADOW_CASES, shadowCsv } from '../bulk/shadow-files.ts';
import { bulkOutputText, countingFallback, removePrefix, silentLogger, startService, testConfig } from './helpers.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const csv = shadowCsv();
const expected: Record<BulkFormat, string> = { csv: '', ndjson: '' };
let summary: CheckSummary;
let redis: TestRedis;
let pool: PoolRunner;
let dir: string;
const prefixes: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sor-shadow-'));
  writeFileSync(join(dir, 'in.csv'), csv);
  const inline = createInlineRunner();
  const out = await runToString(csv, inline);
  expected.csv = out.text;
  summary = out.summary.checks!;
  expected.ndjson = (await runToString(csv, inline, { format: 'ndjson' })).text;
  redis = await findRedis();
  pool = createPoolRunner({ threads: 1 });
});

afterAll(async () => {
  await killAll();
  await pool?.close();
  for (const prefix of prefixes) await removePrefix(redis.url, prefix);
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function sor(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

function expectSummaryTable(stderr: string): void {
  expect(stderr).toMatch(/shadow check \(students\):/);
  expect(stderr).toMatch(new RegExp(`mismatch\\s+${summary.mismatch}\\n`));
  for (const [reason, n] of Object.entries(summary.by_reason)) {
    expect(stderr).toMatch(new RegExp(`mismatch: ${reason}\\s+${n}\\n`));
  }
  expect(stderr).toMatch(/differ from the rules/);
}

async function runJob(base: string, format: BulkFormat): Promise<{ job: Record<string, unknown>; result: string }> {
  const accept = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
  const res = await fetch(`${base}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv', accept },
    body: csv,
  });
  expect(res.status).toBe(202);
  const { status_url, result_url } = (await res.json()) as { status_url: string; result_url: string };
  for (;;) {
    const job = (await (await fetch(`${base}${status_url}`)).json()) as Record<string, unknown>;
    if (job.status === 'completed' || job.status === 'failed') {
      expect(job.status).toBe('completed');
      return { job, result: await (await fetch(`${base}${result_url}`)).text() };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('same bytes and summary from every door', () => {
  it('the summary counts one student per reason', () => {
    expect(summary.mismatch).toBe(SHADOW_CASES.filter((c) => c.status === 'mismatch').length);
    expect(Object.values(summary.by_reason).every((n) => n >= 1)).toBe(true);
    expect(summary.checked).toBe(summary.match + summary.mismatch);
  });

  it('CLI (local): same bytes, the summary table, exit 2', async () => {
    for (const format of ['csv', 'ndjson'] as const) {
      const run = await sor(['bulk', 'in.csv', '--format', format]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe(expected[format]);
      expectSummaryTable(run.stderr);
    }
  });

  it('a file without mismatches exits 0 from the CLI', async () => {
    const matches = shadowCsv()
      .split('\n')
      .filter((l, i) => i === 0 || l.startsWith('MATCH-'));
    writeFileSync(join(dir, 'match.csv'), matches.join('\n') + '\n');
    const run = await sor(['bulk', 'match.csv', '-o', 'match.out.csv']);
    expect(run.code).toBe(0);
    expect(readFileSync(join(dir, 'match.out.csv'), 'utf8')).toMatch(/,match,,\n/);
    expect(run.stderr).toMatch(/every checked student matches the rules/);
  });

  it('the queue: a real worker process computes every chunk, same bytes as inline', async () => {
    const prefix = uniquePrefix('shadow');
    prefixes.push(prefix);
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix, BULK_CHUNK_STUDENTS: '2' };
    await startWorker(env);
    const config = testConfig(env);
    const fallback = countingFallback(pool);
    const runner = createQueueRunner({ config, logger: silentLogger, fallback });
    try {
      const counted: boolean[] = [];
      for (const format of ['csv', 'ndjson'] as const) {
        const bound = runner;
        // Each chunk's check counts come back from the worker with its output (signed with it).
        const recording: ChunkRunner = {
          kind: bound.kind,
          run: async (task) => {
            const out = await bound.run(task);
            counted.push(out.checks !== undefined);
            return out;
          },
          close: () => bound.close(),
        };
        expect(await bulkOutputText({ body: csv, format, runner: recording, config })).toBe(expected[format]);
      }
      expect(fallback.calls).toBe(0);
      expect(counted.length).toBeGreaterThan(2);
      expect(counted.every(Boolean)).toBe(true);
    } finally {
      await runner.close();
    }
  });

  it('the service with Redis: bulk endpoint through the queue, jobs with check_summary in the Redis store, CLI --server', async () => {
    const prefix = uniquePrefix('shadow-svc');
    prefixes.push(prefix);
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix, BULK_CHUNK_STUDENTS: '3', BULK_SYNC_MAX_ROWS: '0' };
    await startWorker(env);
    const service = await startService(testConfig(env));
    try {
      for (const format of ['csv', 'ndjson'] as const) {
        const accept = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
        const res = await fetch(`${service.base}/v1/calculate/bulk`, {
          method: 'POST',
          headers: { 'content-type': 'text/csv', accept },
          body: csv,
        });
        expect(await res.text()).toBe(expected[format]);
        const { job, result } = await runJob(service.base, format);
        expect(result).toBe(expected[format]);
        expect(job.check_summary).toEqual(summary);
      }
      const remote = await sor(['bulk', 'in.csv', '--server', service.base]);
      expect(remote.code).toBe(2);
      expect(remote.stdout).toBe(expected.csv);
      expectSummaryTable(remote.stderr);
    } finally {
      await service.close();
    }
  });

  it('the service without Redis: bulk endpoint (pool) and jobs with check_summary in the memory store', async () => {
    const service = await startService(testConfig({ BULK_SYNC_MAX_ROWS: '0', BULK_CHUNK_STUDENTS: '4' }));
    try {
      const res = await fetch(`${service.base}/v1/calculate/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: csv,
      });
      expect(await res.text()).toBe(expected.csv);
      const { job, result } = await runJob(service.base, 'ndjson');
      expect(result).toBe(expected.ndjson);
      expect(job.check_summary).toEqual(summary);
      // A file without sis_* columns has no check_summary.
      const plain = csv.replace(/,sis_option.*\n/, '\n');
      const header = plain.slice(0, plain.indexOf('\n')).split(',').length;
      const body = plain
        .split('\n')
        .map((l, i) => (i === 0 || l === '' ? l : l.split(',').slice(0, header).join(',')))
        .join('\n');
      const noSis = await fetch(`${service.base}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body,
      });
      const { status_url } = (await noSis.json()) as { status_url: string };
      let job2: Record<string, unknown>;
      do {
        await new Promise((r) => setTimeout(r, 50));
        job2 = (await (await fetch(`${service.base}${status_url}`)).json()) as Record<string, unknown>;
      } while (job2.status !== 'completed' && job2.status !== 'failed');
      expect(job2.status).toBe('completed');
      expect('check_summary' in job2).toBe(false);
    } finally {
      await service.close();
    }
  });
});
