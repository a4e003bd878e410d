/**
 * HTTP behaviour of the app through a real server: content types and statuses, hostile bodies (never a 5xx),
 * request ids, ignored Authorization, body-free request logs, 404/405 envelopes, health and readiness, and the
 * 500 envelope.
 */
import { request as httpRequest } from 'node:http';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorSchema, ExtendedErrorSchema } from '../../src/schema/response.ts';
import { baseRequest, fieldPaths, postJson, startTestServer, type TestServer } from './helpers.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.close());

const body = () => JSON.stringify(baseRequest());

function expectEnvelope(json: unknown, code: string) {
  const parsed = ErrorSchema.safeParse(json);
  expect(parsed.success, JSON.stringify(json)).toBe(true);
  expect((json as { code: string }).code).toBe(code);
}

/** Raw HTTP request (for bodies fetch would not send as-is, and to observe the exact status). */
function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string | number>; body?: Buffer | string },
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(path, srv.base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'POST',
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('content type (415)', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON',
    'application/vnd.api+json',
    'application/problem+json; charset="utf-8"',
  ])('%s is accepted', async (ct) => {
    const res = await postJson(srv.base, body(), { 'content-type': ct });
    expect(res.status, res.text).toBe(200);
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'text/csv',
    'application/json; charset=latin1',
    'application/jsonx',
    'multipart/form-data; boundary=x',
  ])('%s → 415 unsupported_media_type', async (ct) => {
    const res = await postJson(srv.base, body(), { 'content-type': ct });
    expect(res.status).toBe(415);
    expectEnvelope(res.json, 'unsupported_media_type');
  });

  it('no content type → 415', async () => {
    const res = await raw('/v1/calculate', { body: body() });
    expect(res.status).toBe(415);
    expectEnvelope(JSON.parse(res.text), 'unsupported_media_type');
  });

  it('a content-encoded body → 415', async () => {
    const res = await postJson(srv.base, body(), { 'content-encoding': 'gzip' });
    expect(res.status).toBe(415);
    expectEnvelope(res.json, 'unsupported_media_type');
  });
});

describe('not JSON / not an object (400 invalid_json)', () => {
  it.each(['', '{', '{"a":1,}', "{'a':1}", 'undefined', '{"a":1} x', 'NaN'])('%j → 400', async (text) => {
    const res = await postJson(srv.base, text);
    expect(res.status).toBe(400);
    expectEnvelope(res.json, 'invalid_json');
  });

  it.each(['[]', '[{}]', '"text"', '42', 'null', 'true'])('non-object JSON %s → 400', async (text) => {
    const res = await postJson(srv.base, text);
    expect(res.status).toBe(400);
    expectEnvelope(res.json, 'invalid_json');
  });

  it('broken UTF-8 → 400, and the message does not echo the body', async () => {
    const good = Buffer.from(body(), 'utf8');
    const bad = Buffer.concat([good.subarray(0, 30), Buffer.from([0xff, 0xfe, 0xc3]), good.subarray(30)]);
    const res = await postJson(srv.base, bad);
    expect(res.status).toBe(400);
    expectEnvelope(res.json, 'invalid_json');
  });

  it('an overlong UTF-8 sequence inside a string → 400', async () => {
    const text = body().replace('"Fall"', '"F\u0000all"');
    const bytes = Buffer.from(text, 'utf8');
    const i = bytes.indexOf(0);
    const bad = Buffer.concat([bytes.subarray(0, i), Buffer.from([0xc0, 0x80]), bytes.subarray(i + 1)]);
    const res = await postJson(srv.base, bad);
    expect(res.status).toBe(400);
  });

  it('the parser message (which quotes the body) is never echoed', async () => {
    const res = await postJson(srv.base, '{"ssn": "123-45-6789" oops}');
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('123-45-6789');
  });

  it('a UTF-8 BOM is tolerated', async () => {
    const res = await postJson(srv.base, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body())]));
    expect(res.status).toBe(200);
  });
});

