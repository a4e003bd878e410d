/**
 * HTTP entry point: configuration from the environment (a bad value stops start-up with one line on stderr and
 * exit code 1), the runtime (runners, readiness checks, the bulk/jobs/ops routers), the app, and a graceful
 * shutdown on SIGTERM/SIGINT: stop accepting connections, report not-ready, let in-flight requests finish within
 * SHUTDOWN_GRACE_MS, then close what is left and release the runtime.
 */
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createRequestListener } from './api/front-door.ts';
import { createServiceLogger, exitOnFatalError } from './logger.ts';
import type { ReadinessCheck } from './api/context.ts';
import { redactText, serializeError } from './redact.ts';
import { createRuntime } from './runtime.ts';
import { ensureSpoolDir, JOB_FILE_STALE_MS, removeOwnSpoolFiles, startSpoolSweeper, sweepSpool } from './jobs/spool.ts';

/** In-flight requests get this long after SIGTERM (Kubernetes' default grace period is 30 s). */
export const SHUTDOWN_GRACE_MS = 25_000;

/** How often orphaned spool files (src/jobs/spool.ts: no live owner, or a job file whose heartbeat stopped) are swept. */
export const SPOOL_SWEEP_EVERY_MS = Math.min(10 * 60_000, JOB_FILE_STALE_MS);

/**
 * Timeouts that fit the work: no fixed cut for a whole request (a bulk response still making progress may take
 * as long as it needs), but a connection with no bytes moving for HTTP_IDLE_TIMEOUT_MS is closed; request headers
 * must arrive within Node's default 60 s.
 */
export function applyTimeouts(server: Server, config: Config): void {
  server.requestTimeout = 0;
  server.timeout = config.HTTP_IDLE_TIMEOUT_MS;
}

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function boundPort(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

function urlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

async function main(): Promise<void> {
  const config = readConfig();
  // Errors logged as `err` lose the Redis command arguments ioredis attaches to them, and URLs are redacted.
  // Written asynchronously (src/logger.ts): every exit below flushes it first.
  const log = createServiceLogger({ level: config.LOG_LEVEL, serializers: { err: serializeError } });
  const logger: Logger = log.logger;
  exitOnFatalError(log);

  let shuttingDown = false;
  await ensureSpoolDir(config.SPOOL_DIR);
  const swept = await sweepSpool(config.SPOOL_DIR);
  // Uploads of requests and of jobs alike (src/jobs/spool.ts names their owners).
  if (swept > 0) logger.info({ spoolDir: config.SPOOL_DIR, removed: swept }, 'removed orphaned upload spool files');
  const sweeper = startSpoolSweeper(
    config.SPOOL_DIR,
    SPOOL_SWEEP_EVERY_MS,
    (err) => logger.warn({ err }, 'could not sweep the upload spool'),
    (removed) => logger.info({ spoolDir: config.SPOOL_DIR, removed }, 'removed orphaned upload spool files'),
  );
  const runtime = await createRuntime(config, logger);
  const accepting: ReadinessCheck = {
    name: 'accepting_requests',
    check: async () => (shuttingDown ? { ok: false, detail: 'shutting down' } : { ok: true }),
  };
  const listener = createRequestListener(
    { config, logger, runners: runtime.runners, readiness: [accepting, ...runtime.readiness] },
    { routers: runtime.routers, openApiPaths: runtime.openApiPaths, guards: runtime.guards },
  );
  const server = createServer(listener);
  applyTimeouts(server, config);
  await listen(server, config.PORT, config.HOST);
  const port = boundPort(server);
  logger.info({ url: urlOf(config.HOST, port), host: config.HOST, port }, 'listening');

  const shutdown = (signal: string) => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal: exiting now');
      log.flushSync();
      process.exit(1);
    }
    shuttingDown = true;
    logger.info({ signal, graceMs: SHUTDOWN_GRACE_MS }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      logger.warn('grace period over: closing remaining connections');
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    deadline.unref();
    server.close(() => {
      clearTimeout(deadline);
      sweeper.stop();
      runtime
        .close()
        .then(
          () => logger.info('stopped'),
          (err: unknown) => logger.error({ err }, 'error while closing the runtime'),
        )
        .then(() => removeOwnSpoolFiles(config.SPOOL_DIR).catch(() => 0))
        .finally(() => log.flush().then(() => process.exit(0)));
    });
    // Keep-alive connections with no request in flight would otherwise hold the server open.
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`start-up failed: ${redactText(err instanceof Error ? err.message : String(err))}\n`);
  process.exit(1);
});
