/**
 * npm run bench:bulk-cpu [-- --students 20000] [--rounds 5] [--baseline DIR]
 *
 * CPU cost per student of the bulk engine, measured in CPU time (not wall-clock), so that it holds on a machine
 * that is busy with other work. Each checkout (this one, and with --baseline another checkout of this repository,
 * e.g. a worktree of the commit before a change: `git worktree add .scratch/before HEAD~1`) gets its own worker
 * thread with the pool threads' heap limits, which measures, on the same seeded random file:
 *
 *   prescan   the upload check (src/bulk/prescan.ts) over the file: what the API's main thread does while the file
 *             arrives;
 *   main      runBulk with a runner that hands back each chunk's outcome computed beforehand, output discarded:
 *             the pipeline's own thread (decode, read, group, encode the payloads, schedule, write);
 *   calculate calculate() alone, on every student of the file (validated once beforehand);
 *   chunks    processChunkPayload alone over the file's payloads (captured once), output as UTF-8 bytes into a
 *             recycled buffer: what a pool thread does per chunk (--payload string: what a queue worker does).
 *
 * For each: the thread's own CPU (process.threadCpuUsage) and the whole process's (process.cpuUsage, which adds
 * V8's garbage-collection helper threads; this thread only waits), in µs per student. Rounds alternate between the
 * checkouts (A B A B …) so both see the same machine; medians are printed with the ratio baseline ÷ this.
 */
import { availableParallelism, cpus } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { benchArgs } from './support/args.ts';
import { writeRandomFile } from './support/random-file.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const args = benchArgs('npm run bench:bulk-cpu --', {
  students: { type: 'number', default: 20_000, help: 'students in the seeded random file' },
  rounds: { type: 'number', default: 5, help: 'measured rounds per checkout (after one warm-up round)' },
  baseline: { type: 'string', default: '', help: 'another checkout of this repository to compare with' },
  young: {
    type: 'string',
    default: '32',
    help: "the thread's young generation in MB (the pool threads' maxYoungGenerationSizeMb); a list (8,32) compares them",
  },
  phases: { type: 'string', default: 'prescan,main,calculate,chunks', help: 'which measurements, comma-separated' },
  payload: {
    type: 'string',
    default: 'bytes',
    help: "chunks: the payload as 'bytes' (a pool thread's, where the tree reads them) or as a 'string' (a queue worker's)",
  },
});

interface PhaseResult {
  thread: number;
  process: number;
}

/** The worker's code: imports one checkout's bulk engine and runs the phases on request. */
const WORKER = `
import { parentPort, workerData } from 'node:worker_threads';
import { createReadStream } from 'node:fs';
import { Writable } from 'node:stream';
const { root, file, payload } = workerData;
const { runBulk } = await import(root + 'src/bulk/pipeline.ts');
const { processChunkPayload } = await import(root + 'src/bulk/process-chunk.ts');
const { Prescan } = await import(root + 'src/bulk/prescan.ts');
const { loadConfig } = await import(root + 'src/config.ts');
const { decodePayload } = await import(root + 'src/bulk/chunk-payload.ts');
const { readHeader, validateStudentRows } = await import(root + 'src/bulk/csv-layout.ts');
const { calculate } = await import(root + 'src/domain/calculate.ts');
const config = loadConfig({});
const sink = () => new Writable({ write(_c, _e, cb) { cb(); } });
const input = () => createReadStream(file, { highWaterMark: 64 * 1024 });
const payloads = [];
const outcomes = [];
// A tree whose chunks read their payload's bytes (payload-reader.ts) gets them as a pool thread does; an older
// tree gets the payload string, as its pool threads decoded it.
const readsBytes =
  payload === 'bytes' && (await import(root + 'src/bulk/payload-reader.ts').then(() => true, () => false));
await runBulk({
  input: input(), output: sink(), format: 'csv', config,
  runner: {
    kind: 'pool',
    async run(task) {
      payloads.push(task.payload);
      const out = processChunkPayload(task.payload, { bytes: true });
      outcomes.push(out);
      return { index: task.index, ...out };
    },
    async close() {},
  },
});
let spare;
const inputs = [];
for (const p of payloads) {
  const chunk = decodePayload(p);
  const layout = readHeader(chunk.h);
  for (const s of chunk.s) {
    const v = validateStudentRows(s.c, s.l, layout);
    if (v.ok) inputs.push(v.input);
  }
}
const chunkInputs = readsBytes ? payloads.map((p) => new Uint8Array(Buffer.from(p, 'utf8'))) : payloads;
const phases = {
  async calculate() {
    for (const input of inputs) calculate(input);
  },
  async prescan() {
    const scan = new Prescan({});
    for await (const chunk of input()) scan.push(chunk);
    if (scan.end().problem !== undefined) throw new Error('prescan: the file has a problem');
  },
  async main() {
    // The pipeline's thread alone: every chunk's outcome is the one computed before, handed back at once.
    const replay = { kind: 'pool', async run(task) { return { index: task.index, ...outcomes[task.index] }; }, async close() {} };
    await runBulk({ input: input(), output: sink(), format: 'csv', config, runner: replay });
  },
  async chunks() {
    for (const p of chunkInputs) {
      const out = processChunkPayload(p, { bytes: true, buffer: spare });
      spare = out.bytes.buffer;
    }
  },
};
parentPort.on('message', async (phase) => {
  const t = process.threadCpuUsage();
  const p = process.cpuUsage();
  await phases[phase]();
  const tu = process.threadCpuUsage(t);
  const pu = process.cpuUsage(p);
  parentPort.postMessage({ thread: (tu.user + tu.system) / 1e3, process: (pu.user + pu.system) / 1e3 });
});
parentPort.postMessage('ready');
`;