describe('body size (413 validation_error)', () => {
  it('a 6 MB body with Content-Length → 413', async () => {
    const big = Buffer.alloc(6 * 1024 * 1024, 0x20);
    const res = await postJson(srv.base, big);
    expect(res.status).toBe(413);
    expectEnvelope(res.json, 'validation_error');
  });

  it('a 6 MB chunked body (no Content-Length) → 413', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 6 * 1024 * 1024) controller.close();
        else {
          sent += chunk.length;
          controller.enqueue(chunk);
        }
      },
    });
    const res = await fetch(`${srv.base}/v1/calculate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    expect(res.status).toBe(413);
    expectEnvelope(await res.json(), 'validation_error');
  });

  it('the limit follows MAX_BODY_BYTES', async () => {
    const small = await startTestServer({ env: { MAX_BODY_BYTES: '1024' } });
    try {
      const padded = { ...baseRequest(), terms: baseRequest().terms.map((t) => ({ ...t, label: 'x'.repeat(600) })) };
      const res = await postJson(small.base, padded);
      expect(res.status).toBe(413);
      const ok = await postJson(small.base, baseRequest());
      expect(ok.status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('hostile JSON never produces a 5xx', () => {
  it('100,000 levels of nesting in a field → 422', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const res = await postJson(srv.base, body().replace('"dependent"', deep));
    expect(res.status).toBe(422);
    expect(fieldPaths(res.json)).toContain('dependency_status');
  });

  it('100,000 levels of nested objects under an unknown key → 422', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const res = await postJson(srv.base, body().replace('{', `{"nest":${deep},`));
    expect(res.status).toBe(422);
    expect(fieldPaths(res.json)).toContain('nest');
  });

  it('100,000 levels of nesting as the whole body → 400', async () => {
    const res = await postJson(srv.base, '['.repeat(100_000) + ']'.repeat(100_000));
    expect(res.status).toBe(400);
  });

  it('unbalanced deep nesting → 400', async () => {
    const res = await postJson(srv.base, '{"a":' + '['.repeat(200_000));
    expect(res.status).toBe(400);
  });

  it('__proto__ and constructor keys are unknown fields and pollute nothing', async () => {
    const text = body().replace(
      '{',
      '{"__proto__":{"polluted":"yes","dependency_status":"dependent"},"constructor":{"prototype":{"polluted":"yes"}},',
    );
    const res = await postJson(srv.base, text);
    expect(res.status).toBe(422);
    expect(fieldPaths(res.json)).toEqual(expect.arrayContaining(['__proto__', 'constructor']));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('__proto__ inside a term is reported at its path', async () => {
    const text = body().replace('{"label":"Fall"', '{"__proto__":{"credits_enrolled":6},"label":"Fall"');
    const res = await postJson(srv.base, text);
    expect(res.status).toBe(422);
    expect(fieldPaths(res.json)).toContain('terms[0].__proto__');
  });

  it('duplicate keys: the last occurrence wins', async () => {
    const dup = body().replace('{', '{"dependency_status":"nonsense",');
    const res = await postJson(srv.base, dup);
    expect(res.status, res.text).toBe(200);
    const dupBad = body().replace(
      '"dependency_status":"dependent"',
      '"dependency_status":"dependent","dependency_status":"x"',
    );
    const res2 = await postJson(srv.base, dupBad);
    expect(res2.status).toBe(422);
  });

  it('huge numbers, long strings and many keys → 4xx', async () => {
    const bodies = [
      body().replace('"total_limit":5500', `"total_limit":1${'0'.repeat(5000)}`),
      body().replace('"total_limit":5500', `"total_limit":"${'9'.repeat(100_000)}"`),
      body().replace('"total_limit":5500', '"total_limit":-1e400'),
      body().replace('"label":"Fall"', `"label":"${'x'.repeat(500_000)}"`),
      body().replace('{', `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')},`),
      body().replace('{', `{"${'k'.repeat(200_000)}":1,`),
    ];
    for (const b of bodies) {
      const res = await postJson(srv.base, b);
      expect(res.status).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(500);
    }
  });

  it('an unknown-key flood answers a bounded error list', async () => {
    const flood = body().replace('{', `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')},`);
    const res = await postJson(srv.base, flood);
    expect(res.status).toBe(422);
    const json = res.json as { message: string; field_errors: unknown[] };
    expect(json.field_errors).toHaveLength(100);
    expect(json.message).toContain('20000');
  });

  it('a very long unknown key is echoed shortened', async () => {
    const res = await postJson(srv.base, body().replace('{', `{"${'k'.repeat(10_000)}":1,`));
    expect(res.status).toBe(422);
    expect(fieldPaths(res.json)[0]!.length).toBeLessThanOrEqual(101);
  });
});

