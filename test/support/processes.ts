/**
 * Child processes for tests (queue workers, the API server): spawned with Node 24 from node_modules, output
 * captured, and always killed by the test's afterEach/afterAll through `killAll`.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const NODE_BIN = `${REPO_ROOT}node_modules/.bin/node`;
/** The QUEUE_SIGNING_KEY of test processes and configs (required with REDIS_URL); a test may pass its own. */
export const TEST_SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';

export interface Child {
  readonly proc: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves when the output matches `pattern`; rejects if the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited: Promise<number | string>;
}

const children = new Set<ChildProcess>();

export function spawnNode(script: string, env: Record<string, string>, args: string[] = []): Child {
  const proc = spawn(NODE_BIN, [script, ...args], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      QUEUE_SIGNING_KEY: TEST_SIGNING_KEY,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    text += d.toString('utf8');
    for (const l of listeners) l();
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  const exited = new Promise<number | string>((resolve) => {
    proc.once('exit', (code, signal) => {
      children.delete(proc);
      resolve(code ?? signal ?? 'unknown');
      for (const l of listeners) l();
    });
  });
  return {
    proc,
    output: () => text,
    exited,
    waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(text)) {
            done();
            resolve();
          } else if (proc.exitCode !== null || proc.signalCode !== null) {
            done();
            reject(new Error(`process exited before printing ${pattern}; output:\n${text.slice(-4000)}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${pattern}; output:\n${text.slice(-4000)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** SIGKILLs every child still running (call from afterEach/afterAll). */
export async function killAll(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const proc of children) {
    if (proc.exitCode === null && proc.signalCode === null) {
      waits.push(new Promise((resolve) => proc.once('exit', resolve)));
      proc.kill('SIGKILL');
    }
  }
  children.clear();
  await Promise.all(waits);
}

/** Starts a queue worker process and waits until it takes jobs. Its BullMQ worker name is `<host>:<pid>`. */
export async function startWorker(env: Record<string, string>): Promise<Child> {
  const child = spawnNode('workers/queue.worker.ts', { LOG_LEVEL: 'info', BULK_THREADS: '1', ...env });
  await child.waitFor(/worker: ready for chunk jobs/, 30_000);
  return child;
}

/**
 * A clean environment for a spawned `src/server.ts` (none of this process's variables but PATH and HOME): an
 * ephemeral port on loopback, info logs, one bulk thread, plus `extra`.
 */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    BULK_THREADS: '1',
    ...extra,
  };
}