function startTree(root: string, file: string, youngMb: number): Promise<Worker> {
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER)}`), {
    workerData: { root: pathToFileURL(root).href.replace(/\/?$/, '/'), file, payload: args.payload },
    // The pool threads' limits (src/bulk/runners/pool.ts DEFAULT_THREAD_LIMITS): the same garbage collection.
    resourceLimits: { maxYoungGenerationSizeMb: youngMb, maxOldGenerationSizeMb: 512 },
  });
  return new Promise((res, rej) => {
    worker.once('message', () => res(worker));
    worker.once('error', rej);
  });
}

function runPhase(worker: Worker, phase: string): Promise<PhaseResult> {
  return new Promise((res, rej) => {
    worker.once('message', res);
    worker.once('error', rej);
    worker.postMessage(phase);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const n = args.students;
  const file = await writeRandomFile(`${ROOT}.bench-tmp/bulk-${n}.csv`, { students: n, seed: 20260701 });
  const youngs = args.young.split(',').map(Number);
  const trees: [string, string, number][] = youngs.map((y) => [youngs.length > 1 ? `young ${y} MB` : 'this', ROOT, y]);
  if (args.baseline !== '') trees.push(['baseline', resolve(args.baseline), youngs[0]!]);
  console.log(
    `bench:bulk-cpu — ${cpus()[0]?.model ?? 'cpu'}, ${availableParallelism()} cores, Node ${process.version}; ` +
      `${n.toLocaleString('en-US')} random students; CPU µs per student (thread / process incl. GC helpers)`,
  );
  const workers = await Promise.all(trees.map(([, root, young]) => startTree(root, file, young)));
  const phases = args.phases.split(',').filter(Boolean);
  const results = new Map<string, PhaseResult[]>();
  for (let round = 0; round <= args.rounds; round++) {
    for (const phase of phases) {
      const line: string[] = [];
      for (let t = 0; t < trees.length; t++) {
        const r = await runPhase(workers[t]!, phase);
        const per = { thread: (r.thread * 1000) / n, process: (r.process * 1000) / n };
        line.push(`${trees[t]![0]} ${per.thread.toFixed(1)} / ${per.process.toFixed(1)}`);
        if (round === 0) continue; // warm-up
        const key = `${phase}:${t}`;
        results.set(key, [...(results.get(key) ?? []), per]);
      }
      console.log(`${round === 0 ? 'warm-up' : `round ${round}`} ${phase.padEnd(8)} ${line.join('   ')}`);
    }
  }
  console.log('\nmedians, µs per student (thread / process):');
  for (const phase of phases) {
    const m = trees.map((_, t) => {
      const rs = results.get(`${phase}:${t}`)!;
      return { thread: median(rs.map((r) => r.thread)), process: median(rs.map((r) => r.process)) };
    });
    const ratio =
      m.length > 1
        ? `   baseline ÷ this: ${(m[1]!.thread / m[0]!.thread).toFixed(2)} thread, ` +
          `${(m[1]!.process / m[0]!.process).toFixed(2)} process`
        : '';
    console.log(
      `  ${phase.padEnd(8)} ${m.map((x, t) => `${trees[t]![0]} ${x.thread.toFixed(1)} / ${x.process.toFixed(1)}`).join('   ')}${ratio}`,
    );
  }
  await Promise.all(workers.map((w) => w.terminate()));
}

await main();