describe('request ids', () => {
  it('a client X-Request-Id is echoed', async () => {
    const res = await postJson(srv.base, body(), { 'x-request-id': 'client-abc_123.4:5' });
    expect(res.headers.get('x-request-id')).toBe('client-abc_123.4:5');
  });

  it('unsafe characters are removed and the id is cut to 128 characters', async () => {
    const res = await postJson(srv.base, body(), { 'x-request-id': 'a b"c<d>\te' });
    expect(res.headers.get('x-request-id')).toBe('abcde');
    const long = await postJson(srv.base, body(), { 'x-request-id': 'z'.repeat(500) });
    expect(long.headers.get('x-request-id')).toBe('z'.repeat(128));
  });

  it('one is generated (a UUID) when absent or unusable, on every kind of response', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const responses = [
      await postJson(srv.base, body()),
      await postJson(srv.base, body(), { 'x-request-id': '<<>>' }),
      await postJson(srv.base, '[]'),
      await postJson(srv.base, '{}'),
      await postJson(srv.base, body(), { 'content-type': 'text/plain' }),
    ];
    for (const r of responses) expect(r.headers.get('x-request-id')).toMatch(uuid);
    for (const path of ['/healthz', '/readyz', '/v1/openapi.json', '/nowhere']) {
      const r = await fetch(srv.base + path);
      expect(r.headers.get('x-request-id')).toMatch(uuid);
      await r.arrayBuffer();
    }
    const ids = new Set(responses.map((r) => r.headers.get('x-request-id')));
    expect(ids.size).toBe(responses.length);
  });
});

describe('authentication is open', () => {
  it.each(['Bearer svc_live_abc', 'Bearer svc_test_abc', 'Basic dXNlcjpwYXNz', 'garbage', ''])(
    'Authorization %j is ignored',
    async (auth) => {
      const plain = await postJson(srv.base, body());
      const res = await postJson(srv.base, body(), { authorization: auth });
      expect(res.status).toBe(200);
      expect(res.text).toBe(plain.text);
    },
  );

  it('no reserved rate-limit header is emitted', async () => {
    const res = await postJson(srv.base, body());
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      expect(res.headers.get(h)).toBeNull();
    }
  });
});

