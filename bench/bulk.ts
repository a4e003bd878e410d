/**
 * npm run bench:bulk [-- --students 1000000] [--rounds 1] [--rss-students 100000] [--concurrent 4]
 *   [--baseline DIR] [--src | --no-build] [--node-flags '…'] [--cli] [--in-process] [--shadow-rounds N]
 *
 * The bulk endpoint's figures, each against a baseline measured in the same run, on one seeded random file per size
 * (bench/support/random-file.ts, generated once into .bench-tmp/):
 *
 *  1. Throughput: in each round, a csv-parse → csv-stringify pass-through of the file in this process (the floor any
 *     CSV service pays; bench/support/bulk-in-process.ts), then POST /v1/calculate/bulk of the same file to a fresh
 *     server (upload, check, compute, 1.8 kB of output per student streamed back to this process: the client is
 *     included in the time). Prints the seconds, the ratio (pass-through seconds ÷ endpoint seconds: above 1 the
 *     endpoint is faster), the peak RSS, and where the CPU went: the server's main thread, its pool threads, V8's
 *     helper threads (compilation, garbage collection), and the client.
 *  2. Memory: the peak RSS of a fresh server for one upload of --rss-students, then for --concurrent uploads of it
 *     at once (BULK_MAX_CONCURRENT admits four).
 *
 * The server runs as `npm start` runs it: from dist/ (built first; --no-build to skip, --src for the sources) with
 * npm start's node flags (--node-flags to try others). --baseline DIR: another checkout of this repository (e.g. a
 * worktree of the commit before a change), built the same way, measured in the same rounds after this one.
 * --cli adds `sor bulk` of the file; --in-process the pipeline in this process (inline runner, piscina pool);
 * --shadow-rounds N the shadow check's cost (check on ÷ check off, --only-shadow for that alone). Never asserts:
 * it reports, and ends with the targets.
 * --only-job (--job-rounds N): an async job's three outputs against its former one (bench/support/job-outputs.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './support/args.ts';
import { writeRandomFile } from './support/random-file.ts';
import { cliRun, endpointRun, type ChildSetup, type UploadRun } from './support/bulk-children.ts';
import { startScriptFlags } from './support/node-flags.ts';
import { inProcess, passThrough, shadowCheck } from './support/bulk-in-process.ts';
import { cpuText } from './support/process-stats.ts';
import { jobOutputs } from './support/job-outputs.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The issue's targets on a 2-core machine. */
const TARGETS = { seconds1M: 15, passThroughRatio: 1.2, peakMb: 200, concurrentPeakMb: 400 };

const values = benchArgs('npm run bench:bulk --', {
  students: { type: 'number', default: 1_000_000, help: 'students in the file of the throughput rounds' },
  rounds: { type: 'number', default: 1, help: 'throughput rounds (pass-through, then the endpoint, per round)' },
  'rss-students': {
    type: 'number',
    default: 100_000,
    help: 'students in the file of the memory runs (0: none)',
    min: 0,
  },
  concurrent: { type: 'number', default: 4, help: 'uploads at once in the last memory run (1: none)' },
  baseline: { type: 'string', default: '', help: 'another checkout of this repository, measured in the same rounds' },
  src: { type: 'boolean', default: false, help: 'run the server and CLI from src/ instead of the build' },
  'no-build': { type: 'boolean', default: false, help: 'do not run `npm run build` first (dist/ is up to date)' },
  'node-flags': { type: 'string', default: '', help: "node flags of the children (default: npm start's)" },
  cli: { type: 'boolean', default: false, help: 'also run `sor bulk` of the file in each round' },
  'in-process': { type: 'boolean', default: false, help: 'also run the pipeline in this process (inline, pool)' },
  'shadow-rounds': { type: 'number', default: 0, min: 0, help: 'rounds of the shadow-check comparison (0: none)' },
  'only-shadow': { type: 'boolean', default: false, help: 'run only the shadow-check comparison' },
  'job-rounds': { type: 'number', default: 3, help: 'rounds of the job outputs comparison (--only-job)' },
  'only-job': { type: 'boolean', default: false, help: 'run only the job outputs comparison' },
  generate: { type: 'number', default: 0, min: 0, help: 'only write a file of this many students and print its path' },
});

