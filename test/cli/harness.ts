/**
 * What the CLI tests share: the CLI run in this process with its stdout and stderr captured, a runner that holds
 * one chunk until the test lets it go (a slowed calculation, never a sleep), and a job service whose runners are
 * such a runner (the job routes of the real service, over HTTP on a loopback port).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import express from 'express';
import { errorMiddleware } from '../../src/api/error-envelope.ts';
import { jobsAccessRouter } from '../../src/api/jobs-access.ts';
import { jobsRouter } from '../../src/api/jobs-route.ts';
import { runBulk } from '../../src/bulk/pipeline.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../../src/bulk/runner.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import type { CliHooks, CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { AsyncJobs } from '../../src/jobs/async-jobs.ts';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { silentLogger, testConfig } from '../queue/helpers.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI in this process: main(argv) with captured output; `stderr()` reads what it wrote so far. */
export function startCli(
  argv: string[],
  options: { env?: Record<string, string>; hooks?: CliHooks; stdin?: string } = {},
) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const io: CliIo = {
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    stdout,
    stderr,
    env: options.env ?? {},
    hooks: options.hooks,
  };
  const done = main(argv, io).then((code): CliRun => ({ code, stdout: out, stderr: err }));
  return { done, stderr: () => err, stdout: () => out };
}

/** Resolves once `test()` holds (checked as the CLI writes), or rejects after `ms`. */
export async function until(test: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A runner that runs chunks with `inner` but holds chunk `held` until `release()`; `arrived` resolves when it comes. */
export function holdingRunner(held: number, inner: ChunkRunner = createInlineRunner()) {
  let release!: () => void;
  let arrive!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const runner: ChunkRunner = {
    kind: inner.kind,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      if (task.index === held) {
        arrive();
        await gate;
      }
      return inner.run(task);
    },
    close: async () => undefined,
  };
  return { runner, release, arrived };
}

/** A folder of the test's own, removed with `rm()`. */
export function tempDir(name: string): { dir: string; rm(): void } {
  const dir = mkdtempSync(join(tmpdir(), `sor-${name}-`));
  return { dir, rm: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface JobService {
  base: string;
  close(): Promise<void>;
}

/** The service's job routes (POST, GET, DELETE, downloads) over HTTP, every chunk run by `runner`. */
export async function jobService(
  runner: ChunkRunner,
  dir: string,
  env: Record<string, string> = {},
): Promise<JobService> {
  const config = testConfig({ SPOOL_DIR: join(dir, 'spool'), JOBS_DIR: join(dir, 'jobs'), ...env });
  const store = new LocalJobStore({
    dir: config.JOBS_DIR,
    ttlSeconds: config.JOB_TTL_SECONDS,
    maxBytes: config.JOBS_MAX_DISK_BYTES,
  });
  const jobs = new AsyncJobs({
    config,
    logger: silentLogger,
    store,
    jobsDir: config.JOBS_DIR,
    runners: { small: runner, large: runner },
    runBulk,
  });
  const app = express();
  app.use(jobsAccessRouter(jobs, { authRequired: false }));
  app.use(jobsRouter(jobs, { maxBytes: config.BULK_MAX_BYTES, spoolDir: config.SPOOL_DIR }));
  app.use(errorMiddleware);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await jobs.close(1000);
      await store.close();
    },
  };
}
