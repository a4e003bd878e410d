/**
 * POST /v1/calculate has one handler (calculateHandler, src/api/calculate-route.ts) whatever the guards: with
 * access control and rate limits configured it answers exactly as without them — the same status, body and
 * headers (but the rate limit's own), the same request log line and the same duration metric — for valid
 * students, every kind of refused body, a client's own request id and CORS; the guards run in front of it, once
 * per request, whichever way the request came (the front door for the exact URL, Express for the other spellings
 * of the route). Each case is sent over real HTTP to the whole service (createRequestListener) built twice from
 * one context: without guards, and with the guards of access control (a rate limit no case reaches).
 */
import { mkdtempSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessControl } from '../../src/api/access-control.ts';
import { createApp } from '../../src/api/app.ts';
import type { AppContext } from '../../src/api/context.ts';
import { createRequestListener, takesFastLane } from '../../src/api/front-door.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { loadConfig } from '../../src/config.ts';
import { RULE_SET_ID } from '../../src/domain/rule-set.ts';
import { registry } from '../../src/metrics.ts';
import { baseRequest } from './helpers.ts';

const LIMIT = 4096;
const ORIGIN = 'https://sis.example.edu';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Served {
  port: number;
  logs: string[];
  server: Server;
}

interface Case {
  name: string;
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  /** Sent in pieces without Content-Length (chunked) when an array. */
  body: string | Buffer | Buffer[];
}

const servers: Server[] = [];
const closers: (() => Promise<void>)[] = [];

/** The request log lines only (access control logs its configuration when it is built). */
const isRequestLine = (line: string) => (JSON.parse(line) as { req?: unknown }).req !== undefined;

async function serve(build: (ctx: AppContext) => RequestListener, env: Record<string, string> = {}): Promise<Served> {
  const logs: string[] = [];
  const ctx: AppContext = {
    config: loadConfig({ LOG_LEVEL: 'info', MAX_BODY_BYTES: String(LIMIT), ...env }),
    logger: pino({ level: 'info' }, { write: (line: string) => void (isRequestLine(line) && logs.push(line)) }),
    runners: { small: createInlineRunner(), large: createInlineRunner() },
    readiness: [],
  };
  const server = createServer(build(ctx));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, logs, server };
}

/** The whole service with the guards its configuration builds (src/api/access-control.ts). */
const withGuards = (ctx: AppContext): RequestListener => {
  const access = createAccessControl(ctx.config, ctx.logger);
  closers.push(() => access.close());
  return createRequestListener(ctx, { guards: access.guards });
};

/** A rate limit no test reaches: the limiter runs (and sets its headers) on every request, refusing none. */
const GENEROUS = { RATE_LIMIT: '100000/hour' };

function send(port: number, c: Case): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const pieces = Array.isArray(c.body) ? c.body : null;
    const body = pieces === null ? Buffer.from(c.body as string | Buffer) : null;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: c.path ?? '/v1/calculate',
        method: c.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          ...(body === null ? {} : { 'content-length': String(body.length) }),
          ...c.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    if (pieces === null) req.end(body);
    else {
      for (const p of pieces) req.write(p);
      req.end();
    }
  });
}

/**
 * The headers a client sees, without the ones that differ from one response to the next by nature, nor the rate
 * limit's own (X-RateLimit-*: present only when a limit is configured).
 */
function comparable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const {
    date: _date,
    'x-request-id': _id,
    'x-ratelimit-limit': _limit,
    'x-ratelimit-remaining': _remaining,
    'x-ratelimit-reset': _reset,
    ...rest
  } = headers;
  return rest;
}

/** A log line without what differs between two runs of the same request (time, duration, generated id). */
function comparableLog(line: string): unknown {
  const {
    time: _time,
    durationMs,
    req,
    err,
    ...rest
  } = JSON.parse(line) as {
    time: number;
    durationMs: number;
    req: { id: string };
    err?: { stack?: string };
  };
  expect(typeof durationMs).toBe('number');
  const { stack: _stack, ...error } = err ?? {};
  return { ...rest, req: { ...req, id: req.id.length }, ...(err === undefined ? {} : { err: error }) };
}

