/**
 * Shared helpers of the queue tests: configs, a silent logger, a transparent local runner, the bulk pipeline's
 * output as text, and clean-up of a test prefix.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import express from 'express';
import { Queue } from 'bullmq';
import pino from 'pino';
import type { Logger } from 'pino';
import { createApp } from '../../src/api/app.ts';
import { errorMiddleware } from '../../src/api/error-envelope.ts';
import { jobsRouter } from '../../src/api/jobs-route.ts';
import type { AsyncJobs } from '../../src/jobs/async-jobs.ts';
import { type BulkFormat, type RunBulkOptions, runBulk } from '../../src/bulk/pipeline.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../../src/bulk/runner.ts';
import { loadConfig } from '../../src/config.ts';
import type { Config } from '../../src/config.ts';
import { QUEUE_NAME } from '../../src/queue/settings.ts';
import { type Runtime, createRuntime } from '../../src/runtime.ts';
import { TEST_SIGNING_KEY } from '../support/processes.ts';
import { deleteKeys } from '../support/redis.ts';

export const silentLogger: Logger = pino({ level: 'silent' });

export function testConfig(env: Record<string, string>): Config {
  return loadConfig({ LOG_LEVEL: 'silent', QUEUE_SIGNING_KEY: TEST_SIGNING_KEY, ...env });
}

/**
 * A runner that transforms a payload in a fixed, checkable way (every line reversed), counting its calls. It
 * tests the transport (queue, fallback, order), not the calculation.
 */
export function reversingRunner(kind: ChunkRunner['kind'] = 'pool'): ChunkRunner & { calls: number[] } {
  const calls: number[] = [];
  return {
    kind,
    calls,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      calls.push(task.index);
      if (task.payload.startsWith('!malformed')) throw new SyntaxError('malformed chunk payload'); // as decodePayload throws
      const lines = task.payload.split('\n');
      const text = lines.map((l) => [...l].reverse().join('') + '\n').join('');
      return { index: task.index, text, rows: lines.length, errorRows: 0, students: lines.length };
    },
    async close() {},
  };
}

export function expectedReversed(payload: string): string {
  return payload
    .split('\n')
    .map((l) => [...l].reverse().join('') + '\n')
    .join('');
}

/** Runs the bulk pipeline over an in-memory file and returns its whole output as text. */
export async function bulkOutputText(options: {
  body: string;
  format: BulkFormat;
  runner: RunBulkOptions['runner'];
  config: Config;
  onProgress?: RunBulkOptions['onProgress'];
}): Promise<string> {
  const parts: Buffer[] = [];
  await runBulk({
    input: Readable.from([Buffer.from(options.body)]),
    output: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        parts.push(chunk);
        callback();
      },
    }),
    format: options.format,
    runner: options.runner,
    config: options.config,
    onProgress: options.onProgress,
  });
  return Buffer.concat(parts).toString('utf8');
}

/** Deletes everything a test run left under its REDIS_PREFIX (its queue, then any other key of the prefix). */
export async function removePrefix(url: string, prefix: string): Promise<void> {
  const q = new Queue(QUEUE_NAME, { connection: { url, maxRetriesPerRequest: 1, retryStrategy: () => null }, prefix });
  q.on('error', () => undefined);
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close().catch(() => undefined);
  await deleteKeys(url, prefix);
}

export interface RunningService {
  base: string;
  runtime: Runtime;
  close(): Promise<void>;
}

/** The whole service as server.ts assembles it (runtime + app, its guards too) on an ephemeral loopback port. */
export async function startService(config: Config): Promise<RunningService> {
  const runtime = await createRuntime(config, silentLogger);
  const app = createApp(
    { config, logger: silentLogger, runners: runtime.runners, readiness: runtime.readiness },
    { routers: runtime.routers, openApiPaths: runtime.openApiPaths, guards: runtime.guards },
  );
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    runtime,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
    },
  };
}

/** Serves the jobs router of `jobs` (with the app's error middleware) on an ephemeral loopback port. */
export async function serveJobs(
  jobs: AsyncJobs,
  config: Config,
  spoolDir: string,
): Promise<{ base: string; server: Server }> {
  const app = express();
  app.use(jobsRouter(jobs, { maxBytes: config.BULK_MAX_BYTES, spoolDir }));
  app.use(errorMiddleware);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, server };
}

/** Counts the chunks the queue runner had to run locally. */
export function countingFallback(inner: ChunkRunner): ChunkRunner & { calls: number } {
  const wrapped = {
    kind: inner.kind,
    calls: 0,
    run(task: ChunkTask): Promise<ChunkOutput> {
      wrapped.calls++;
      return inner.run(task);
    },
    close: async () => undefined,
  };
  return wrapped;
}
