/** The OpenAPI description as the whole service serves it (createRuntime's paths included: the jobs API). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createRequestListener } from '../../../src/api/front-door.ts';
import { loadConfig } from '../../../src/config.ts';
import { createRuntime } from '../../../src/runtime.ts';

export interface ServedDescription {
  base: string;
  description: Record<string, unknown>;
  close(): Promise<void>;
}

export async function startServedDescription(env: Record<string, string> = {}): Promise<ServedDescription> {
  const dir = mkdtempSync(join(tmpdir(), 'sor-openapi-'));
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    BULK_THREADS: '1',
    SPOOL_DIR: join(dir, 'spool'),
    JOBS_DIR: join(dir, 'jobs'),
    ...env,
  });
  const logger = pino({ level: 'silent' });
  const runtime = await createRuntime(config, logger);
  const listener = createRequestListener(
    { config, logger, runners: runtime.runners, readiness: runtime.readiness },
    { routers: runtime.routers, openApiPaths: runtime.openApiPaths, guards: runtime.guards },
  );
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(listener).listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const description = (await (await fetch(`${base}/v1/openapi.json`)).json()) as Record<string, unknown>;
  return {
    base,
    description,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
