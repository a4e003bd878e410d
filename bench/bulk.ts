/**
 * npm run bench:bulk [-- --students N] [-- --sizes 100000,1000000] [-- --skip-sizes | --only-sizes] [-- --dist]
 *   [-- --concurrent 4] [-- --node-flags='--max-semi-space-size=8']

 * Generates N random valid students (default 200,000; seeded, reproducible) into .bench-tmp/ and, in the same run,
 * times on the same file:
 *   - pass-through: csv-parse → csv-stringify of the raw file (the floor any CSV service pays),
 *   - the pipeline in-process with the inline runner and with the piscina pool (pool speedup over inline),
 *   - POST /v1/calculate/bulk on a server in a child process (file streamed up, response streamed down),
 *   - the CLI (`sor bulk`) in a child process,
 * then, for each size of --sizes (default 100k and 1M students), the endpoint and the CLI again in fresh processes
 * to report time and peak RSS (process-wide, worker threads included) as files grow.
 *
 * Prints students/s, the ratio to the pass-through, the pool speedup, and peak RSS. Never asserts: it reports.
 *
 * Shadow check (`--shadow-rounds`, 0 to skip; `--only-shadow`): the same students with the school's figures added as
 * sis_* columns (bench/support/shadow-file.ts: every student checked, 10% mismatching and unexplained, so every
 * reason is computed for them), against the file without them, in alternating rounds on the inline runner and the
 * pool, in this process; prints each round's throughput ratio (check on ÷ check off; target ≥ 0.8).
 * Job outputs (`--only-job`, `--job-rounds`): an async job's three outputs against its former one (job-outputs.ts).
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, cpus } from 'node:os';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { benchArgs } from './support/args.ts';
import { writeRandomFile } from './support/random-file.ts';
import { writeShadowFile } from './support/shadow-file.ts';
import { jobOutputs } from './support/job-outputs.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TMP = `${ROOT}.bench-tmp`;

/** N random valid students (seeded: the same file every run), generated once into .bench-tmp/. */
function generate(students: number): Promise<string> {
  return writeRandomFile(`${TMP}/bulk-${students}.csv`, { students, seed: 20260701 });
}

const devNull = () =>
  new Writable({
    write(_c, _e, cb) {
      cb();
    },
  });

interface Timing {
  seconds: number;
  /** CPU time of this process (all its threads) over the run, for in-process runs. */
  cpuSeconds?: number;
  maxRssMb?: number;
  outBytes?: number;
}

async function passThrough(path: string): Promise<Timing> {
  const t = performance.now();
  await pipeline(createReadStream(path, { highWaterMark: 256 * 1024 }), parse({ bom: true }), stringify(), devNull());
  return { seconds: (performance.now() - t) / 1000 };
}

/** Runs the pipeline in this process on the given runner kind (output discarded, or written to `outPath`). */
async function inProcess(path: string, kind: 'inline' | 'pool', outPath?: string): Promise<Timing> {
  const { runBulk } = await import('../src/bulk/pipeline.ts');
  const { createInlineRunner } = await import('../src/bulk/runners/inline.ts');
  const { createPoolRunner } = await import('../src/bulk/runners/pool.ts');
  const { loadConfig } = await import('../src/config.ts');
  const config = loadConfig({});
  let runner;
  if (kind === 'inline') {
    runner = createInlineRunner();
  } else {
    const pool = createPoolRunner({ threads: config.BULK_THREADS, output: 'bytes' });
    await pool.ping(); // threads started before the clock starts
    runner = pool;
  }
  const t = performance.now();
  const cpu = process.cpuUsage();
  await runBulk({
    input: createReadStream(path, { highWaterMark: 256 * 1024 }),
    output: outPath === undefined ? devNull() : createWriteStream(outPath),
    format: 'csv',
    runner,
    config,
    recycleOutput: true,
  });
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  await runner.close();
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** How the child processes (server, CLI) are started: source (.ts) or the build (dist/*.js), and node flags. */
interface ChildSetup {
  dist: boolean;
  nodeFlags: string[];
}

function entry(setup: ChildSetup, name: 'server' | 'cli'): string {
  const file = name === 'cli' ? 'cli/main' : name;
  return setup.dist ? `${ROOT}dist/src/${file}.js` : `${ROOT}src/${file}.ts`;
}

/**
 * The child's environment: this one, without REDIS_URL (this bench measures the embedded pool), with limits
 * that admit the largest file (a million students are more than the default 2,000,000 rows).
 */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const limits = { BULK_MAX_ROWS: '100000000', BULK_MAX_BYTES: String(16 * 1024 ** 3) };
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...limits, ...extra };
  delete env.REDIS_URL;
  return env;
}

