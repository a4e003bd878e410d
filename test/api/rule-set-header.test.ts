/**
 * rules.md §8a: every calculation response names the rule set that made it, in `X-Rule-Set`, over real HTTP:
 * POST /v1/calculate (200 and 422), POST /v1/calculate/bulk (CSV and NDJSON), and the async jobs API (submit,
 * status, result). Non-calculation paths do not carry it. The OpenAPI info reports the same id.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestListener } from '../../src/api/front-door.ts';
import { bulkRouter } from '../../src/api/bulk-route.ts';
import type { AppContext } from '../../src/api/context.ts';
import { jobsRouter } from '../../src/api/jobs-route.ts';
import { runBulk } from '../../src/bulk/pipeline.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { loadConfig } from '../../src/config.ts';
import { AsyncJobs } from '../../src/jobs/async-jobs.ts';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';

/** Written out here, not imported: the test must fail if the constant drifts from this revision of the rules. */
const RULE_SET = '2026-27.3';

const csv =
  'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,subsidized_amount\n' +
  'S-1,Fall,12,6,dependent,first_year,3500\nS-1,Spring,12,9,,,\n';

let base: string;
let server: Server;
let jobs: AsyncJobs;
let store: LocalJobStore;
const spoolDir = mkdtempSync(join(tmpdir(), 'sor-rule-set-test-'));

beforeAll(async () => {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const logger = pino({ level: 'silent' });
  const runners = { small: createInlineRunner(), large: createInlineRunner() };
  const ctx: AppContext = { config, logger, runners, readiness: [] };
  const jobsDir = join(spoolDir, 'jobs');
  store = new LocalJobStore({ dir: jobsDir, ttlSeconds: config.JOB_TTL_SECONDS, maxBytes: config.JOBS_MAX_DISK_BYTES });
  jobs = new AsyncJobs({ config, logger, store, jobsDir, runners, runBulk });
  const listener = createRequestListener(ctx, {
    routers: [bulkRouter(ctx), jobsRouter(jobs, { maxBytes: config.BULK_MAX_BYTES, spoolDir })],
  });
  server = await new Promise<Server>((resolve) => {
    const s = createServer(listener).listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await jobs.close(5000);
  await store.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(spoolDir, { recursive: true, force: true });
});

const ruleSet = (res: Response) => res.headers.get('x-rule-set');

describe('X-Rule-Set on every calculation response', () => {
  it('POST /v1/calculate: on the result and on a 422', async () => {
    const post = (body: unknown) =>
      fetch(`${base}/v1/calculate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ok = await post(WORKED_EXAMPLES[0]!.request);
    expect([ok.status, ruleSet(ok)]).toEqual([200, RULE_SET]);
    const invalid = await post({ dependency_status: 'dependent', terms: [] });
    expect([invalid.status, ruleSet(invalid)]).toEqual([422, RULE_SET]);
  });

  it('POST /v1/calculate/bulk: CSV and NDJSON', async () => {
    for (const accept of ['text/csv', 'application/x-ndjson']) {
      const res = await fetch(`${base}/v1/calculate/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv', accept },
        body: csv,
      });
      await res.text();
      expect([res.status, ruleSet(res)], accept).toEqual([200, RULE_SET]);
    }
  });

  it('the jobs API: submit, status and result', async () => {
    const submitted = await fetch(`${base}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', accept: 'application/x-ndjson' },
      body: csv,
    });
    const { id } = (await submitted.json()) as { id: string };
    expect([submitted.status, ruleSet(submitted)]).toEqual([202, RULE_SET]);
    let status: Response | undefined;
    for (let i = 0; i < 600; i++) {
      status = await fetch(`${base}/v1/jobs/${id}`);
      const job = (await status.json()) as { status: string };
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect([status!.status, ruleSet(status!)]).toEqual([200, RULE_SET]);
    const result = await fetch(`${base}/v1/jobs/${id}/result`);
    const text = await result.text();
    expect([result.status, ruleSet(result)]).toEqual([200, RULE_SET]);
    expect(text).toContain('"student_id":"S-1"');
  });

  it('is not on the non-calculation paths', async () => {
    for (const path of ['/healthz', '/v1/openapi.json', '/v1/calculated']) {
      const res = await fetch(`${base}${path}`);
      await res.text();
      expect(ruleSet(res), path).toBeNull();
    }
  });

  it('the OpenAPI document reports the same rule set in info', async () => {
    const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as {
      info: { 'x-rule-set'?: string; description: string };
    };
    expect(doc.info['x-rule-set']).toBe(RULE_SET);
    expect(doc.info.description).toContain(`Rule set: \`${RULE_SET}\``);
  });
});
