/**
 * The request log is written asynchronously (src/logger.ts), and no line is lost when the process ends: src/server.ts
 * as a real process answers N requests while the test does not read its stdout (the pipe fills, so lines are
 * still in the process's buffer and a write is in flight), then gets SIGTERM (or an uncaught exception) at once;
 * only then does the test read again. Every one of the N request lines must be in stdout, with the shutdown
 * (or fatal) line. An asynchronous destination that is not flushed before the exit fails both (pino's own exit
 * hook alone loses the chunk in flight).
 */
import { serverEnv } from '../support/processes.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseRequest } from './helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const SERVER = join(ROOT, 'src', 'server.ts');
/** Enough request lines (about 250 bytes each) to fill the pipe and the reader's buffer several times over. */
const N = 1000;
/** A test-only preload: SIGUSR2 throws from a signal handler, i.e. an uncaught exception in the server. */
const THROW_ON_SIGUSR2 =
  'data:text/javascript,process.on("SIGUSR2",()=>{throw new Error("fatal-test: thrown on SIGUSR2")})';

interface LogLine {
  msg?: string;
  level?: number;
  url?: string;
  req?: { id?: string; path?: string };
  err?: { message?: string };
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function startServer(nodeArgs: string[] = []) {
  const child = spawn(NODE, [...nodeArgs, SERVER], {
    cwd: ROOT,
    env: serverEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  // 'close': the process has exited and its stdout has been read to the end.
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    const onData = () => {
      const line = stdout.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line === undefined) return;
      child.stdout.off('data', onData);
      // From here on the test stops reading stdout: the server's log writes back up.
      child.stdout.pause();
      resolve((JSON.parse(line) as LogLine).url ?? '');
    };
    child.stdout.on('data', onData);
    void closed.then((code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  listening.catch(() => {});
  const lines = (): LogLine[] =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  return { child, closed, listening, lines, stderr: () => stderr };
}

/** N calculations over 8 keep-alive connections, each with its own request id; resolves with the statuses. */
async function sendRequests(base: string, ids: string[]): Promise<number[]> {
  const url = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const body = Buffer.from(JSON.stringify(baseRequest()));
  const one = (id: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/v1/calculate',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-request-id': id },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  try {
    return await Promise.all(ids.map(one));
  } finally {
    agent.destroy();
  }
}

function requestIds(prefix: string): string[] {
  return Array.from({ length: N }, (_, i) => `${prefix}-${i}`);
}

/** The ids of the 'request completed' lines, each id once per line. */
function loggedIds(lines: LogLine[]): string[] {
  return lines.filter((l) => l.msg === 'request completed').map((l) => l.req?.id ?? '');
}

describe('the asynchronous request log loses no line when the process ends', () => {
  it(`SIGTERM right after ${N} requests: all ${N} request lines, then the shutdown lines, exit 0`, async () => {
    const s = startServer();
    const url = await s.listening;
    const ids = requestIds('sigterm');
    const statuses = await sendRequests(url, ids);
    expect(statuses.every((st) => st === 200)).toBe(true);

    s.child.kill('SIGTERM');
    // Read again only once the server is shutting down with its log backed up.
    setTimeout(() => s.child.stdout.resume(), 300);
    expect(await s.closed).toBe(0);

    const lines = s.lines();
    const logged = loggedIds(lines);
    expect(logged).toHaveLength(N);
    expect(new Set(logged)).toEqual(new Set(ids));
    const messages = lines.map((l) => l.msg);
    expect(messages).toContain('shutting down: finishing in-flight requests');
    expect(messages.at(-1)).toBe('stopped');
  }, 120_000);

  it(`an uncaught exception right after ${N} requests: all ${N} request lines and the fatal line, exit 1`, async () => {
    const s = startServer(['--import', THROW_ON_SIGUSR2]);
    const url = await s.listening;
    const ids = requestIds('fatal');
    const statuses = await sendRequests(url, ids);
    expect(statuses.every((st) => st === 200)).toBe(true);

    s.child.kill('SIGUSR2');
    setTimeout(() => s.child.stdout.resume(), 300);
    expect(await s.closed).toBe(1);

    const lines = s.lines();
    const logged = loggedIds(lines);
    expect(logged).toHaveLength(N);
    expect(new Set(logged)).toEqual(new Set(ids));
    const fatal = lines.at(-1);
    expect(fatal?.level).toBe(60);
    expect(fatal?.msg).toBe('uncaught exception: exiting');
    expect(fatal?.err?.message).toBe('fatal-test: thrown on SIGUSR2');
  }, 120_000);
});
