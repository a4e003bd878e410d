/**
 * Redis for tests, found in this order (never skipped: when none can be found, the test fails loudly):
 *  1. REDIS_URL from the environment (CI exports it; this machine runs Redis 7 on 127.0.0.1:6379);
 *  2. a throwaway container through testcontainers, when a Docker engine answers;
 *  3. a local `redis-server` binary on a free port, without persistence, killed after the tests.
 * Tests isolate themselves with a per-run BullMQ prefix (`uniquePrefix`) and delete only their own keys
 * (`deleteKeys`); they never FLUSHALL/FLUSHDB a server that may be shared.
 */
import { freePort } from './free-port.ts';
import { deleteKeys as deletePrefixKeys } from './redis-keys.ts';

export { freePort };
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';

export interface TestRedis {
  url: string;
  /** How it was found: env, container or binary. */
  source: 'env' | 'container' | 'binary';
  /** Stops what this helper started (nothing for `env`). */
  stop(): Promise<void>;
}

async function ping(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function which(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(`${dir}/${binary}`)) return `${dir}/${binary}`;
  }
  for (const dir of ['/usr/bin', '/usr/local/bin', '/usr/sbin']) {
    if (existsSync(`${dir}/${binary}`)) return `${dir}/${binary}`;
  }
  return undefined;
}

function dockerEngineLikely(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

async function startContainer(): Promise<TestRedis | undefined> {
  if (!dockerEngineLikely()) return undefined;
  try {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('redis:7-alpine')
      .withCommand(['redis-server', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'])
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start();
    return {
      url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
      source: 'container',
      stop: async () => {
        await container.stop();
      },
    };
  } catch {
    return undefined;
  }
}

/** A redis-server child process on a free port; `kill()` simulates losing Redis. */
export interface OwnedRedis extends TestRedis {
  readonly process: ChildProcess;
  port: number;
}

/**
 * Starts `redis-server` on a free port (or on `port`, e.g. to bring a killed Redis back at the same address);
 * with `options.password`, it requires that password (the url then carries it, percent-encoded); `options.args`
 * come last and override the defaults (e.g. `--appendonly yes --dir <tmp>`).
 */
export async function startRedisBinary(
  wantedPort?: number,
  options: { password?: string; args?: string[] } = {},
): Promise<OwnedRedis | undefined> {
  const bin = which('redis-server');
  if (!bin) return undefined;
  const port = wantedPort ?? (await freePort());
  const child = spawn(
    bin,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
      ...(options.password === undefined ? [] : ['--requirepass', options.password]),
      // Later directives win: e.g. the persistence settings of docker-compose.yml.
      ...(options.args ?? []),
    ],
    { stdio: 'ignore' },
  );
  const auth = options.password === undefined ? '' : `default:${encodeURIComponent(options.password)}@`;
  const url = `redis://${auth}127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode} on port ${port}`);
    if (await ping(url, 500)) {
      return {
        url,
        port,
        source: 'binary',
        process: child,
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGKILL');
          await exited;
        },
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server on port ${port} did not answer within 10 s`);
}

const NO_REDIS =
  'No Redis for the queue tests: set REDIS_URL (e.g. redis://127.0.0.1:6379), start a Docker engine ' +
  '(testcontainers), or install redis-server (apt-get install redis-server). These tests are never skipped.';

/** Finds a Redis for the tests (see the module comment). Throws a loud error when there is none. */
export async function findRedis(env: Record<string, string | undefined> = process.env): Promise<TestRedis> {
  const fromEnv = env.REDIS_URL?.trim();
  if (fromEnv) {
    if (!(await ping(fromEnv))) throw new Error(`REDIS_URL=${fromEnv} is set but Redis does not answer there.`);
    return { url: fromEnv, source: 'env', stop: async () => undefined };
  }
  const container = await startContainer();
  if (container) return container;
  const binary = await startRedisBinary();
  if (binary) return binary;
  throw new Error(NO_REDIS);
}

/**
 * A Redis this test owns and may kill: a local redis-server (or a container when there is no binary).
 * Throws a loud error when neither is possible.
 */
export async function ownRedis(): Promise<TestRedis> {
  const binary = await startRedisBinary();
  if (binary) return binary;
  const container = await startContainer();
  if (container) return container;
  throw new Error(`${NO_REDIS} (this test needs a Redis it can stop: a redis-server binary or a Docker engine)`);
}

/** A BullMQ prefix unique to this test run: keys never collide with other runs or the service. */
export function uniquePrefix(name: string): string {
  return `sortest-${name}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Deletes every key under `${prefix}:` (only ours; SCAN, never FLUSH); 0 when the server is already gone. */
export async function deleteKeys(url: string, prefix: string): Promise<number> {
  try {
    return await deletePrefixKeys(url, prefix);
  } catch {
    return 0; // tests that kill their own Redis
  }
}
