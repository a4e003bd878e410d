/**
 * The job resource over HTTP, through the whole service (runtime + app, in this process):
 *  - a job of the spec's worked examples (plus its invalid examples as error students) shows its rule set,
 *    policy, times, counts, summary and error groups; the summary's dollars and distribution are the sums of
 *    examples.json's expected results; every field is what the OpenAPI Job schema says;
 *  - its four downloads are the synchronous bulk answers for the same file (CSV and NDJSON) and the errors-only
 *    CSV (the CSV's header and error rows), whichever format was asked;
 *  - DELETE makes a running job `cancelled`, distinct from failed, and its downloads answer 409 job_cancelled;
 *  - Idempotency-Key with access control: the same upload and options give the same job, another upload or other
 *    options 422 idempotency_key_reused, another token's same key is its own; without access control the key is
 *    the upload's (another file is another job, never a 422).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobSchema } from '../../src/api/openapi/jobs-paths.ts';
import { RULE_SET_ID } from '../../src/domain/rule-set.ts';
import { DEFAULT_POLICY } from '../../src/domain/policy.ts';
import { SIBLING_ERROR_MESSAGE } from '../../src/bulk/result-stats.ts';
import { CSV_INVALID_EXAMPLES, EXAMPLES, examplesCsv } from '../bulk/examples.ts';
import { parseOutput } from '../bulk/helpers.ts';
import { type RunningService, startService, testConfig } from '../queue/helpers.ts';
import { bearer, createToken, tokenServiceEnv } from '../auth/helpers.ts';
import { makeCsv } from '../queue/csv-gen.ts';

type Job = Record<string, unknown> & {
  id: string;
  status: string;
  links: Record<string, string | null>;
  counts: Record<string, unknown>;
  summary: { totals: { equal: Option; proportional: Option } } & Record<string, unknown>;
  error_groups: { field: string; message: string; rows: number; first_lines: number[] }[];
};
type Option = { subsidized: number; unsubsidized: number; grad_plus: number };

const file = examplesCsv([...EXAMPLES, ...CSV_INVALID_EXAMPLES]);
const root = mkdtempSync(join(tmpdir(), 'sor-job-resource-'));
const TTL = 3600;
let open: RunningService;

afterAll(async () => {
  await open?.close();
  rmSync(root, { recursive: true, force: true });
});

async function post(base: string, path: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'text/csv', ...headers }, body });
}

async function finished(base: string, id: string, headers: Record<string, string> = {}): Promise<Job> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = (await (await fetch(`${base}/v1/jobs/${id}`, { headers })).json()) as Job;
    if (!['queued', 'running'].includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sum = (xs: Option[]): Option => ({
  subsidized: xs.reduce((n, x) => n + x.subsidized, 0),
  unsubsidized: xs.reduce((n, x) => n + x.unsubsidized, 0),
  grad_plus: xs.reduce((n, x) => n + x.grad_plus, 0),
});

describe('a job of the worked examples', () => {
  let job: Job;
  let base: string;

  beforeAll(async () => {
    open = await startService(
      testConfig({
        SPOOL_DIR: join(root, 'open-spool'),
        JOBS_DIR: join(root, 'open-jobs'),
        BULK_CHUNK_STUDENTS: '4',
        BULK_SYNC_MAX_ROWS: '10',
        JOB_TTL_SECONDS: String(TTL),
      }),
    );
    base = open.base;
    const res = await post(base, '/v1/jobs', file, { Accept: 'application/x-ndjson' });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as Job;
    expect(() => JobSchema.parse(accepted)).not.toThrow(); // the 202 is the job itself
    expect(accepted.status).toBe('queued');
    job = await finished(base, accepted.id);
  }, 90_000);

  it('shows its rule set, policy, times and counts, as the Job schema says', () => {
    expect(() => JobSchema.parse(job)).not.toThrow();
    expect(job).toMatchObject({ object: 'job', status: 'completed', format: 'ndjson', rule_set: RULE_SET_ID });
    expect(job.policy).toEqual(DEFAULT_POLICY);
    const finishedAt = Date.parse(job.finished_at as string);
    expect(Date.parse(job.expires_at as string)).toBe(finishedAt + TTL * 1000);
    expect(Date.parse(job.started_at as string)).toBeGreaterThanOrEqual(Date.parse(job.created_at as string));
    const rows = [...EXAMPLES, ...CSV_INVALID_EXAMPLES].reduce((n, e) => n + e.request.terms.length, 0);
    const errorRows = CSV_INVALID_EXAMPLES.reduce((n, e) => n + e.request.terms.length, 0);
    expect(job.counts).toEqual({
      students: EXAMPLES.length + CSV_INVALID_EXAMPLES.length,
      rows,
      rows_ok: rows - errorRows,
      error_rows: errorRows,
      students_ok: EXAMPLES.length,
      students_with_errors: CSV_INVALID_EXAMPLES.length,
      check: null,
    });
  });

  it("has a summary that adds up examples.json's expected results", () => {
    const expected = EXAMPLES.map(
      (e) => e.expected as { reduced_annual_pct: number; total_equal: Option; total_proportional: Option },
    );
    const reduced = expected.filter((e) => e.reduced_annual_pct < 100).length;
    expect(job.summary.students_reduced).toBe(reduced);
    expect(job.summary.students_not_reduced).toBe(EXAMPLES.length - reduced);
    expect(job.summary.totals.equal).toEqual(sum(expected.map((e) => e.total_equal)));
    expect(job.summary.totals.proportional).toEqual(sum(expected.map((e) => e.total_proportional)));
    const buckets = job.summary.reduced_annual_pct as { from: number; to: number; students: number }[];
    expect(buckets.map((b) => [b.from, b.to])).toEqual([
      ...Array.from({ length: 10 }, (_, i) => [i * 10, i * 10 + 9]),
      [100, 100],
    ]);
    for (const b of buckets) {
      const inside = expected.filter((e) => e.reduced_annual_pct >= b.from && e.reduced_annual_pct <= b.to);
      expect(b.students, `${b.from}-${b.to}`).toBe(inside.length);
    }
  });

  it('groups its error rows, largest groups first, each naming lines of the file', async () => {
    const groups = job.error_groups;
    expect(groups.reduce((n, g) => n + g.rows, 0)).toBeGreaterThanOrEqual(job.counts.error_rows as number);
    expect([...groups].sort((a, b) => b.rows - a.rows)).toEqual(groups);
    const errors = parseOutput(await (await fetch(`${base}${job.links.errors_csv}`)).text());
    const errorLines = new Set<number>();
    // The errors-only CSV's rows are the file's error rows in order: line n of the file is data row n - 1.
    const all = parseOutput(await (await fetch(`${base}${job.links.result_csv}`)).text());
    all.forEach((r, i) => r.row_status === 'error' && errorLines.add(i + 2));
    expect(errors).toHaveLength(errorLines.size);
    for (const g of groups)
      for (const line of g.first_lines) expect(errorLines.has(line), `${g.field} ${line}`).toBe(true);
    const own = groups.filter((g) => g.message !== SIBLING_ERROR_MESSAGE).map((g) => g.field);
    for (const ex of CSV_INVALID_EXAMPLES)
      expect(
        ex.expected_columns.some((c) => own.includes(c)),
        ex.id,
      ).toBe(true);
  });

  it('downloads the synchronous answers for the same file, and the errors-only CSV', async () => {
    const syncCsv = await (await post(base, '/v1/calculate/bulk', file)).text();
    const syncNdjson = await (await post(base, '/v1/calculate/bulk', file, { Accept: 'application/x-ndjson' })).text();
    const id = job.id;
    expect(job.links).toEqual({
      self: `/v1/jobs/${id}`,
      result: `/v1/jobs/${id}/result`,
      result_csv: `/v1/jobs/${id}/result.csv`,
      result_ndjson: `/v1/jobs/${id}/result.ndjson`,
      errors_csv: `/v1/jobs/${id}/errors.csv`,
    });
    const result = await fetch(`${base}${job.links.result}`);
    expect(result.headers.get('content-type')).toContain('application/x-ndjson');
    expect(await result.text()).toBe(syncNdjson);
    const csv = await fetch(`${base}${job.links.result_csv}`);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="job-${id}.csv"`);
    expect(await csv.text()).toBe(syncCsv);
    expect(await (await fetch(`${base}${job.links.result_ndjson}`)).text()).toBe(syncNdjson);
    const errors = await fetch(`${base}${job.links.errors_csv}`);
    expect(errors.headers.get('content-disposition')).toBe(`attachment; filename="job-${id}-errors.csv"`);
    const lines = syncCsv.split('\n');
    const kept = lines.slice(1, -1).filter((l) => parseOutput(`${lines[0]}\n${l}\n`)[0]!.row_status === 'error');
    expect(await errors.text()).toBe([lines[0], ...kept].map((l) => `${l}\n`).join(''));
    expect((await fetch(`${base}${job.links.result_csv}`, { method: 'DELETE' })).status).toBe(405);
  });

  it('DELETE cancels a running job: it reads cancelled, not failed, and its downloads answer 409', async () => {
    const big = makeCsv(40_000, 7);
    const { id } = (await (await post(base, '/v1/jobs', big)).json()) as Job;
    expect((await fetch(`${base}/v1/jobs/${id}`, { method: 'DELETE' })).status).toBe(204);
    const cancelled = await finished(base, id);
    expect(() => JobSchema.parse(cancelled)).not.toThrow();
    expect(cancelled.status).toBe('cancelled');
    expect((cancelled.error as { code: string }).code).toBe('job_cancelled');
    expect(typeof cancelled.finished_at).toBe('string');
    for (const link of Object.values(cancelled.links).slice(1)) {
      const res = await fetch(`${base}${link}`);
      expect(res.status, link!).toBe(409);
      expect(((await res.json()) as { code: string }).code).toBe('job_cancelled');
    }
    // Cancelling again is still 204, and the job stays cancelled.
    expect((await fetch(`${base}/v1/jobs/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect(((await (await fetch(`${base}/v1/jobs/${id}`)).json()) as Job).status).toBe('cancelled');
  });

  it('without access control, an Idempotency-Key is the upload’s: another file is another job, never a 422', async () => {
    const key = `open-${Date.now()}`;
    const first = (await (await post(base, '/v1/jobs', makeCsv(3, 1), { 'Idempotency-Key': key })).json()) as Job;
    const other = await post(base, '/v1/jobs', makeCsv(3, 2), { 'Idempotency-Key': key });
    expect(other.status).toBe(202);
    expect(((await other.json()) as Job).id).not.toBe(first.id);
    const again = await post(base, '/v1/jobs', makeCsv(3, 1), { 'Idempotency-Key': key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as Job).id).toBe(first.id);
  });
});

describe('Idempotency-Key with access control on', () => {
  let service: RunningService;
  let a: { token: string };
  let b: { token: string };

  beforeAll(async () => {
    const env = tokenServiceEnv('job-idem', 'silent', { AUTH_MODE: 'required' });
    a = await createToken(env, 'registrar');
    b = await createToken(env, 'bursar');
    service = await startService(testConfig(env));
  }, 60_000);

  afterAll(() => service?.close());

  it('gives the same job for the same upload and options, and 422 for another upload or other options', async () => {
    const key = `nightly-${Date.now()}`;
    const as = (token: string, extra: Record<string, string> = {}) => ({
      ...bearer(token),
      'Idempotency-Key': key,
      ...extra,
    });
    const upload = makeCsv(5, 3);
    const first = await post(service.base, '/v1/jobs', upload, as(a.token));
    expect(first.status).toBe(202);
    const { id } = (await first.json()) as Job;
    const same = await post(service.base, '/v1/jobs', upload, as(a.token));
    expect(same.status).toBe(202);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect(((await same.json()) as Job).id).toBe(id);

    const refusals = [
      await post(service.base, '/v1/jobs', makeCsv(5, 4), as(a.token)), // another file
      await post(service.base, '/v1/jobs', upload, as(a.token, { Accept: 'application/x-ndjson' })), // format
      await post(service.base, '/v1/jobs?policy.proration_fraction=decimal_rounded', upload, as(a.token)), // policy
      await post(service.base, '/v1/jobs?delimiter=comma&bom=true', upload, as(a.token)), // output option
    ];
    for (const [i, res] of refusals.entries()) {
      expect(res.status, `refusal ${i}`).toBe(422);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('idempotency_key_reused');
      expect(body.message).toMatch(/another file or other options/);
    }
    // Another token's same key is its own.
    const theirs = await post(service.base, '/v1/jobs', makeCsv(5, 4), as(b.token));
    expect(theirs.status).toBe(202);
    expect(((await theirs.json()) as Job).id).not.toBe(id);
    await finished(service.base, id, bearer(a.token));
  });
});
