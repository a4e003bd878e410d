/**
 * Redis for the queue benchmark: REDIS_URL when set, else a throwaway `redis-server` on a free port (no
 * persistence), stopped at the end. Keys live under a unique BullMQ prefix and only those are deleted (SCAN +
 * UNLINK, test/support/redis-keys.ts): never FLUSHALL/FLUSHDB on a server that may be shared.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { freePort } from '../../test/support/free-port.ts';

export interface BenchRedis {
  url: string;
  /** Stops the server this helper started (nothing for REDIS_URL). */
  stop(): Promise<void>;
}

async function ping(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
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

function redisServerBinary(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/bin', '/usr/local/bin', '/usr/sbin'];
  return dirs.map((d) => `${d}/redis-server`).find((p) => p.startsWith('/') && existsSync(p));
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** REDIS_URL, else a local redis-server on a free port; throws when there is neither. */
export async function benchRedis(): Promise<BenchRedis> {
  const fromEnv = process.env.REDIS_URL?.trim();
  if (fromEnv) {
    if (!(await ping(fromEnv))) throw new Error(`REDIS_URL=${fromEnv} is set but Redis does not answer there`);
    return { url: fromEnv, stop: async () => undefined };
  }
  const bin = redisServerBinary();
  if (bin === undefined) throw new Error('No Redis: set REDIS_URL or install redis-server');
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn(bin, args, { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await ping(url)) return { url, stop: () => stopChild(child) };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stopChild(child);
  throw new Error(`redis-server on port ${port} did not answer within 10 s`);
}

/** A BullMQ prefix unique to this run. */
export function uniquePrefix(name: string): string {
  return `sorbench-${name}-${process.pid}-${randomBytes(4).toString('hex')}`;
}