describe('request logs', () => {
  it('hold id, method, path, status and duration, and never the body, query or headers', async () => {
    const s = await startTestServer();
    try {
      const secret = 'STUDENT-SECRET-98765';
      const r = { ...baseRequest(), terms: baseRequest().terms.map((t) => ({ ...t, label: secret })) };
      const res = await fetch(`${s.base}/v1/calculate?ssn=123-45-6789&name=${secret}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer svc_live_TOKEN-VALUE',
          'x-request-id': 'log-test-1',
        },
        body: JSON.stringify(r),
      });
      expect(res.status).toBe(200);
      await res.text();
      const bad = await postJson(s.base, { ...r, plus_denid: secret }, { 'x-request-id': 'log-test-2' });
      expect(bad.status).toBe(422);
      await postJson(s.base, `{"x":"${secret}"`, { 'x-request-id': 'log-test-3' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const all = s.logs.join('');
      for (const needle of [
        secret,
        '123-45-6789',
        'ssn',
        'svc_live_TOKEN-VALUE',
        'authorization',
        'Fall',
        'dependent',
      ]) {
        expect(all).not.toContain(needle);
      }
      const lines = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
      const first = lines.find((l) => (l.req as { id?: string } | undefined)?.id === 'log-test-1');
      expect(first).toBeDefined();
      expect(first?.req).toEqual({ id: 'log-test-1', method: 'POST', path: '/v1/calculate' });
      expect(first?.res).toEqual({ statusCode: 200 });
      expect(typeof first?.durationMs).toBe('number');
      const second = lines.find((l) => (l.req as { id?: string } | undefined)?.id === 'log-test-2');
      expect((second?.res as { statusCode: number }).statusCode).toBe(422);
    } finally {
      await s.close();
    }
  });
});

describe('routes', () => {
  it('an unknown path → 404 not_found envelope', async () => {
    for (const [method, path] of [
      ['GET', '/index.html'], // GET / is the page (test/web)
      ['GET', '/v2/calculate'],
      ['POST', '/v1/calculatex'],
      ['DELETE', '/v1/nothing?x=1'],
    ] as const) {
      const res = await fetch(srv.base + path, { method });
      expect(res.status).toBe(404);
      const json = (await res.json()) as { code: string };
      expect(ExtendedErrorSchema.safeParse(json).success).toBe(true);
      expect(json.code).toBe('not_found');
    }
  });

  it('a wrong method → 405 envelope with Allow', async () => {
    for (const [method, path, allow] of [
      ['GET', '/v1/calculate', 'POST'],
      ['PUT', '/v1/calculate', 'POST'],
      ['DELETE', '/v1/calculate', 'POST'],
      ['POST', '/v1/openapi.json', 'GET'],
      ['POST', '/healthz', 'GET'],
      ['PUT', '/readyz', 'GET'],
    ] as const) {
      const res = await fetch(srv.base + path, { method });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toContain(allow);
      const json = (await res.json()) as { code: string };
      expect(ExtendedErrorSchema.safeParse(json).success).toBe(true);
      expect(json.code).toBe('method_not_allowed');
    }
  });

  it('OPTIONS answers 204 with Allow', async () => {
    const res = await fetch(`${srv.base}/v1/calculate`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toContain('POST');
  });

  it('GET /v1/openapi.json → 200 application/json, version 1.0.0', async () => {
    const res = await fetch(`${srv.base}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = (await res.json()) as { info: { version: string }; openapi: string };
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.openapi).toMatch(/^3\.1\./);
  });
});

describe('health and readiness', () => {
  it('GET /healthz is always 200 {status: ok}', async () => {
    const res = await fetch(`${srv.base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 200 when every check passes and 503 with details when one fails', async () => {
    let healthy = true;
    const s = await startTestServer({
      readiness: [
        { name: 'always', check: async () => ({ ok: true }) },
        { name: 'toggle', check: async () => (healthy ? { ok: true } : { ok: false, detail: 'redis down' }) },
        {
          name: 'throws-when-unhealthy',
          check: async () => {
            if (!healthy) throw new Error('boom');
            return { ok: true };
          },
        },
      ],
    });
    try {
      const ok = await fetch(`${s.base}/readyz`);
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { status: string }).status).toBe('ok');
      healthy = false;
      const down = await fetch(`${s.base}/readyz`);
      expect(down.status).toBe(503);
      const json = (await down.json()) as { status: string; checks: unknown[] };
      expect(json.status).toBe('unavailable');
      expect(json.checks).toEqual([
        { name: 'always', ok: true },
        { name: 'toggle', ok: false, detail: 'redis down' },
        // A thrown error's message goes to the log, not to the anonymous probe.
        { name: 'throws-when-unhealthy', ok: false, detail: 'check failed' },
      ]);
      const live = await fetch(`${s.base}/healthz`);
      expect(live.status).toBe(200);
      await live.arrayBuffer();
    } finally {
      await s.close();
    }
  });
});

describe('500 internal_error', () => {
  it('never leaks a stack or an internal message, and logs the cause', async () => {
    const failing = Router();
    failing.get('/test/explode', () => {
      throw new Error('secret internal detail at /srv/app/file.ts:42');
    });
    failing.get('/test/explode-async', async () => {
      await Promise.resolve();
      throw new TypeError('async secret detail');
    });
    const s = await startTestServer({ extra: { routers: [failing] } });
    try {
      for (const path of ['/test/explode', '/test/explode-async']) {
        const res = await fetch(s.base + path);
        expect(res.status).toBe(500);
        const text = await res.text();
        expect(JSON.parse(text)).toEqual({ code: 'internal_error', message: 'An internal error occurred.' });
        expect(text).not.toMatch(/secret|stack|\.ts|at /);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      const errorLines = s.logs.map((l) => JSON.parse(l) as { level: number; err?: { message?: string } });
      expect(errorLines.some((l) => l.level >= 50 && l.err?.message?.includes('secret internal detail'))).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('extra routers are mounted before the 404 handler', async () => {
    const r = Router();
    r.get('/test/ping', (_req, res) => void res.json({ pong: true }));
    const s = await startTestServer({ extra: { routers: [r] } });
    try {
      const res = await fetch(`${s.base}/test/ping`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ pong: true });
    } finally {
      await s.close();
    }
  });
});
