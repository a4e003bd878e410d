/**
 * The fast lane of POST /v1/calculate (src/api/front-door.ts) answers exactly as the Express chain does: the same
 * status, body and headers, the same request log line and the same duration metric, for valid students, every
 * kind of refused body, a client's own request id and CORS. Each case is sent over real HTTP to two servers built
 * from one context: Express alone (createApp) and the lane alone (calculateFastLane). The dispatch sends only the
 * exact `POST /v1/calculate` to the lane, and none at all when guards are configured.
 */
import { createServer, request, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.ts';
import type { AppContext } from '../../src/api/context.ts';
import { calculateFastLane, createRequestListener, takesFastLane } from '../../src/api/front-door.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { loadConfig } from '../../src/config.ts';
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

async function serve(build: (ctx: AppContext) => RequestListener, env: Record<string, string> = {}): Promise<Served> {
  const logs: string[] = [];
  const ctx: AppContext = {
    config: loadConfig({ LOG_LEVEL: 'info', MAX_BODY_BYTES: String(LIMIT), ...env }),
    logger: pino({ level: 'info' }, { write: (line: string) => void logs.push(line) }),
    runners: { small: createInlineRunner(), large: createInlineRunner() },
    readiness: [],
  };
  const server = createServer(build(ctx));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, logs, server };
}

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

/** The headers a client sees, without the ones that differ from one response to the next by nature. */
function comparable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { date: _date, 'x-request-id': _id, ...rest } = headers;
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
  // A failure's stack shows where each way built its envelope (the lane's call or Express's): the rest is the same.
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

let express: Served;
let lane: Served;

beforeAll(async () => {
  express = await serve((ctx) => createApp(ctx));
  lane = await serve((ctx) => calculateFastLane(ctx)!);
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

describe('the fast lane answers POST /v1/calculate exactly as Express does', () => {
  it.each(cases)('$name', async (c) => {
    const before = [express.logs.length, lane.logs.length];
    const [viaExpress, viaLane] = [await send(express.port, c), await send(lane.port, c)];
    expect(viaLane.status).toBe(viaExpress.status);
    expect(viaLane.body).toBe(viaExpress.body);
    expect(comparable(viaLane.headers)).toEqual(comparable(viaExpress.headers));
    // The same id rules: the client's usable id kept (sanitised), else a generated UUID.
    const sent = c.headers?.['x-request-id'];
    if (sent === undefined) expect(viaLane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    else expect(viaLane.headers['x-request-id']).toBe(viaExpress.headers['x-request-id']);
    // One log line each, the same but for time, duration and the generated id.
    await expect.poll(() => lane.logs.length).toBe(before[1]! + 1);
    await expect.poll(() => express.logs.length).toBe(before[0]! + 1);
    expect(comparableLog(lane.logs.at(-1)!)).toEqual(comparableLog(express.logs.at(-1)!));
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
    const before = [express.logs.length, lane.logs.length];
    await abandon(express.port);
    await abandon(lane.port);
    await expect.poll(() => lane.logs.length).toBe(before[1]! + 1);
    await expect.poll(() => express.logs.length).toBe(before[0]! + 1);
    const line = JSON.parse(lane.logs.at(-1)!) as { level: number; msg: string };
    expect(line.level).toBe(40);
    expect(line.msg).toBe('request aborted');
    expect(comparableLog(lane.logs.at(-1)!)).toEqual(comparableLog(express.logs.at(-1)!));
  });

  it('counts the request in the duration histogram under the same route label', async () => {
    const count = async () => {
      const metric = await registry.getSingleMetric('sor_http_request_duration_seconds')!.get();
      const sample = (metric.values as { metricName?: string; labels: Record<string, unknown>; value: number }[]).find(
        (v) =>
          v.metricName === 'sor_http_request_duration_seconds_count' &&
          v.labels.route === '/v1/calculate' &&
          v.labels.method === 'POST' &&
          v.labels.status_code === '200',
      );
      return sample?.value ?? 0;
    };
    const start = await count();
    await send(lane.port, { name: 'lane', body: valid });
    expect(await count()).toBe(start + 1);
    await send(express.port, { name: 'express', body: valid });
    expect(await count()).toBe(start + 2);
  });

  it('sends the same CORS headers when CORS_ORIGINS is set, for an allowed and a foreign origin', async () => {
    const corsExpress = await serve((ctx) => createApp(ctx), { CORS_ORIGINS: ORIGIN });
    const corsLane = await serve((ctx) => calculateFastLane(ctx)!, { CORS_ORIGINS: ORIGIN });
    for (const origin of [ORIGIN, 'https://elsewhere.example.com']) {
      const c: Case = { name: origin, body: valid, headers: { origin } };
      const [viaExpress, viaLane] = [await send(corsExpress.port, c), await send(corsLane.port, c)];
      expect(viaLane.status).toBe(200);
      expect(comparable(viaLane.headers)).toEqual(comparable(viaExpress.headers));
    }
    const allowed = await send(corsLane.port, { name: 'allowed', body: valid, headers: { origin: ORIGIN } });
    expect(allowed.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(allowed.headers['access-control-expose-headers']).toContain('X-Request-Id');
  });
});

describe('the dispatch', () => {
  const probe = (method: string, url: string) => takesFastLane({ method, url } as never);

  it('sends exactly POST /v1/calculate to the lane and everything else to Express', () => {
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

  it('answers the paths Express routes to the same handler exactly as the lane does', async () => {
    const whole = await serve((ctx) => createRequestListener(ctx));
    const direct = await send(whole.port, { name: 'exact', body: valid });
    expect(direct.status).toBe(200);
    const query = await send(whole.port, { name: 'query', path: '/v1/calculate?trace=1', body: valid });
    expect(query.status).toBe(200);
    expect(query.body).toBe(direct.body);
    expect(comparable(query.headers)).toEqual(comparable(direct.headers));
    // Routing is case-sensitive and strict (src/api/routing.ts): another spelling is not the route.
    for (const path of ['/v1/calculate/', '/V1/calculate', '/v1/Calculate']) {
      expect((await send(whole.port, { name: path, path, body: valid })).status).toBe(404);
    }
    const get = await send(whole.port, { name: 'GET', method: 'GET', body: '' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST, OPTIONS');
  });

  it('takes no lane when guards are configured: access control and rate limits are Express middleware', () => {
    const ctx: AppContext = {
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      logger: pino({ level: 'silent' }),
      runners: { small: createInlineRunner(), large: createInlineRunner() },
      readiness: [],
    };
    const guard: Parameters<typeof createApp>[1] = { guards: [(_req, _res, next) => next()] };
    expect(calculateFastLane(ctx, guard)).toBeUndefined();
    expect(calculateFastLane(ctx)).toBeTypeOf('function');
  });
});