const valid = JSON.stringify(baseRequest());
const cases: Case[] = [
  ...WORKED_EXAMPLES.map((e) => ({ name: `worked example ${e.id}`, body: JSON.stringify(e.request) })),
  { name: '422: an offending field', body: JSON.stringify({ ...baseRequest(), academic_year_terms: 7 }) },
  { name: '422: an unknown field', body: JSON.stringify({ ...baseRequest(), nickname: 'x' }) },
  { name: '400: not JSON', body: '{"terms": [' },
  { name: '400: JSON but not an object', body: '[1, 2]' },
  { name: '400: not UTF-8', body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) },
  { name: '415: text/plain', body: valid, headers: { 'content-type': 'text/plain' } },
  { name: '415: a latin-1 charset', body: valid, headers: { 'content-type': 'application/json; charset=latin1' } },
  { name: '415: content-encoded', body: valid, headers: { 'content-encoding': 'gzip' } },
  { name: '413: declared over the limit', body: `{"x":"${'a'.repeat(LIMIT)}"}` },
  { name: '413: chunked over the limit', body: [Buffer.from('{"x":"'), Buffer.alloc(LIMIT, 'a'), Buffer.from('"}')] },
  { name: '200: chunked, no Content-Length', body: [Buffer.from(valid.slice(0, 40)), Buffer.from(valid.slice(40))] },
  { name: "the client's own request id", body: valid, headers: { 'x-request-id': 'sis-batch-7/req-0042' } },
  { name: 'a request id with unsafe characters', body: valid, headers: { 'x-request-id': 'a b<c>"d' } },
];

let plain: Served;
let guarded: Served;

beforeAll(async () => {
  plain = await serve((ctx) => createRequestListener(ctx));
  guarded = await serve(withGuards, GENEROUS);
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  for (const close of closers) await close();
});

describe('the one handler answers POST /v1/calculate the same with guards as without', () => {
  it.each(cases)('$name', async (c) => {
    const before = [plain.logs.length, guarded.logs.length];
    const [without, withThem] = [await send(plain.port, c), await send(guarded.port, c)];
    expect(withThem.status).toBe(without.status);
    expect(withThem.body).toBe(without.body);
    expect(comparable(withThem.headers)).toEqual(comparable(without.headers));
    // The guards ran: the rate limit's headers are on every answer, refusals included.
    expect(withThem.headers['x-ratelimit-limit']).toBe('100000');
    expect(without.headers['x-ratelimit-limit']).toBeUndefined();
    // The same id rules: the client's usable id kept (sanitised), else a generated UUID.
    const sent = c.headers?.['x-request-id'];
    if (sent === undefined) expect(withThem.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    else expect(withThem.headers['x-request-id']).toBe(without.headers['x-request-id']);
    // One log line each, the same but for time, duration and the generated id.
    await expect.poll(() => guarded.logs.length).toBe(before[1]! + 1);
    await expect.poll(() => plain.logs.length).toBe(before[0]! + 1);
    expect(comparableLog(guarded.logs.at(-1)!)).toEqual(comparableLog(plain.logs.at(-1)!));
  });

  it('logs a request the client abandons before the answer as aborted, the same line both ways', async () => {
    const abandon = (port: number) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port }, () => {
          socket.write(
            'POST /v1/calculate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"a":',
            () => setTimeout(() => socket.destroy(), 50),
          );
        });
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
    const before = [plain.logs.length, guarded.logs.length];
    await abandon(plain.port);
    await abandon(guarded.port);
    await expect.poll(() => guarded.logs.length).toBe(before[1]! + 1);
    await expect.poll(() => plain.logs.length).toBe(before[0]! + 1);
    const line = JSON.parse(guarded.logs.at(-1)!) as { level: number; msg: string };
    expect(line.level).toBe(40);
    expect(line.msg).toBe('request aborted');
    expect(comparableLog(guarded.logs.at(-1)!)).toEqual(comparableLog(plain.logs.at(-1)!));
  });

  it('counts the request in the duration histogram under the same route label', async () => {
    const count = async (status: string) => {
      const metric = await registry.getSingleMetric('sor_http_request_duration_seconds')!.get();
      const sample = (metric.values as { metricName?: string; labels: Record<string, unknown>; value: number }[]).find(
        (v) =>
          v.metricName === 'sor_http_request_duration_seconds_count' &&
          v.labels.route === '/v1/calculate' &&
          v.labels.method === 'POST' &&
          v.labels.status_code === status,
      );
      return sample?.value ?? 0;
    };
    const start = await count('200');
    await send(plain.port, { name: 'without guards', body: valid });
    expect(await count('200')).toBe(start + 1);
    await send(guarded.port, { name: 'with guards', body: valid });
    expect(await count('200')).toBe(start + 2);
    await send(guarded.port, { name: 'through Express', path: '/v1/calculate?x=1', body: valid });
    expect(await count('200')).toBe(start + 3);
  });

  it('sends the same CORS headers when CORS_ORIGINS is set, for an allowed and a foreign origin', async () => {
    const corsPlain = await serve((ctx) => createRequestListener(ctx), { CORS_ORIGINS: ORIGIN });
    const corsGuarded = await serve(withGuards, { CORS_ORIGINS: ORIGIN, ...GENEROUS });
    for (const origin of [ORIGIN, 'https://elsewhere.example.com']) {
      const c: Case = { name: origin, body: valid, headers: { origin } };
      const [without, withThem] = [await send(corsPlain.port, c), await send(corsGuarded.port, c)];
      expect(withThem.status).toBe(200);
      expect(comparable(withThem.headers)).toEqual(comparable(without.headers));
    }
    const allowed = await send(corsGuarded.port, { name: 'allowed', body: valid, headers: { origin: ORIGIN } });
    expect(allowed.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(allowed.headers['access-control-expose-headers']).toContain('X-Request-Id');
  });
});

