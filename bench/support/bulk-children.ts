/**
 * The child processes of bench:bulk: the real server (POST /v1/calculate/bulk) and the CLI (`sor bulk`), started
 * from a checkout of this repository (this one, or another for a comparison) either from its build (dist/, what
 * `npm start` runs) or from its sources, with the node flags asked for. Each run reports its wall time, the peak
 * RSS of the child and the CPU time of the child's threads by group (bench/support/process-stats.ts); an upload
 * also reports the CPU time of this process, the client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { cpuSince, ownCpuSeconds, threadCpu, watchPeakRss, type ThreadCpu } from './process-stats.ts';

/** How the children are started. */
export interface ChildSetup {
  /** The checkout whose server and CLI run (with a trailing slash). */
  root: string;
  /** dist/ (the build) or src/ (type stripping). */
  dist: boolean;
  nodeFlags: string[];
}

export interface ChildRun {
  seconds: number;
  /** Peak RSS of the child (all its threads), MB. */
  peakMb: number;
  /** CPU of the child's threads over the run. */
  cpu: ThreadCpu;
}

export interface UploadRun extends ChildRun {
  /** Bytes of the 200 answers. */
  outBytes: number;
  /** Uploads answered 503 (busy), when several were sent at once. */
  busy: number;
  /** CPU seconds of this process (the client) over the run. */
  clientCpu: number;
}

function entry(setup: ChildSetup, name: 'server' | 'cli'): string {
  const file = name === 'cli' ? 'cli/main' : name;
  return setup.dist ? `${setup.root}dist/src/${file}.js` : `${setup.root}src/${file}.ts`;
}

/**
 * The child's environment: this one, without REDIS_URL (the embedded pool is measured), with limits that admit the
 * largest file (a million students are more than the default 2,000,000 rows).
 */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const limits = { BULK_MAX_ROWS: '100000000', BULK_MAX_BYTES: String(16 * 1024 ** 3) };
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...limits, ...extra };
  delete env.REDIS_URL;
  return env;
}

/** Starts the server on a free port; resolves once it listens. */
async function startServer(setup: ChildSetup): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...setup.nodeFlags, entry(setup, 'server')], {
    cwd: setup.root,
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const onData = (c: Buffer) => {
      seen += c.toString();
      const m = /"port":(\d+)/.exec(seen);
      if (m === null) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume(); // the request log keeps flowing; never let the pipe fill
      resolve(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening`)));
  });
  // The pool threads start with the server: give them a moment, so their start-up is not in the measurement.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { child, port };
}

/** POSTs the file once; resolves with the answer's bytes (0 for a 503 when `busyOk`). */
function upload(path: string, port: number, busyOk: boolean): Promise<{ bytes: number; busy: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/calculate/bulk',
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'content-length': statSync(path).size },
      },
      (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => {
          if (res.statusCode === 200) resolve({ bytes: n, busy: false });
          else if (res.statusCode === 503 && busyOk) resolve({ bytes: 0, busy: true });
          else reject(new Error(`HTTP ${res.statusCode}`));
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    createReadStream(path, { highWaterMark: 256 * 1024 }).pipe(req);
  });
}

/**
 * POSTs the file to a fresh server, `parallel` copies at once (each must be answered 200, or 503 service_busy when
 * several are sent); the server is killed whatever happens.
 */
export async function endpointRun(path: string, setup: ChildSetup, parallel = 1): Promise<UploadRun> {
  const { child, port } = await startServer(setup);
  const rss = watchPeakRss(child.pid!);
  const cpu0 = threadCpu(child.pid!);
  const client0 = process.cpuUsage();
  const t = performance.now();
  try {
    const answers = await Promise.all(Array.from({ length: parallel }, () => upload(path, port, parallel > 1)));
    const seconds = (performance.now() - t) / 1000;
    const clientCpu = ownCpuSeconds(client0);
    const cpu = cpuSince(cpu0, threadCpu(child.pid!));
    return {
      seconds,
      clientCpu,
      cpu,
      peakMb: rss.stop(),
      outBytes: answers.reduce((a, b) => a + b.bytes, 0),
      busy: answers.filter((a) => a.busy).length,
    };
  } finally {
    rss.stop();
    child.kill('SIGKILL');
  }
}

/** Runs `sor bulk FILE -o FILE.out` in a child process. */
export async function cliRun(path: string, setup: ChildSetup): Promise<ChildRun> {
  const t = performance.now();
  const args = [...setup.nodeFlags, entry(setup, 'cli'), 'bulk', path, '-o', `${path}.out`];
  const child = spawn(process.execPath, args, {
    cwd: setup.root,
    env: childEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const rss = watchPeakRss(child.pid!);
  let stderr = '';
  let cpu: ThreadCpu = threadCpu(child.pid!);
  const sampler = setInterval(() => {
    const now = threadCpu(child.pid!);
    if (now.total >= cpu.total) cpu = now; // the last reading before the process is gone
  }, 50);
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - t) / 1000;
  const peakMb = rss.stop();
  rmSync(`${path}.out`, { force: true });
  if (code !== 0) throw new Error(`sor bulk exited ${code}: ${stderr.trim().split('\n').at(-1)}`);
  return { seconds, peakMb, cpu };
}
