/**
 * Queue worker processes for the benchmarks: `workers/queue.worker.ts` started with this process's Node, waited
 * for until it takes jobs, and always killed at the end (`killWorkers`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const running = new Set<ChildProcess>();

/**
 * Starts a queue worker with `env` (added to this environment) and resolves with its pid once it is ready.
 * `root`: the checkout whose workers/queue.worker.ts runs (default this one; bench:queue --baseline passes another).
 * `nodeArgs`: Node flags of the worker (before the script), e.g. --cpu-prof or V8 GC flags.
 */
export function startWorker(
  env: Record<string, string>,
  timeoutMs = 30_000,
  root = ROOT,
  nodeArgs: readonly string[] = [],
): Promise<number> {
  const child = spawn(process.execPath, [...nodeArgs, `${root}workers/queue.worker.ts`], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', BULK_THREADS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => fail(new Error(`worker not ready within ${timeoutMs} ms:\n${seen.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      seen += d.toString('utf8');
      if (!/worker: ready for chunk jobs/.test(seen)) return;
      clearTimeout(timer);
      // Keep draining the pipes so a chatty worker never blocks on a full pipe.
      child.stdout?.removeListener('data', onData);
      child.stderr?.removeListener('data', onData);
      child.stdout?.resume();
      child.stderr?.resume();
      resolve(child.pid!);
    };
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(err);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) =>
      fail(new Error(`worker exited (${code ?? signal}) before it was ready:\n${seen}`)),
    );
  });
}

/**
 * Kills every worker this process started (SIGKILL; SIGTERM lets them drain and exit, e.g. to write a
 * --cpu-prof) and waits until they are gone.
 */
export async function killWorkers(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const child of running) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    waits.push(new Promise((resolve) => child.once('exit', resolve)));
    child.kill(signal);
  }
  running.clear();
  await Promise.all(waits);
}
