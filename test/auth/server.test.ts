/**
 * Access control through the real server (AUTH_MODE=required, token file store, no Redis): every status and code
 * of the interface's §5, the WWW-Authenticate challenges, rate limits and their headers, student charging, job
 * ownership across two tokens, the CLI's --token, and no token in the server's log output.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTokenStore } from '../../src/auth/token-store.ts';
import { generateToken, generateTokenId, tokenHash } from '../../src/auth/token.ts';
import { killAll } from '../support/processes.ts';
import { type Api, FSA_1, bearer, createToken, sor, startApi, studentsCsv, waitForJob } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'sor-auth-test-'));
const env = {
  AUTH_MODE: 'required',
  AUTH_TOKEN_PREFIX: 'svc_live_',
  AUTH_TOKENS_FILE: join(dir, 'data', 'tokens.json'),
  SPOOL_DIR: join(dir, 'spool'),
  JOBS_DIR: join(dir, 'jobs'),
};

let api: Api;
const secrets: string[] = [];
let a: { token: string; id: string };
let b: { token: string; id: string };

beforeAll(async () => {
  a = await createToken(env, 'registrar');
  b = await createToken(env, 'bursar');
  secrets.push(a.token, b.token);
  api = await startApi(env);
}, 60_000);

afterAll(async () => {
  await killAll();
});

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(`${api.base}${path}`, init);
  const text = await res.text();
  return { res, text, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const calculate = (headers: Record<string, string>) =>
  call('/v1/calculate', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(FSA_1),
  });

describe('tokens: the CLI and the store', () => {
  it('prints the token once, in this environment, and stores only its sha256 in a 0600 file', async () => {
    expect(a.token).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(a.id).toMatch(/^tok_[0-9a-f]{16}$/);
    const file = readFileSync(env.AUTH_TOKENS_FILE, 'utf8');
    expect(file).not.toContain(a.token);
    expect(file).toContain(tokenHash(a.token));
    expect(statSync(env.AUTH_TOKENS_FILE).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
    const list = await sor(['token', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${a.id}\\tregistrar\\tsvc_live_\\t.*\\tactive\\t-`));
    expect(list.stdout).not.toContain(a.token);
    expect(list.stdout).not.toContain(tokenHash(a.token));
  });

  it('refuses bad arguments', async () => {
    expect((await sor(['token', 'create', '--name', 'x', '--expires', '3w'], env)).code).toBe(1);
    expect((await sor(['token', 'create', '--name', 'x', '--rate', '10/week'], env)).code).toBe(1);
    expect((await sor(['token', 'revoke', 'nope'], env)).code).toBe(1);
    expect((await sor(['token', 'revoke', 'tok_0000000000000000'], env)).code).toBe(1);
  });
});

describe('§5 through the real server', () => {
  it('a valid token calculates (FSA example 1: reduced_annual_pct 63)', async () => {
    const { res, body } = await calculate(bearer(a.token));
    expect(res.status).toBe(200);
    expect(body?.reduced_annual_pct).toBe(63);
  });

  it('no Authorization: 401 unauthenticated, challenge without an error', async () => {
    const { res, body } = await calculate({});
    expect(res.status).toBe(401);
    expect(Object.keys(body ?? {}).sort()).toEqual(['code', 'message']);
    expect(body?.code).toBe('unauthenticated');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="sor"');
  });

  it('a malformed header: 401 unauthenticated, error="invalid_request"', async () => {
    for (const value of [
      'Basic dXNlcjpwYXNz',
      'Bearer',
      `Bearer ${a.token} extra`,
      a.token,
      `Bearer  ${a.token}`,
      `Bearer\t${a.token}`,
    ]) {
      const { res, body } = await calculate({ Authorization: value });
      expect(res.status, value).toBe(401);
      expect(body?.code, value).toBe('unauthenticated');
      expect(res.headers.get('www-authenticate'), value).toContain('error="invalid_request"');
    }
  });

  it('a token of the wrong format, an unknown token, a token of the other environment: 401 invalid_token', async () => {
    const other = generateToken('svc_test_');
    const unknown = generateToken('svc_live_');
    for (const token of ['svc_live_short', `${a.token}x`, 'sk_live_0123456789012345678901234567890', unknown, other]) {
      const { res, body } = await calculate(bearer(token));
      expect(res.status, token).toBe(401);
      expect(body?.code, token).toBe('invalid_token');
      expect(res.headers.get('www-authenticate'), token).toMatch(/^Bearer realm="sor", error="invalid_token"/);
      expect(JSON.stringify(body)).not.toContain(token);
    }
    // The same body with the other environment's prefix: refused before any lookup.
    const twin = `svc_test_${a.token.slice('svc_live_'.length)}`;
    const { body } = await calculate(bearer(twin));
    expect(body?.code).toBe('invalid_token');
    expect(String(body?.message)).toContain('svc_live_');
  });

  it('an expired token: 403 expired_token; a revoked one: 403 revoked_token', async () => {
    const expired = generateToken('svc_live_');
    secrets.push(expired);
    await new FileTokenStore(env.AUTH_TOKENS_FILE).create({
      id: generateTokenId(),
      name: 'old',
      hash: tokenHash(expired),
      prefix: 'svc_live_',
      created_at: '2026-01-01T00:00:00.000Z',
      expires_at: '2026-04-01T00:00:00.000Z',
      revoked_at: null,
      rate: null,
    });
    const revoked = await createToken(env, 'leaver');
    secrets.push(revoked.token);
    expect((await calculate(bearer(revoked.token))).res.status).toBe(200);
    expect((await sor(['token', 'revoke', revoked.id], env)).code).toBe(0);
    await new Promise((r) => setTimeout(r, 1100)); // the API re-reads the token file at most once a second

    const e = await calculate(bearer(expired));
    expect(e.res.status).toBe(403);
    expect(e.body?.code).toBe('expired_token');
    expect(e.res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const r = await calculate(bearer(revoked.token));
    expect(r.res.status).toBe(403);
    expect(r.body?.code).toBe('revoked_token');
    expect((await sor(['token', 'list'], env)).stdout).toMatch(new RegExp(`${revoked.id}\\tleaver\\t.*\\trevoked `));
  });

  it('every /v1 door is guarded; the OpenAPI document and the probes are not', async () => {
    const bulk = await call('/v1/calculate/bulk', {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body: studentsCsv(2),
    });
    expect(bulk.res.status).toBe(401);
    const worksheet = await call('/v1/calculate/worksheet', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
      body: JSON.stringify(FSA_1),
    });
    expect(worksheet.res.status).toBe(401);
    expect(worksheet.body?.code).toBe('unauthenticated');
    for (const path of ['/v1/jobs', '/v1/jobs/0123', '/v1/anything']) {
      expect((await call(path)).res.status, path).toBe(401);
    }
    for (const path of ['/v1/openapi.json', '/healthz', '/readyz']) {
      expect((await call(path)).res.status, path).toBe(200);
    }
  });

  it('the OpenAPI document applies bearerAuth and lists 401/403/429 per guarded operation', async () => {
    const doc = (await call('/v1/openapi.json')).body as {
      security: unknown;
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
    };
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/v1/openapi.json']?.get?.security).toEqual([]);
    for (const [path, method] of [
      ['/v1/calculate', 'post'],
      ['/v1/calculate/bulk', 'post'],
      ['/v1/jobs', 'post'],
      ['/v1/jobs', 'get'],
      ['/v1/jobs/{id}', 'delete'],
    ] as const) {
      const responses = doc.paths[path]?.[method]?.responses ?? {};
      expect(Object.keys(responses), `${method} ${path}`).toEqual(expect.arrayContaining(['401', '403', '429']));
    }
  });
});

describe('rate limits', () => {
  it('a burst beyond the token rate gets 429 quota_exceeded with Retry-After and the X-RateLimit headers', async () => {
    const t = await createToken(env, 'script', ['--rate', '3/min']);
    secrets.push(t.token);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { res } = await calculate(bearer(t.token));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const { res, body } = await calculate(bearer(t.token));
    expect(res.status).toBe(429);
    expect(body?.code).toBe('quota_exceeded');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(reset * 1000).toBeGreaterThan(Date.now() - 1000);
    expect(reset * 1000).toBeLessThanOrEqual(Date.now() + 61_000);
    // Another token is not affected.
    expect((await calculate(bearer(a.token))).res.status).toBe(200);
  });

  it('a bulk file costs 1 plus its students, charged after the upload is counted', async () => {
    const t = await createToken(env, 'etl', ['--rate', '20/min']);
    secrets.push(t.token);
    const bulk = await call('/v1/calculate/bulk', {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv', ...bearer(t.token) },
      body: studentsCsv(5),
    });
    expect(bulk.res.status).toBe(200);
    expect(bulk.res.headers.get('x-ratelimit-remaining')).toBe('19'); // counted when it arrived
    const next = await calculate(bearer(t.token));
    expect(next.res.headers.get('x-ratelimit-remaining')).toBe(String(20 - 1 - 5 - 1));
  });
});

describe('jobs belong to the token that submitted them', () => {
  it('another token gets 404 for status, result and delete, and sees none in its list', async () => {
    const submit = await call('/v1/jobs', {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv', 'Idempotency-Key': 'same-key', ...bearer(a.token) },
      body: studentsCsv(3),
    });
    expect(submit.res.status).toBe(202);
    const id = String(submit.body?.id);
    expect((await waitForJob(api.base, id, a.token)).status).toBe('completed');

    for (const [path, method] of [
      [`/v1/jobs/${id}`, 'GET'],
      [`/v1/jobs/${id}/result`, 'GET'],
      [`/v1/jobs/${id}`, 'DELETE'],
    ] as const) {
      const r = await call(path, { method, headers: bearer(b.token) });
      expect(r.res.status, `${method} ${path}`).toBe(404);
      expect(r.body?.code).toBe('not_found');
      // Exactly what an id that never existed answers.
      const never = await call(path.replace(id, `${id.slice(0, 12)}${'0'.repeat(40)}`), {
        method,
        headers: bearer(b.token),
      });
      expect(r.body).toEqual(never.body);
    }
    // The same Idempotency-Key and file from the other token is another job, not the first one.
    const replay = await call('/v1/jobs', {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv', 'Idempotency-Key': 'same-key', ...bearer(b.token) },
      body: studentsCsv(3),
    });
    expect(replay.res.status).toBe(202);
    expect(replay.res.headers.get('idempotent-replayed')).toBeNull();
    expect(replay.body?.id).not.toBe(id);
    const bJob = String(replay.body?.id);

    const listA = (await call('/v1/jobs', { headers: bearer(a.token) })).body as { jobs: { id: string }[] };
    const listB = (await call('/v1/jobs', { headers: bearer(b.token) })).body as { jobs: { id: string }[] };
    expect(listA.jobs.map((j) => j.id)).toContain(id);
    expect(listA.jobs.map((j) => j.id)).not.toContain(bJob);
    expect(listB.jobs.map((j) => j.id)).toEqual([bJob]);

    const result = await call(`/v1/jobs/${id}/result`, { headers: bearer(a.token) });
    expect(result.res.status).toBe(200);
    expect(result.text.split('\n').filter((l) => l.startsWith('S-'))).toHaveLength(6);

    // The owner cancels: 204, the job reads cancelled and its result is gone (409 job_cancelled).
    expect((await call(`/v1/jobs/${id}`, { method: 'DELETE', headers: bearer(a.token) })).res.status).toBe(204);
    const status = (await call(`/v1/jobs/${id}`, { headers: bearer(a.token) })).body as {
      status: string;
      error: { code: string };
    };
    expect(status.status).toBe('cancelled');
    expect(status.error.code).toBe('job_cancelled');
    const gone = await call(`/v1/jobs/${id}/result`, { headers: bearer(a.token) });
    expect(gone.res.status).toBe(409);
    expect((gone.body as { code: string }).code).toBe('job_cancelled');
  });

  it('lists newest first, in pages', async () => {
    const t = await createToken(env, 'pager');
    secrets.push(t.token);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call('/v1/jobs', {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv', ...bearer(t.token) },
        body: studentsCsv(1),
      });
      ids.push(String(r.body?.id));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const first = (await call('/v1/jobs?limit=2', { headers: bearer(t.token) })).body as {
      jobs: { id: string }[];
      next_url: string | null;
    };
    expect(first.jobs.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    expect(first.next_url).not.toBeNull();
    const second = (await call(first.next_url as string, { headers: bearer(t.token) })).body as {
      jobs: { id: string }[];
      next_url: string | null;
    };
    expect(second.jobs.map((j) => j.id)).toEqual([ids[0]]);
    expect(second.next_url).toBeNull();
  });
});

describe('the CLI against a service that requires tokens', () => {
  it('sor bulk --server works with --token or SOR_TOKEN and fails clearly without', async () => {
    const input = join(dir, 'in.csv');
    writeFileSync(input, studentsCsv(2));
    const out = join(dir, 'out.csv');
    const withFlag = await sor(['bulk', input, '-o', out, '--server', api.base, '--token', a.token], {});
    expect(withFlag.code).toBe(0);
    expect(
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('S-')),
    ).toHaveLength(4);
    const withEnv = await sor(['bulk', input, '-o', out, '--server', api.base], { SOR_TOKEN: a.token });
    expect(withEnv.code).toBe(0);
    const without = await sor(['bulk', input, '-o', out, '--server', api.base], {});
    expect(without.code).toBe(4); // the service refused the request (docs/command-line.md, exit statuses)
    expect(without.stderr).toContain('(unauthenticated)');
    expect(without.stderr).toContain('--token or SOR_TOKEN');
    for (const run of [withFlag, withEnv]) expect(run.stderr + run.stdout).not.toContain(a.token);
  }, 60_000);
});

describe('secrets', () => {
  it('no token (nor its hash) appears in the server log output or its metrics', async () => {
    const metrics = await (await fetch(`${api.base}/metrics`)).text();
    const log = api.child.output() + metrics;
    expect(log).toContain('"statusCode":401');
    for (const token of secrets) {
      expect(log).not.toContain(token);
      expect(log).not.toContain(token.slice('svc_live_'.length));
      expect(log).not.toContain(tokenHash(token));
    }
  });
});
