/**
 * Access control cannot be walked around: every route of the OpenAPI description and of the
 * app's router stack, asked through spellings that a loose router would take for it — other letter case, trailing
 * and doubled slashes, percent-encoded letters and slashes, `;` parameters, dot segments, the absolute form — is
 * refused without a token (401) or not found (404), never answered; over a rate limit it is 429 or 404, never
 * answered; and with access control off the variants are plain 404s (routing is case-sensitive and strict).
 *
 * The whole service runs in this process (createRuntime + createRequestListener, as src/server.ts serves it), with
 * the token file store; requests are sent with node:http so the request target goes on the wire as written (fetch
 * would resolve dot segments and re-encode).
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, OPENAPI_PATH, type AppExtras } from '../../src/api/app.ts';
import type { AppContext } from '../../src/api/context.ts';
import { createRequestListener } from '../../src/api/front-door.ts';
import { loadConfig } from '../../src/config.ts';
import { newJobId } from '../../src/jobs/job-id.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { FSA_1, createToken, studentsCsv, tokenServiceEnv } from '../auth/helpers.ts';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends `target` verbatim as the request target. */
function send(base: string, method: string, target: string, headers: Record<string, string>, body?: string) {
  const { hostname, port } = new URL(base);
  return new Promise<Reply>((resolve, reject) => {
    const req = request({ host: hostname, port, method, path: target, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Operation {
  method: string;
  /** The route's path with its parameters filled in (a well-formed job id). */
  path: string;
}

const SAMPLE_JOB_ID = newJobId();
const fill = (template: string) => template.replace(/\{id\}|:id\b/g, SAMPLE_JOB_ID);

/** The operations of the OpenAPI document (its `paths`). */
function openApiOperations(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([template, item]) =>
    Object.keys(item)
      .filter((m) => WALKED_METHODS.has(m.toUpperCase()))
      .map((m) => ({ method: m.toUpperCase(), path: fill(template) })),
  );
}

/** The methods walked (Express's `app.all` registers every method Node knows, CONNECT included). */
const WALKED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

interface StackLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle: { stack?: StackLayer[] };
  rawPath?: unknown;
  slash?: boolean;
}

/**
 * Every route of the app's router stack (the routers mounted without a path included): its methods, and PUT for
 * an `all` route (the 405 routes: without a token they must be refused like any other).
 */
function stackOperations(stack: StackLayer[]): Operation[] {
  const found: Operation[] = [];
  for (const layer of stack) {
    if (layer.route && typeof layer.route.path === 'string') {
      const methods = Object.keys(layer.route.methods)
        .map((m) => (m === '_all' ? 'PUT' : m.toUpperCase()))
        .filter((m) => WALKED_METHODS.has(m));
      for (const method of methods) found.push({ method, path: fill(layer.route.path) });
    } else if (layer.handle.stack && (layer.rawPath === undefined || layer.slash === true)) {
      found.push(...stackOperations(layer.handle.stack));
    }
  }
  return found;
}

/** The spellings of `path` that must never reach its route (nor, unguarded, any other). */
function variants(path: string): string[] {
  const [, first = '', ...rest] = path.split('/'); // '/v1/calculate' → ['', 'v1', 'calculate']
  const tail = rest.join('/');
  const last = rest.at(-1) ?? '';
  const upperFirstLetter = (s: string) => s.replace(/[a-z]/, (c) => c.toUpperCase());
  const encodeFirstLetter = (s: string) =>
    s.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const list = [
    `/${first.toUpperCase()}/${tail}`, // /V1/calculate
    `/${first}/${upperFirstLetter(tail)}`, // /v1/Calculate
    `/${first}/${tail.replace(last, last.toUpperCase())}`, // /v1/CALCULATE, /v1/jobs/<ID>
    path.toUpperCase(),
    `${path}/`,
    `/${path}`,
    `/${first}//${tail}`,
    `${path}//`,
    `/${encodeFirstLetter(first)}/${tail}`, // /%761/calculate
    `/${first}/${encodeFirstLetter(tail)}`, // /v1/c%61lculate
    `/${first}/${tail.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    `/${first}%2F${tail}`,
    `/${first}%2f${tail}`,
    `${path};x=1`,
    `/${first};x=1/${tail}`,
    `/${first}/../${first}/${tail}`,
    `/${first}/./${tail}`,
    `/x/../${first}/${tail}`,
    `/${first}/${tail}%20`,
    `/${first}/${tail}%00`,
    `/${first}/${tail}.`,
  ];
  return [...new Set(list)].filter((v) => v !== path);
}

/** A body the route would accept (so a request that got past the guard could not be refused for its body). */
function bodyFor(method: string, path: string): { headers: Record<string, string>; body?: string } {
  if (method === 'GET' || method === 'HEAD' || method === 'DELETE') return { headers: {} };
  if (/\/bulk$|\/jobs$/i.test(path)) return { headers: { 'Content-Type': 'text/csv' }, body: studentsCsv(2) };
  return { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(FSA_1) };
}

interface Service {
  base: string;
  operations: Operation[];
  close(): Promise<void>;
}

const servers: Service[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function startService(env: Record<string, string>): Promise<Service> {
  const logger = pino({ level: 'silent' });
  const config = loadConfig(env);
  const runtime: Runtime = await createRuntime(config, logger);
  const ctx: AppContext = { config, logger, runners: runtime.runners, readiness: runtime.readiness };
  const extra: AppExtras = { routers: runtime.routers, openApiPaths: runtime.openApiPaths, guards: runtime.guards };
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(createRequestListener(ctx, extra)).listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const document = JSON.parse((await send(base, 'GET', OPENAPI_PATH, {})).body) as {
    paths: Record<string, Record<string, unknown>>;
  };
  // A second app of the same configuration, only to read its router stack.
  const app = createApp(ctx, extra) as unknown as { router: { stack: StackLayer[] } };
  const fromStack = stackOperations(app.router.stack).filter((o) => o.path.startsWith('/v1'));
  const fromDocument = openApiOperations(document);
  const seen = new Set<string>();
  const operations = [...fromDocument, ...fromStack].filter((o) => {
    if (!o.path.startsWith('/v1/')) return false;
    const key = `${o.method} ${o.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const service: Service = {
    base,
    operations,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
  servers.push(service);
  return service;
}

const isOpenDocument = (o: Operation) => o.path === OPENAPI_PATH && (o.method === 'GET' || o.method === 'HEAD');

/** Sends every variant of every operation; returns those whose status is not one of `allowed`. */
async function walk(service: Service, allowed: number[], headers: Record<string, string> = {}) {
  const wrong: string[] = [];
  let sent = 0;
  const { hostname, port } = new URL(service.base);
  for (const op of service.operations) {
    const { headers: bodyHeaders, body } = bodyFor(op.method, op.path);
    const ask = (target: string) =>
      send(service.base, op.method, target, { ...bodyHeaders, ...headers }, body).catch((err: unknown) => {
        throw new Error(`${op.method} ${target}: ${String(err)}`);
      });
    // A spelling that changes only the job id of a `/v1/jobs/{id}` route is the same route with another id: it
    // may answer as the route does for an unknown id (the guards, when configured, ran before it either way).
    const idPrefix = op.path.endsWith(`/${SAMPLE_JOB_ID}`) ? op.path.slice(0, -SAMPLE_JOB_ID.length) : undefined;
    const ownStatus = idPrefix === undefined ? undefined : (await ask(op.path)).status;
    const targets = [...variants(op.path), `http://${hostname}:${port}${op.path.toUpperCase()}`];
    for (const target of targets) {
      const reply = await ask(target);
      sent++;
      if (allowed.includes(reply.status)) continue;
      if (idPrefix !== undefined && target.startsWith(idPrefix) && reply.status === ownStatus) continue;
      wrong.push(`${op.method} ${target} → ${reply.status}`);
    }
  }
  return { wrong, sent };
}

const freshEnv = (extra: Record<string, string>) => tokenServiceEnv('route-walk', 'silent', extra);

describe('AUTH_MODE=required', () => {
  const env = freshEnv({ AUTH_MODE: 'required' });
  let service: Service;
  beforeAll(async () => {
    service = await startService(env);
  });

  it('walks the routes of the OpenAPI document and of the router stack (every interface path is there)', () => {
    const paths = new Set(service.operations.map((o) => o.path));
    for (const p of ['/v1/calculate', '/v1/calculate/worksheet', '/v1/calculate/bulk', '/v1/jobs', OPENAPI_PATH]) {
      expect(paths).toContain(p);
    }
    expect(paths).toContain(`/v1/jobs/${SAMPLE_JOB_ID}/result`);
  });

  it('without a token, every route is 401 and every other spelling of it 401 or 404, never answered', async () => {
    for (const op of service.operations.filter((o) => !isOpenDocument(o))) {
      const { headers, body } = bodyFor(op.method, op.path);
      expect((await send(service.base, op.method, op.path, headers, body)).status, `${op.method} ${op.path}`).toBe(401);
    }
    const { wrong, sent } = await walk(service, [401, 404]);
    expect(sent).toBeGreaterThan(200);
    expect(wrong).toEqual([]);
  });

  it('a token over its rate limit gets 429 on every route and 429 or 404 on every other spelling', async () => {
    const { token } = await createToken(env, 'limited', ['--rate', '2/hour']);
    const auth = { Authorization: `Bearer ${token}` };
    const calc = bodyFor('POST', '/v1/calculate');
    expect((await send(service.base, 'POST', '/v1/calculate', { ...calc.headers, ...auth }, calc.body)).status).toBe(
      200,
    );
    expect((await send(service.base, 'POST', '/v1/calculate', { ...calc.headers, ...auth }, calc.body)).status).toBe(
      200,
    );
    expect((await send(service.base, 'POST', '/v1/calculate', { ...calc.headers, ...auth }, calc.body)).status).toBe(
      429,
    );
    const { wrong } = await walk(service, [429, 404], auth);
    expect(wrong).toEqual([]);
  });
});

describe('RATE_LIMIT with access control off', () => {
  it('a client over RATE_LIMIT gets 429 or 404 on every spelling of every route, never an answer', async () => {
    const service = await startService(freshEnv({ AUTH_MODE: 'off', RATE_LIMIT: '1/hour' }));
    const calc = bodyFor('POST', '/v1/calculate');
    expect((await send(service.base, 'POST', '/v1/calculate', calc.headers, calc.body)).status).toBe(200);
    expect((await send(service.base, 'POST', '/v1/calculate', calc.headers, calc.body)).status).toBe(429);
    const { wrong } = await walk(service, [429, 404]);
    expect(wrong).toEqual([]);
  });
});

describe('access control off, no rate limit', () => {
  it('every other spelling of a route is 404: routing is case-sensitive and strict', async () => {
    const service = await startService(freshEnv({ AUTH_MODE: 'off' }));
    const { wrong } = await walk(service, [404]);
    expect(wrong).toEqual([]);
  });
});
