/**
 * The door property of school policy: the same student under the same school policy gives identical figures through every
 * door. A file of three students under `proration_fraction=decimal_rounded, remainder_placement=last_term` (the
 * Handbook's example 6, the 11-month dentistry student of rules.md §2.1, and a 3-term split with a leftover
 * dollar): the inline pipeline's bytes are the reference, and the pool, the queue (a real worker process whose own
 * SOR_POLICY is the default: the policy travels in the chunk payload), POST /v1/calculate/bulk and POST /v1/jobs
 * with `policy.<option>` parameters or under SOR_POLICY (memory and Redis stores), the CLI (local --policy,
 * --server --policy) give the same bytes; POST /v1/calculate (Express route and fast lane), the worksheet JSON
 * and `sor calculate --policy` give each student's result as the NDJSON line has it. Expected dollars come from
 * examples.json and rules.md, never from the code.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkFormat } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner, type PoolRunner } from '../../src/bulk/runners/pool.ts';
import { createQueueRunner } from '../../src/queue/queue-runner.ts';
import { createRequestListener } from '../../src/api/front-door.ts';
import { createRuntime } from '../../src/runtime.ts';
import type { Config } from '../../src/config.ts';
import { DEFAULT_POLICY, policyText, resolvePolicy, type PolicyChoices } from '../../src/domain/policy.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { killAll, startWorker } from '../support/processes.ts';
import { findRedis, uniquePrefix, type TestRedis } from '../support/redis.ts';
import { parseNdjson, parseOutput } from '../bulk/helpers.ts';
import { examplesCsv, withoutFreeText } from '../bulk/examples.ts';
import { countingFallback, removePrefix, silentLogger, startService, testConfig } from './helpers.ts';
import { Readable, Writable } from 'node:stream';
import { runBulk } from '../../src/bulk/pipeline.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const CHOICES: PolicyChoices = { proration_fraction: 'decimal_rounded', remainder_placement: 'last_term' };
const POLICY = resolvePolicy(CHOICES);
const QUERY = 'policy.proration_fraction=decimal_rounded&policy.remainder_placement=last_term';
const SOR_POLICY = 'proration_fraction=decimal_rounded,remainder_placement=last_term';
const CLI_POLICY = ['--policy', 'proration_fraction=decimal_rounded', '--policy', 'remainder_placement=last_term'];

const example = (id: string) => WORKED_EXAMPLES.find((e) => e.id === id)!;
const EX6 = example('HB-CH5-EX6');
const DENTISTRY = example('HB-CH4-DENTISTRY-11');

/** Each student as a JSON request without `policy` (the file's policy applies) and as CSV rows. */
const STUDENTS: { id: string; request: Record<string, unknown> }[] = [
  { id: EX6.id, request: withoutPolicy(EX6.request) },
  { id: DENTISTRY.id, request: withoutPolicy(DENTISTRY.request) },
  {
    id: 'REMAINDER-3',
    request: {
      dependency_status: 'dependent',
      grade_level: 'first_year',
      academic_year_terms: 3,
      subsidized_amount: 0,
      terms: ['Fall', 'Winter', 'Spring'].map((label) => ({ label, full_time_credits: 12, credits_enrolled: 12 })),
    },
  },
];

function withoutPolicy(request: object): Record<string, unknown> {
  const { policy: _policy, ...rest } = request as Record<string, unknown>;
  return rest;
}

const COLUMNS = [
  'student_id',
  'term_label',
  'full_time_credits',
  'credits_enrolled',
  'dependency_status',
  'degree_level',
  'grade_level',
  'academic_year_terms',
  'is_legacy_borrower',
  'subsidized_amount',
  'final_period_of_program',
  'academic_year_credits',
  'health_professions_program',
  'academic_year_months',
];

function studentsCsv(): string {
  const lines = [COLUMNS.join(',')];
  for (const { id, request } of STUDENTS) {
    for (const term of request.terms as Record<string, unknown>[]) {
      lines.push(
        COLUMNS.map((c) => {
          const v = c === 'student_id' ? id : c === 'term_label' ? term.label : (term[c] ?? request[c]);
          return v === undefined || v === null ? '' : String(v);
        }).join(','),
      );
    }
  }
  return lines.join('\n') + '\n';
}

const csv = studentsCsv();
const expected: Record<BulkFormat, string> = { csv: '', ndjson: '' };
let results: Map<string, unknown>;
let redis: TestRedis;
let pool: PoolRunner;
let dir: string;
const prefixes: string[] = [];

