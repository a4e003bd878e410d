/**
 * AUTH_MODE=off (the default) through the real server: the open v1 API is unchanged (an Authorization header is
 * ignored, no rate-limit headers, the document's bearerAuth declared but not required); GET /v1/jobs refuses to
 * list (403 listing_requires_auth); DELETE works by id; RATE_LIMIT turns on a per-address limit.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../src/auth/token.ts';
import { killAll } from '../support/processes.ts';
import { type Api, FSA_1, bearer, startApi, studentsCsv, waitForJob } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'sor-auth-open-'));
let open: Api;
let limited: Api;

beforeAll(async () => {
  [open, limited] = await Promise.all([
    startApi({ SPOOL_DIR: join(dir, 'spool'), JOBS_DIR: join(dir, 'jobs') }),
    startApi({ SPOOL_DIR: join(dir, 'spool2'), JOBS_DIR: join(dir, 'jobs2'), RATE_LIMIT: '2/min' }),
  ]);
}, 60_000);

afterAll(async () => {
  await killAll();
});

const calculate = (base: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/v1/calculate`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(FSA_1),
  });

describe('AUTH_MODE=off (default)', () => {
  it('answers with or without Authorization, without rate-limit headers or a challenge', async () => {
    for (const headers of [{}, bearer('anything'), bearer(generateToken('svc_test_')), { Authorization: 'Basic x' }]) {
      const res = await calculate(open.base, headers);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { reduced_annual_pct: number }).reduced_annual_pct).toBe(63);
      for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'www-authenticate']) {
        expect(res.headers.get(h), h).toBeNull();
      }
    }
  });

  it('keeps the document open: anonymous access or the declared bearer scheme, no 401/429 on operations', async () => {
    const doc = (await (await fetch(`${open.base}/v1/openapi.json`)).json()) as {
      security: unknown;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(doc.security).toEqual([{}, { bearerAuth: [] }]);
    expect(Object.keys(doc.paths['/v1/calculate']?.post?.responses ?? {})).not.toContain('401');
  });

  it('does not list jobs (403 listing_requires_auth), but status and DELETE work by id', async () => {
    const list = await fetch(`${open.base}/v1/jobs`);
    expect(list.status).toBe(403);
    expect(((await list.json()) as { code: string }).code).toBe('listing_requires_auth');

    const submit = await fetch(`${open.base}/v1/jobs`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body: studentsCsv(2),
    });
    expect(submit.status).toBe(202);
    const { id } = (await submit.json()) as { id: string };
    expect((await waitForJob(open.base, id)).status).toBe('completed');
    expect((await fetch(`${open.base}/v1/jobs/${id}/result`)).status).toBe(200);
    expect((await fetch(`${open.base}/v1/jobs/${id}`, { method: 'DELETE' })).status).toBe(204);
    const after = (await (await fetch(`${open.base}/v1/jobs/${id}`)).json()) as { error: { code: string } };
    expect(after.error.code).toBe('job_cancelled');
    expect((await fetch(`${open.base}/v1/jobs/${id}/result`)).status).toBe(409);
    const put = await fetch(`${open.base}/v1/jobs/${id}`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toContain('DELETE');
  });
});

describe('RATE_LIMIT with AUTH_MODE=off', () => {
  it('limits per client address, with the headers, and 429 quota_exceeded beyond', async () => {
    const first = await calculate(limited.base);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await calculate(limited.base)).status).toBe(200);
    const refused = await calculate(limited.base);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('quota_exceeded');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // The document and the probes are not limited.
    expect((await fetch(`${limited.base}/v1/openapi.json`)).status).toBe(200);
    expect((await fetch(`${limited.base}/healthz`)).status).toBe(200);
  });
});