/** Peak RSS of a live process (VmHWM, Linux), in MB; polled because it is gone once the process exits. */
function watchPeakRss(pid: number): { stop(): number } {
  let peak = 0;
  const read = () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // exited
    }
  };
  const timer = setInterval(read, 25);
  read();
  return {
    stop() {
      read();
      clearInterval(timer);
      return peak;
    },
  };
}

/**
 * POSTs the file to the real server (src/server.ts or dist/src/server.js) on a free port; time, bytes, peak RSS.
 * With `parallel` > 1, that many uploads of the file at once (each must be answered 200 or 503 service_busy);
 * `outBytes` is the total of the 200 answers and `busy` counts the 503s.
 */
async function endpoint(path: string, setup: ChildSetup, parallel = 1): Promise<Timing & { busy: number }> {
  const child = spawn(process.execPath, [...setup.nodeFlags, entry(setup, 'server')], {
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (c: Buffer) => {
      seen += c.toString();
      const m = /"port":(\d+)/.exec(seen);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening`)));
  });
  const rss = watchPeakRss(child.pid!);
  const t = performance.now();
  // The server is killed whatever happens: a failed run must not leave it holding this process's output open.
  let busy = 0;
  const one = () =>
    new Promise<number>((resolve, reject) => {
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
            if (res.statusCode === 200) resolve(n);
            else if (res.statusCode === 503 && parallel > 1) {
              busy++;
              resolve(0);
            } else reject(new Error(`HTTP ${res.statusCode}`));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      createReadStream(path, { highWaterMark: 256 * 1024 }).pipe(req);
    });
  const answered = Promise.all(Array.from({ length: parallel }, one)).then((sizes) => sizes.reduce((a, b) => a + b));
  let outBytes: number;
  try {
    outBytes = await answered;
  } catch (err) {
    rss.stop();
    child.kill('SIGKILL');
    throw err;
  }
  const seconds = (performance.now() - t) / 1000;
  const maxRssMb = rss.stop();
  child.kill('SIGKILL');
  return { seconds, outBytes, maxRssMb, busy };
}

/** Runs `sor bulk FILE -o FILE.out` (src/cli/main.ts or dist/src/cli/main.js) in a child process; time and peak RSS. */
async function cli(path: string, setup: ChildSetup): Promise<Timing> {
  const t = performance.now();
  const args = [...setup.nodeFlags, entry(setup, 'cli'), 'bulk', path, '-o', `${path}.out`];
  const child = spawn(process.execPath, args, { env: childEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  const rss = watchPeakRss(child.pid!);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const seconds = (performance.now() - t) / 1000;
  const maxRssMb = rss.stop();
  rmSync(`${path}.out`, { force: true });
  if (code !== 0) throw new Error(`sor bulk exited ${code}: ${stderr.trim().split('\n').at(-1)}`);
  return { seconds, maxRssMb };
}

// ---------------------------------------------------------------- report

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * For each size: the endpoint and the CLI in fresh processes, time and peak RSS; then, with `concurrent` > 1, that
 * many simultaneous uploads of each file to one fresh server (BULK_MAX_CONCURRENT bounds how many are computed at
 * once; the others are answered 503), peak RSS of the whole process.
 */
async function scaling(sizes: string, setup: ChildSetup, concurrent: number): Promise<void> {
  console.log(
    `\nscaling (fresh processes, ${setup.dist ? 'dist/' : 'src/'}, node flags: ${setup.nodeFlags.join(' ') || 'none'}):`,
  );
  const peaks: string[] = [];
  for (const size of sizes.split(',').map(Number)) {
    const p = await generate(size);
    const e = await endpoint(p, setup);
    const k = await cli(p, setup);
    peaks.push(`${fmt(size)}: ${fmt(e.maxRssMb!)} MB`);
    console.log(
      `${fmt(size).padStart(10)} students: endpoint ${e.seconds.toFixed(1)} s (${fmt(size / e.seconds)}/s), ` +
        `peak RSS ${fmt(e.maxRssMb!)} MB; CLI ${k.seconds.toFixed(1)} s (${fmt(size / k.seconds)}/s), ` +
        `peak RSS ${fmt(k.maxRssMb!)} MB`,
    );
  }
  console.log(`endpoint peak RSS by students: ${peaks.join(', ')} (target ≤ 256 MB at 1M, flat from 100k)`);
  if (concurrent <= 1) return;
  for (const size of sizes.split(',').map(Number)) {
    const p = await generate(size);
    const e = await endpoint(p, setup, concurrent);
    console.log(
      `${fmt(size).padStart(10)} students × ${concurrent} uploads at once: ${e.seconds.toFixed(1)} s, ` +
        `${concurrent - e.busy} computed, ${e.busy} answered 503 (BULK_MAX_CONCURRENT ` +
        `${process.env.BULK_MAX_CONCURRENT ?? 4}), peak RSS ${fmt(e.maxRssMb!)} MB`,
    );
  }
}

/** The shadow check's cost: the same students with and without sis_* columns, alternating rounds per runner. */
async function shadowCheck(n: number, rounds: number): Promise<void> {
  const plain = await generate(n);
  const withSis = `${TMP}/bulk-${n}-sis.csv`;
  if (!existsSync(withSis)) {
    const expected = `${plain}.expected.csv`;
    await inProcess(plain, 'inline', expected);
    await writeShadowFile(plain, expected, withSis);
    rmSync(expected, { force: true });
  }
  console.log(
    `\nshadow check: ${fmt(n)} students, check off (${(statSync(plain).size / 1e6).toFixed(1)} MB) vs every student ` +
      `with sis_* columns, 10% mismatching, unexplained (${(statSync(withSis).size / 1e6).toFixed(1)} MB); ` +
      `alternating rounds in this process`,
  );
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const kind of ['inline', 'pool'] as const) {
    // Warm-up (not measured): the first run of each file pays for compiling the code it takes.
    await inProcess(plain, kind);
    await inProcess(withSis, kind);
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const off = await inProcess(plain, kind);
      const on = await inProcess(withSis, kind);
      wall.push(off.seconds / on.seconds);
      cpu.push(off.cpuSeconds! / on.cpuSeconds!);
      console.log(
        `  ${kind.padEnd(6)} round ${round}: check off ${fmt(n / off.seconds).padStart(7)} students/s ` +
          `(${fmt(n / off.cpuSeconds!)} per CPU-second), check on ${fmt(n / on.seconds).padStart(7)} students/s ` +
          `(${fmt(n / on.cpuSeconds!)} per CPU-second): ratio ${wall.at(-1)!.toFixed(2)} wall, ` +
          `${cpu.at(-1)!.toFixed(2)} CPU`,
      );
    }
    console.log(
      `  ${kind.padEnd(6)} median ratio ${median(wall).toFixed(2)} wall-clock, ${median(cpu).toFixed(2)} CPU time ` +
        '(target ≥ 0.8; on a busy machine the CPU-time ratio is the steadier figure)',
    );
  }
}

async function benchmark(): Promise<void> {
  const values = benchArgs('npm run bench:bulk --', {
    students: { type: 'number', default: 200_000, help: 'students in the file of the main comparison' },
    sizes: {
      type: 'string',
      default: '100000,1000000',
      help: 'students per file of the scaling runs, comma-separated',
    },
    'skip-sizes': { type: 'boolean', default: false, help: 'skip the scaling runs' },
    'only-sizes': { type: 'boolean', default: false, help: 'run only the scaling runs' },
    concurrent: {
      type: 'number',
      default: 1,
      help: 'after the scaling runs: this many simultaneous uploads of each size to one server (1: none)',
    },
    dist: { type: 'boolean', default: false, help: 'run the server and CLI from dist/ (npm run build first)' },
    'node-flags': {
      type: 'string',
      default: '',
      help: "node flags of the child processes ('--max-semi-space-size=4')",
    },
    'shadow-rounds': {
      type: 'number',
      default: 3,
      min: 0,
      help: 'alternating rounds of the shadow-check comparison per runner (0 skips it)',
    },
    'only-shadow': { type: 'boolean', default: false, help: 'run only the shadow-check comparison' },
    'job-rounds': { type: 'number', default: 3, help: 'rounds of the job outputs comparison (--only-job)' },
    'only-job': { type: 'boolean', default: false, help: 'run only the job outputs comparison' },
    generate: {
      type: 'number',
      default: 0,
      min: 0,
      help: 'only write a file of this many students and print its path',
    },
  });
  if (values.generate > 0) {
    console.log(await generate(values.generate));
    return;
  }
  const setup: ChildSetup = {
    dist: values.dist,
    nodeFlags: values['node-flags'].split(' ').filter(Boolean),
  };
  if (setup.dist && !existsSync(entry(setup, 'server'))) throw new Error('--dist: run `npm run build` first');
  const n = values.students;
  if (values['only-shadow']) {
    await shadowCheck(n, Math.max(1, values['shadow-rounds']));
    return;
  }
  if (values['only-job']) {
    await jobOutputs(await generate(n), n, values['job-rounds']);
    return;
  }
  if (values['only-sizes']) {
    await scaling(values.sizes, setup, values.concurrent);
    return;
  }
  console.log(
    `bench:bulk — ${cpus()[0]?.model ?? 'cpu'}, ${availableParallelism()} cores, Node ${process.version}, ` +
      `BULK_THREADS=${process.env.BULK_THREADS ?? availableParallelism()}`,
  );
  console.log(
    `server and CLI run from ${setup.dist ? 'dist/ (the build)' : 'src/ (type stripping)'}` +
      (setup.nodeFlags.length > 0 ? ` with node ${setup.nodeFlags.join(' ')}` : ' with default node flags'),
  );
  const path = await generate(n);
  const mb = statSync(path).size / 1e6;
  console.log(`file: ${fmt(n)} random valid students, ${mb.toFixed(1)} MB (${path})\n`);

  const rate = (t: Timing) => n / t.seconds;
  const base = await passThrough(path);
  const line = (name: string, t: Timing, extra = '') =>
    console.log(
      `${name.padEnd(34)} ${t.seconds.toFixed(2).padStart(7)} s ${fmt(rate(t)).padStart(9)} students/s  ` +
        `ratio ${(rate(t) / rate(base)).toFixed(2)}${extra}`,
    );
  line('pass-through csv-parse→stringify', base);
  const inl = await inProcess(path, 'inline');
  line('pipeline, inline runner', inl);
  const pool = await inProcess(path, 'pool');
  line('pipeline, piscina pool', pool, `  pool speedup ${(inl.seconds / pool.seconds).toFixed(2)}x over inline`);
  const http = await endpoint(path, setup);
  line('POST /v1/calculate/bulk', http, `  peak RSS ${fmt(http.maxRssMb!)} MB`);
  const c = await cli(path, setup);
  line('sor bulk (CLI)', c, `  peak RSS ${fmt(c.maxRssMb!)} MB`);

  console.log(
    `\npass-through ratio: endpoint ${(rate(http) / rate(base)).toFixed(2)}, CLI ${(rate(c) / rate(base)).toFixed(2)} ` +
      `(target ≥ 0.6); endpoint peak RSS ${fmt(http.maxRssMb!)} MB at ${fmt(n)} students`,
  );
  if (!values['skip-sizes']) await scaling(values.sizes, setup, values.concurrent);
  if (values['shadow-rounds'] > 0) await shadowCheck(n, values['shadow-rounds']);
  console.log(
    '\ntargets (2 cores): endpoint ≥ 0.6 of the pass-through; 1M students ≤ 45 s; peak RSS ≤ 256 MB at 1M and flat from 100k; pool ≥ 1.6x inline',
  );
}

await benchmark();