describe('the guards in front of the one handler', () => {
  it('refuse a request without a token (AUTH_MODE=required) with the headers and log line of the route', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sor-front-door-'));
    const env = { AUTH_MODE: 'required', AUTH_TOKEN_PREFIX: 'svc_test_', AUTH_TOKENS_FILE: join(dir, 'tokens.json') };
    const service = await serve(withGuards, env);
    // The exact URL (the front door) and another spelling of the same route (Express) meet the same guard.
    for (const path of ['/v1/calculate', '/v1/calculate?x=1']) {
      const before = service.logs.length;
      const reply = await send(service.port, { name: path, path, body: valid, headers: { 'x-request-id': 'r-401' } });
      expect([path, reply.status]).toEqual([path, 401]);
      expect(reply.headers['www-authenticate']).toMatch(/^Bearer realm="sor"/);
      expect(reply.headers['x-request-id']).toBe('r-401');
      expect(reply.headers['x-rule-set']).toBe(RULE_SET_ID);
      expect((JSON.parse(reply.body) as { code: string }).code).toBe('unauthenticated');
      await expect.poll(() => service.logs.length).toBe(before + 1);
      const line = JSON.parse(service.logs.at(-1)!) as { req: unknown; res: unknown };
      expect([line.req, line.res]).toEqual([
        { id: 'r-401', method: 'POST', path: '/v1/calculate' },
        { statusCode: 401 },
      ]);
    }
  });

  it('count each request once, whichever way it came (RATE_LIMIT with access control off)', async () => {
    const service = await serve(withGuards, { RATE_LIMIT: '2/hour' });
    expect((await send(service.port, { name: 'front door', body: valid })).status).toBe(200);
    const viaExpress = await send(service.port, { name: 'Express', path: '/v1/calculate?x=1', body: valid });
    expect([viaExpress.status, viaExpress.headers['x-ratelimit-remaining']]).toEqual([200, '0']);
    const refused = await send(service.port, { name: 'over', body: valid });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((JSON.parse(refused.body) as { code: string }).code).toBe('quota_exceeded');
  });
});

describe('the dispatch', () => {
  const probe = (method: string, url: string) => takesFastLane({ method, url } as never);

  it('hands exactly POST /v1/calculate to the handler at the front door and everything else to Express', () => {
    expect(probe('POST', '/v1/calculate')).toBe(true);
    for (const url of [
      '/v1/calculate?x=1',
      '/v1/calculate/',
      '/V1/calculate',
      '/v1/Calculate',
      '/v1/c%61lculate',
      '//v1/calculate',
      '/v1/calculate;x=1',
      'http://localhost/v1/calculate',
      '/v1/calculate/bulk',
      '/',
    ]) {
      expect(probe('POST', url)).toBe(false);
    }
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'])
      expect(probe(method, '/v1/calculate')).toBe(false);
  });

  it('answers the paths Express routes to the same handler exactly as the front door does', async () => {
    const whole = await serve((ctx) => createRequestListener(ctx));
    const direct = await send(whole.port, { name: 'exact', body: valid });
    expect(direct.status).toBe(200);
    const query = await send(whole.port, { name: 'query', path: '/v1/calculate?trace=1', body: valid });
    expect(query.status).toBe(200);
    expect(query.body).toBe(direct.body);
    expect(comparable(query.headers)).toEqual(comparable(direct.headers));
    // The app alone (as some tests serve it) routes POST /v1/calculate to the same handler.
    const app = await serve((ctx) => createApp(ctx));
    const viaApp = await send(app.port, { name: 'app alone', body: valid });
    expect([viaApp.status, viaApp.body]).toEqual([200, direct.body]);
    expect(comparable(viaApp.headers)).toEqual(comparable(direct.headers));
    // Routing is case-sensitive and strict (src/api/routing.ts): another spelling is not the route.
    for (const path of ['/v1/calculate/', '/V1/calculate', '/v1/Calculate']) {
      expect((await send(whole.port, { name: path, path, body: valid })).status).toBe(404);
    }
    const get = await send(whole.port, { name: 'GET', method: 'GET', body: '' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST, OPTIONS');
  });
});
