/**
 * The queue worker process (`npm run worker`; needs REDIS_URL): pulls chunk jobs from the BullMQ queue `calc`
 * (prefix REDIS_PREFIX) and runs each on this process's own piscina pool of QUEUE_WORKER_THREADS threads
 * (BULK_THREADS when unset), with as many jobs in flight as threads; with QUEUE_WORKER_THREADS=0 it computes each
 * chunk on its own thread, one at a time (one worker process per core). Run as many of these as you like, on
 * as many machines as you like.
 *
 *  - Start-up: waits for Redis (logging while it does), then checks the Redis version and that
 *    maxmemory-policy is noeviction; a Redis that may evict keys is refused (exit 1) with a message saying why.
 *  - SIGTERM / SIGINT: stops taking jobs, lets in-flight jobs finish and store their output, exits 0. A second
 *    signal, or QUEUE_WORKER_SHUTDOWN_GRACE_MS without the drain finishing (Redis down: an in-flight job can
 *    neither store its output nor give up its lock), exits at once (in-flight jobs are then recovered by other
 *    workers as stalled jobs).
 *  - SIGKILL / crash: the job's lock expires and another worker takes the job (see WorkerTuning, settings.ts).
 *  - Tuning: QUEUE_LOCK_DURATION_MS, QUEUE_STALLED_INTERVAL_MS, QUEUE_MAX_STALLED_COUNT, QUEUE_WORKER_PREFETCH.
 *  - QUEUE_WORKER_HEARTBEAT_FILE: when set, a timestamp is written there every 10 s (liveness probe).
 *  - QUEUE_SIGNING_KEY (required, the API's): chunk payloads whose HMAC does not match are never computed, and
 *    outputs are signed for the API to verify (src/queue/chunk-signing.ts).
 */
import { writeFile } from 'node:fs/promises';
import { createInlineRunner } from '../src/bulk/runners/inline.ts';
import { createPoolRunner } from '../src/bulk/runners/pool.ts';
import { ConfigError, deprecationWarnings, loadConfig } from '../src/config.ts';
import { createServiceLogger, exitOnFatalError, type ServiceLogger } from '../src/logger.ts';
import { startChunkWorker } from '../src/queue/chunk-worker.ts';
import { redactText, urlSecrets } from '../src/redact.ts';
import { redisFromConfig } from '../src/redis.ts';
import { workerTuning } from '../src/queue/settings.ts';

/** Written asynchronously (src/logger.ts); flushed before every exit. */
let log: ServiceLogger | undefined;

async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  }
  const tuning = workerTuning(config);
  log = createServiceLogger({ level: config.LOG_LEVEL, base: { pid: process.pid, role: 'queue-worker' } });
  exitOnFatalError(log);
  const logger = log.logger;
  for (const warning of deprecationWarnings(process.env)) logger.warn(warning);
  // The process's Redis (src/redis.ts): the start-up check runs on its shared connection, the worker takes a
  // blocking one of its own; all are closed before the process exits.
  const redis = redisFromConfig(config, 'sor-worker-check');
  if (!redis) {
    logger.fatal('REDIS_URL is not set: the queue worker pulls chunk jobs from Redis and cannot run without it.');
    return 2;
  }

  // Wait for Redis, then check it is a Redis we can trust with jobs.
  redis.shared().on('error', () => undefined);
  let check = await redis.check(5000);
  let waitedLog = 0;
  while (!check.ok && check.state === 'unreachable') {
    if (Date.now() - waitedLog > 5000) {
      logger.warn({ redis: redis.where, detail: redis.redact(check.detail) }, 'worker: waiting for Redis');
      waitedLog = Date.now();
    }
    await new Promise((r) => setTimeout(r, 500));
    check = await redis.check(500);
  }
  if (!check.ok) {
    await redis.close();
    logger.fatal({ redis: redis.where }, `worker: refusing to start: ${redis.redact(check.detail)}`);
    return 1;
  }
  logger.info({ redisVersion: check.version, maxmemoryPolicy: check.maxmemoryPolicy }, 'worker: Redis checked');

  // QUEUE_WORKER_THREADS=0: chunks computed on this thread, one at a time. Otherwise a pool. Either way the outputs
  // are UTF-8 bytes (transferred from the pool's threads) that go to Redis without being decoded or re-encoded.
  const threads = config.QUEUE_WORKER_THREADS ?? config.BULK_THREADS;
  const runner =
    threads === 0 ? createInlineRunner({ output: 'bytes' }) : createPoolRunner({ threads, output: 'bytes' });
  const worker = startChunkWorker({
    config,
    logger,
    redis,
    runner,
    concurrency: Math.max(1, threads) + tuning.prefetch,
    tuning,
  });
  await worker.ready();

  // Liveness for orchestrators without an HTTP port: a timestamp written from the event loop every 10 s.
  const heartbeatFile = config.QUEUE_WORKER_HEARTBEAT_FILE;
  let heartbeat: NodeJS.Timeout | undefined;
  if (heartbeatFile) {
    const beat = () =>
      writeFile(heartbeatFile, String(Date.now())).catch((err: Error) =>
        logger.warn({ err: err.message, heartbeatFile }, 'worker: cannot write the heartbeat file'),
      );
    void beat();
    heartbeat = setInterval(beat, 10_000);
    heartbeat.unref();
  }

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, 'worker: second signal, exiting now; other workers will recover in-flight jobs');
        resolve(130);
        return;
      }
      stopping = true;
      clearInterval(heartbeat);
      const graceMs = config.QUEUE_WORKER_SHUTDOWN_GRACE_MS;
      logger.info({ signal, graceMs }, 'worker: draining in-flight jobs, then exiting');
      setTimeout(() => {
        logger.warn(
          { graceMs },
          'worker: in-flight jobs did not finish within the grace period (is Redis reachable?); exiting now; ' +
            'other workers will recover them',
        );
        resolve(1);
      }, graceMs).unref();
      worker
        .close()
        .then(() => runner.close())
        .then(() => redis.close())
        .then(
          () => resolve(0),
          (err: unknown) => {
            logger.error({ err: (err as Error).message }, 'worker: error while stopping');
            resolve(1);
          },
        );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    // Announced only once the signal handlers are in place: a supervisor (or a test) that sends SIGTERM as soon
    // as it reads this line gets the graceful drain, never the default action of the signal. The line is written
    // asynchronously, so before, a busy machine could deliver that SIGTERM before the handlers existed.
    logger.info({ threads, runner: runner.kind }, 'worker: ready for chunk jobs');
  });
}

main().then(
  async (code) => {
    process.exitCode = code;
    await log?.flush();
    // Piscina threads and sockets are closed; exit even if a stray timer lingers.
    setTimeout(() => process.exit(code), 200).unref();
  },
  async (err: unknown) => {
    // Only the message, redacted: an error object of the Redis client may carry a command's arguments.
    const message = err instanceof Error ? err.message : String(err);
    await log?.flush();
    console.error(`queue worker failed: ${redactText(message, urlSecrets(process.env.REDIS_URL))}`);
    process.exit(1);
  },
);