/** N random valid students (seeded: the same file every run). */
function generate(students: number): Promise<string> {
  return writeRandomFile(`${ROOT}.bench-tmp/bulk-${students}.csv`, { students, seed: 20260701 });
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function setupFor(root: string): ChildSetup {
  const nodeFlags =
    values['node-flags'] !== '' ? values['node-flags'].split(/\s+/).filter(Boolean) : startScriptFlags(root);
  const setup = { root, dist: !values.src, nodeFlags };
  if (setup.dist && !values['no-build']) {
    console.log(`building ${root} (npm run build; --no-build to skip)`);
    execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (setup.dist && !existsSync(`${root}dist/src/server.js`)) throw new Error(`${root}: no dist/ (npm run build)`);
  return setup;
}

function uploadLine(name: string, run: UploadRun, passSeconds: number, students: number): string {
  return (
    `${name.padEnd(26)} ${run.seconds.toFixed(2).padStart(7)} s  ${fmt(students / run.seconds).padStart(9)} students/s  ` +
    `ratio ${(passSeconds / run.seconds).toFixed(2)}  peak RSS ${fmt(run.peakMb)} MB\n` +
    `${''.padEnd(26)} server CPU ${cpuText(run.cpu)}, client ${run.clientCpu.toFixed(1)} s`
  );
}

interface Throughput {
  runs: UploadRun[];
  /** Pass-through seconds ÷ endpoint seconds, per round. */
  ratios: number[];
}

async function throughput(setups: [string, ChildSetup][], n: number): Promise<Map<string, Throughput>> {
  const path = await generate(n);
  console.log(`file: ${fmt(n)} random valid students, ${(statSync(path).size / 1e6).toFixed(1)} MB (${path})`);
  const runs = new Map<string, UploadRun[]>(setups.map(([name]) => [name, []]));
  const ratios = new Map<string, number[]>(setups.map(([name]) => [name, []]));
  for (let round = 1; round <= values.rounds; round++) {
    console.log(`\nround ${round}`);
    const pass = await passThrough(path);
    console.log(
      `${'pass-through (csv-parse →'.padEnd(26)} ${pass.seconds.toFixed(2).padStart(7)} s  ` +
        `${fmt(n / pass.seconds).padStart(9)} students/s  (csv-stringify, in this process; CPU ${pass.cpuSeconds.toFixed(1)} s)`,
    );
    for (const [name, setup] of setups) {
      const run = await endpointRun(path, setup);
      runs.get(name)!.push(run);
      ratios.get(name)!.push(pass.seconds / run.seconds);
      console.log(uploadLine(`POST bulk (${name})`, run, pass.seconds, n));
      if (values.cli) {
        const c = await cliRun(path, setup);
        console.log(
          `${`sor bulk (${name})`.padEnd(26)} ${c.seconds.toFixed(2).padStart(7)} s  ratio ${(pass.seconds / c.seconds).toFixed(2)}  ` +
            `peak RSS ${fmt(c.peakMb)} MB; CPU ${cpuText(c.cpu)}`,
        );
      }
    }
    if (values['in-process']) {
      const inl = await inProcess(path, 'inline');
      const pool = await inProcess(path, 'pool');
      console.log(
        `in this process: inline ${inl.seconds.toFixed(2)} s (CPU ${inl.cpuSeconds.toFixed(1)} s), pool ` +
          `${pool.seconds.toFixed(2)} s (CPU ${pool.cpuSeconds.toFixed(1)} s): pool ${(inl.seconds / pool.seconds).toFixed(2)}× inline`,
      );
    }
  }
  for (const [name] of setups) {
    const rs = runs.get(name)!;
    console.log(
      `\n${name}: ${fmt(n)} students in ${median(rs.map((r) => r.seconds)).toFixed(2)} s (median of ${rs.length}), ` +
        `${median(ratios.get(name)!).toFixed(2)}× the pass-through's speed, peak RSS ${fmt(median(rs.map((r) => r.peakMb)))} MB`,
    );
  }
  return new Map(setups.map(([name]) => [name, { runs: runs.get(name)!, ratios: ratios.get(name)! }]));
}

async function memory(setups: [string, ChildSetup][], n: number): Promise<Map<string, [number, number]>> {
  const path = await generate(n);
  const peaks = new Map<string, [number, number]>();
  console.log(`\nmemory: fresh servers, ${fmt(n)} students (${(statSync(path).size / 1e6).toFixed(1)} MB)`);
  for (const [name, setup] of setups) {
    const one = await endpointRun(path, setup);
    let many = one;
    if (values.concurrent > 1) many = await endpointRun(path, setup, values.concurrent);
    peaks.set(name, [one.peakMb, many.peakMb]);
    console.log(
      `${name.padEnd(10)} one upload: ${one.seconds.toFixed(2)} s, peak RSS ${fmt(one.peakMb)} MB` +
        (values.concurrent > 1
          ? `; ${values.concurrent} at once: ${many.seconds.toFixed(2)} s, ${values.concurrent - many.busy} computed, ` +
            `${many.busy} answered 503, peak RSS ${fmt(many.peakMb)} MB`
          : ''),
    );
  }
  return peaks;
}

async function benchmark(): Promise<void> {
  if (values.generate > 0) {
    console.log(await generate(values.generate));
    return;
  }
  const n = values.students;
  if (values['only-shadow']) {
    await shadowCheck(await generate(n), n, Math.max(1, values['shadow-rounds']));
    return;
  }
  if (values['only-job']) {
    await jobOutputs(await generate(n), n, values['job-rounds']);
    return;
  }
  console.log(
    `bench:bulk — ${cpus()[0]?.model ?? 'cpu'}, ${availableParallelism()} cores, Node ${process.version}, ` +
      `BULK_THREADS=${process.env.BULK_THREADS ?? availableParallelism()}`,
  );
  const setups: [string, ChildSetup][] = [['this', setupFor(ROOT)]];
  if (values.baseline !== '') setups.push(['baseline', setupFor(`${resolve(values.baseline)}/`)]);
  const first = setups[0]![1];
  console.log(
    `server from ${first.dist ? 'dist/ (the build, as npm start)' : 'src/'}, node ${first.nodeFlags.join(' ') || '(no flags)'}`,
  );
  const results = await throughput(setups, n);
  const peaks = values['rss-students'] > 0 ? await memory(setups, values['rss-students']) : new Map();
  if (values['shadow-rounds'] > 0) await shadowCheck(await generate(n), n, values['shadow-rounds']);

  const mine = results.get('this')!.runs;
  const seconds = median(mine.map((r) => r.seconds));
  const ratio = median(results.get('this')!.ratios);
  const peak = median(mine.map((r) => r.peakMb));
  const tick = (ok: boolean) => (ok ? '✓' : '✗');
  console.log(`\ntargets (2 cores; this checkout):`);
  if (n === 1_000_000)
    console.log(
      `  1,000,000 students ≤ ${TARGETS.seconds1M} s: ${seconds.toFixed(2)} s ${tick(seconds <= TARGETS.seconds1M)}`,
    );
  console.log(
    `  ≥ ${TARGETS.passThroughRatio}× the pass-through's speed: ${ratio.toFixed(2)}× ${tick(ratio >= TARGETS.passThroughRatio)}`,
  );
  console.log(`  peak RSS ≤ ${TARGETS.peakMb} MB at ${fmt(n)}: ${fmt(peak)} MB ${tick(peak <= TARGETS.peakMb)}`);
  const p = peaks.get('this');
  if (p !== undefined) {
    console.log(
      `  peak RSS ≤ ${TARGETS.peakMb} MB at ${fmt(values['rss-students'])}: ${fmt(p[0])} MB ${tick(p[0] <= TARGETS.peakMb)}`,
    );
    if (values.concurrent > 1) {
      console.log(
        `  ${values.concurrent} uploads at once ≤ ${TARGETS.concurrentPeakMb} MB: ${fmt(p[1])} MB ${tick(p[1] <= TARGETS.concurrentPeakMb)}`,
      );
    }
  }
}

await benchmark();
