/**
 * HTTP entry point: configuration from the environment (a bad value stops start-up with one line on stderr and
 * exit code 1), the runtime (runners, readiness checks, the bulk/jobs/ops routers), the app, and a graceful
 * shutdown on SIGTERM/SIGINT: stop accepting connections, report not-ready, let in-flight requests finish within
 * SHUTDOWN_GRACE_MS, then answer the ones still waiting for their answer (uploads still arriving) 503 with
 * Connection: close, close what is left and release the runtime.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ConfigError, deprecationWarnings, loadConfig, type Config } from './config.ts';
import { createRequestListener } from './api/front-door.ts';
import { createServiceLogger, exitOnFatalError } from './logger.ts';
import type { ReadinessCheck } from './api/context.ts';
import { redactText, serializeError } from './redact.ts';
import { createRuntime } from './runtime.ts';
import { ensureSpoolDir, JOB_FILE_STALE_MS, removeOwnSpoolFiles, startSpoolSweeper, sweepSpool } from './jobs/spool.ts';
import { appError } from './errors.ts';
import { sendError } from './api/error-envelope.ts';

/** How often orphaned spool files (src/jobs/spool.ts: no live owner, or a job file whose heartbeat stopped) are swept. */
export const SPOOL_SWEEP_EVERY_MS = Math.min(10 * 60_000, JOB_FILE_STALE_MS);

/** After the grace period, the 503s sent to requests still waiting get this long to leave before every connection is closed. */
const SHUTDOWN_ANSWER_MS = 1_000;

/**
 * The end of the grace period: a request not answered yet (typically an upload still arriving) gets 503
 * shutting-down with Connection: close, so its client reads why instead of a reset and the request log records
 * that 503; a response already under way cannot change its status and is cut with its connection. Returns
 * how many of each.
 */
function answerRemaining(inFlight: ReadonlySet<ServerResponse>): { answered: number; cut: number } {
  let answered = 0;
  let cut = 0;
  for (const res of inFlight) {
    if (res.headersSent || res.destroyed) {
      cut++;
      continue;
    }
    res.setHeader('Connection', 'close');
    res.setHeader('Retry-After', '5');
    sendError(res, appError('SHUTDOWN_BEFORE_ANSWER'));
    answered++;
  }
  return { answered, cut };
}

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
  for (const warning of deprecationWarnings(process.env)) logger.warn(warning);

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
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
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
    const graceMs = config.SHUTDOWN_GRACE_MS;
    logger.info({ signal, graceMs, inFlight: inFlight.size }, 'shutting down: finishing in-flight requests');
    let closer: NodeJS.Timeout | undefined;
    const deadline = setTimeout(() => {
      const { answered, cut } = answerRemaining(inFlight);
      logger.warn(
        { answered, cut },
        'grace period over: requests still waiting for their answer get 503 (Connection: close); responses under way are cut',
      );
      closer = setTimeout(() => server.closeAllConnections(), answered > 0 ? SHUTDOWN_ANSWER_MS : 0);
      closer.unref();
    }, graceMs);
    deadline.unref();
    server.close(() => {
      clearTimeout(deadline);
      clearTimeout(closer);
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