async function pipelineText(format: BulkFormat, runner: ChunkRunner, config: Config, policy = POLICY) {
  const parts: Buffer[] = [];
  await runBulk({
    input: Readable.from([Buffer.from(csv)]),
    output: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        parts.push(chunk);
        callback();
      },
    }),
    format,
    runner,
    config,
    policy,
  });
  return Buffer.concat(parts).toString('utf8');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sor-policy-doors-'));
  writeFileSync(join(dir, 'in.csv'), csv);
  const inline = createInlineRunner();
  const config = testConfig({});
  expected.csv = await pipelineText('csv', inline, config);
  expected.ndjson = await pipelineText('ndjson', inline, config);
  results = new Map(parseNdjson(expected.ndjson).map((l) => [l.student_id, l.result]));
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

function sor(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8') }));
  });
}

async function bulk(base: string, format: BulkFormat, query: string): Promise<string> {
  const res = await fetch(`${base}/v1/calculate/bulk${query}`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv', accept: format === 'csv' ? 'text/csv' : 'application/x-ndjson' },
    body: csv,
  });
  expect(res.status).toBe(200);
  return res.text();
}

async function runJob(
  base: string,
  format: BulkFormat,
  query: string,
): Promise<{ job: Record<string, unknown>; result: string }> {
  const res = await fetch(`${base}/v1/jobs${query}`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv', accept: format === 'csv' ? 'text/csv' : 'application/x-ndjson' },
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

async function postJson(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** The whole service behind the front door (the fast lane of POST /v1/calculate included). */
async function startFrontDoor(config: Config): Promise<{ base: string; close(): Promise<void> }> {
  const runtime = await createRuntime(config, silentLogger);
  const listener = createRequestListener(
    { config, logger: silentLogger, runners: runtime.runners, readiness: runtime.readiness },
    { routers: runtime.routers, openApiPaths: runtime.openApiPaths },
  );
  const server: Server = await new Promise((resolve) => {
    const s = createServer(listener).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
    },
  };
}

type Result = {
  annual_basic_eligibility_sub: number;
  annual_basic_eligibility_unsub: number;
  warnings: string[];
  terms: { equal: { subsidized: number; unsubsidized: number } }[];
};

describe('the reference: the file under its policy', () => {
  it('gives the figures of examples.json and rules.md, and says which policy is in force', () => {
    const ex6 = results.get(EX6.id) as Result;
    // Handbook ch. 5 example 6 with the 2-decimal fraction: 12,500 × 0.67 = 8,375; 5,500 × 0.67 = 3,685.
    expect([ex6.annual_basic_eligibility_sub, ex6.annual_basic_eligibility_unsub]).toEqual([
      EX6.expected.annual_basic_eligibility_sub,
      EX6.expected.annual_basic_eligibility_unsub,
    ]);
    expect(ex6.annual_basic_eligibility_sub).toBe(3685);
    const dentistry = results.get(DENTISTRY.id) as Result;
    expect(dentistry.annual_basic_eligibility_unsub).toBe(44_944); // 20,500 + 20,000 ÷ 9 × 11
    // 5,500 over three terms: the floor of each share (1,833) and the leftover dollar on the last term.
    const split = results.get('REMAINDER-3') as Result;
    expect(split.terms.map((t) => t.equal.unsubsidized)).toEqual([1833, 1833, 1834]);
    for (const id of results.keys()) {
      expect((results.get(id) as Result).warnings).toContain(`School policy in force: ${policyText(POLICY)}.`);
    }
    // Under the default policy the same file splits largest-remainder first: the policy did reach the students.
    expect(parseOutput(expected.csv).filter((r) => r.student_id === 'REMAINDER-3')).toHaveLength(3);
  });

  it('without the policy the leftover dollar goes to the earlier term (the policy is what changed it)', async () => {
    const text = await pipelineText('ndjson', createInlineRunner(), testConfig({}), DEFAULT_POLICY);
    const split = parseNdjson(text).find((l) => l.student_id === 'REMAINDER-3')!.result as Result;
    expect(split.terms.map((t) => t.equal.unsubsidized)).toEqual([1834, 1833, 1833]);
  });
});

describe('the examples printed under a policy, each file under its own (examples.json, field for field)', () => {
  it('POST /v1/calculate/bulk with the example’s policy.<option> parameters answers its expected result', async () => {
    const withPolicy = WORKED_EXAMPLES.filter((e) => e.request.policy !== undefined);
    expect(withPolicy.map((e) => e.id)).toEqual(expect.arrayContaining(['HB-CH5-EX5', 'HB-CH5-EX6']));
    const service = await startService(testConfig({}));
    try {
      for (const ex of withPolicy) {
        const policy = ex.request.policy as Record<string, string>;
        const query = new URLSearchParams(
          Object.entries(policy).map(([k, v]): [string, string] => [`policy.${k}`, v]),
        ).toString();
        const file = examplesCsv([{ id: ex.id, request: withoutPolicy(ex.request) as { terms: object[] } }]);
        const res = await fetch(`${service.base}/v1/calculate/bulk?${query}`, {
          method: 'POST',
          headers: { 'content-type': 'text/csv', accept: 'application/x-ndjson' },
          body: file,
        });
        const [line] = parseNdjson(await res.text());
        expect(line!.error).toBeNull();
        expect(withoutFreeText(line!.result), ex.id).toEqual(ex.expected);
      }
    } finally {
      await service.close();
    }
  });
});

describe('same figures from every door', () => {
  it('the pool runner: same bytes', async () => {
    const config = testConfig({ BULK_CHUNK_STUDENTS: '1' });
    for (const format of ['csv', 'ndjson'] as const) {
      expect(await pipelineText(format, pool, config)).toBe(expected[format]);
    }
  });

  it('CLI: bulk --policy locally, and calculate --policy per student', async () => {
    for (const format of ['csv', 'ndjson'] as const) {
      const run = await sor(['bulk', 'in.csv', '--format', format, ...CLI_POLICY]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(expected[format]);
    }
    // SOR_POLICY is the CLI's default too.
    expect((await sor(['bulk', 'in.csv', '--format', 'ndjson'], { SOR_POLICY })).stdout).toBe(expected.ndjson);
    for (const { id, request } of STUDENTS) {
      writeFileSync(join(dir, `${id}.json`), JSON.stringify(request));
      const run = await sor(['calculate', `${id}.json`, ...CLI_POLICY]);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(results.get(id));
    }
  });

  it('the service without Redis: JSON (Express and fast lane) and worksheet under SOR_POLICY or the request’s policy, bulk and jobs with the query', async () => {
    const plain = await startService(testConfig({ BULK_SYNC_MAX_ROWS: '0', BULK_CHUNK_STUDENTS: '2' }));
    const deployed = await startFrontDoor(testConfig({ SOR_POLICY }));
    try {
      for (const { id, request } of STUDENTS) {
        expect(await postJson(plain.base, '/v1/calculate', { ...request, policy: CHOICES })).toEqual(results.get(id));
        expect(await postJson(deployed.base, '/v1/calculate', request)).toEqual(results.get(id));
        const worksheet = await postJson(deployed.base, '/v1/calculate/worksheet', request);
        expect(worksheet.result).toEqual(results.get(id));
        expect(worksheet.policy).toEqual(POLICY);
        // The request's own policy overrides SOR_POLICY option by option: all defaults here.
        const overridden = await postJson(deployed.base, '/v1/calculate', {
          ...request,
          policy: { proration_fraction: 'exact', remainder_placement: 'largest_remainder' },
        });
        expect(overridden).toEqual(await postJson(plain.base, '/v1/calculate', request));
      }
      for (const format of ['csv', 'ndjson'] as const) {
        expect(await bulk(plain.base, format, `?${QUERY}`)).toBe(expected[format]);
        expect(await bulk(deployed.base, format, '')).toBe(expected[format]);
        const { job, result } = await runJob(plain.base, format, `?${QUERY}`);
        expect(result).toBe(expected[format]);
        expect(job.policy).toEqual(POLICY);
      }
      const { job: defaultJob } = await runJob(plain.base, 'csv', '');
      expect(defaultJob.policy).toEqual(DEFAULT_POLICY);
      const { job: deployedJob, result } = await runJob(deployed.base, 'csv', '');
      expect([deployedJob.policy, result]).toEqual([POLICY, expected.csv]);
    } finally {
      await plain.close();
      await deployed.close();
    }
  });

  it('the queue: a worker with the default SOR_POLICY computes every chunk under the file’s policy', async () => {
    const prefix = uniquePrefix('policy');
    prefixes.push(prefix);
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix, BULK_CHUNK_STUDENTS: '1' };
    await startWorker(env);
    const config = testConfig(env);
    const fallback = countingFallback(pool);
    const runner = createQueueRunner({ config, logger: silentLogger, fallback });
    try {
      for (const format of ['csv', 'ndjson'] as const) {
        expect(await pipelineText(format, runner, config)).toBe(expected[format]);
      }
      expect(fallback.calls).toBe(0);
    } finally {
      await runner.close();
    }
  });

  it('the service with Redis: bulk through the queue, jobs in the Redis store keep the policy, CLI --server --policy', async () => {
    const prefix = uniquePrefix('policy-svc');
    prefixes.push(prefix);
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix, BULK_CHUNK_STUDENTS: '1', BULK_SYNC_MAX_ROWS: '0' };
    await startWorker(env);
    const service = await startService(testConfig(env));
    try {
      for (const format of ['csv', 'ndjson'] as const) {
        expect(await bulk(service.base, format, `?${QUERY}`)).toBe(expected[format]);
        const { job, result } = await runJob(service.base, format, `?${QUERY}`);
        expect(result).toBe(expected[format]);
        expect(job.policy).toEqual(POLICY);
      }
      const remote = await sor(['bulk', 'in.csv', '--server', service.base, ...CLI_POLICY]);
      expect(remote.code).toBe(0);
      expect(remote.stdout).toBe(expected.csv);
    } finally {
      await service.close();
    }
  });
});
