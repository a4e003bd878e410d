/**
 * Starts the real HTTP service (createRequestListener, as src/server.ts serves it) on an ephemeral loopback port for a test file. The context is built from explicit
 * configuration (never process.env) with inline runners, and the logger writes into `logs` so tests can read
 * what was logged.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { type Logger, pino } from 'pino';
import { type Config, loadConfig } from '../../src/config.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import type { AppExtras } from '../../src/api/app.ts';
import { createRequestListener } from '../../src/api/front-door.ts';
import type { AppContext, ReadinessCheck } from '../../src/api/context.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';

export interface TestServer {
  base: string;
  logs: string[];
  server: Server;
  close(): Promise<void>;
}

export async function startTestServer(
  options: { env?: Record<string, string>; readiness?: ReadinessCheck[]; extra?: AppExtras; clock?: () => Date } = {},
): Promise<TestServer> {
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const ctx: AppContext = {
    config: loadConfig({ LOG_LEVEL: 'info', MAX_BODY_BYTES: '1048576', ...options.env }),
    logger,
    runners: { small: createInlineRunner(), large: createInlineRunner() },
    readiness: options.readiness ?? [],
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  };
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(createRequestListener(ctx, options.extra)).listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    logs,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** POSTs a JSON body (an object is stringified; a string or bytes are sent verbatim). */
export async function postJson(
  base: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; json: unknown; headers: Headers }> {
  const payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const res = await fetch(`${base}/v1/calculate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: payload,
  });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

/** A valid request (FSA example 1's shape) to derive test cases from. */
export function baseRequest(): Record<string, unknown> & { terms: Record<string, unknown>[] } {
  return {
    dependency_status: 'dependent',
    degree_level: 'undergraduate',
    grade_level: 'first_year',
    academic_year_terms: 2,
    subsidized_amount: 3500,
    total_limit: 5500,
    terms: [
      { label: 'Fall', full_time_credits: 12, credits_enrolled: 6 },
      { label: 'Spring', full_time_credits: 12, credits_enrolled: 9 },
    ],
  };
}

export function fieldPaths(json: unknown): string[] {
  const body = json as { field_errors?: { field: string }[] };
  return (body.field_errors ?? []).map((f) => f.field);
}

/** The whole service (createRuntime: runners, routers, stores) served in this process, as src/server.ts serves it. */
export interface RuntimeServer {
  base: string;
  port: number;
  runtime: Runtime;
  server: Server;
  close(): Promise<void>;
}

/** Starts the service of `config` on an ephemeral loopback port, its logger silent unless one is given. */
export async function startRuntimeServer(
  config: Config,
  logger: Logger = pino({ level: 'silent' }),
): Promise<RuntimeServer> {
  const runtime = await createRuntime(config, logger);
  const listener = createRequestListener(
    { config, logger, runners: runtime.runners, readiness: runtime.readiness },
    { routers: runtime.routers },
  );
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(listener).listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    runtime,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}
