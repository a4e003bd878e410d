/**
 * The in-process measurements of bench:bulk: the csv-parse → csv-stringify pass-through (the floor any CSV service
 * pays, the endpoint's baseline), the pipeline on the inline runner and on the piscina pool in this process, and
 * the shadow check's cost (the same students with and without sis_* columns, in alternating rounds).
 */
import { createReadStream, createWriteStream, existsSync, rmSync, statSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { writeShadowFile } from './shadow-file.ts';

export interface Timing {
  seconds: number;
  /** CPU time of this process (all its threads) over the run. */
  cpuSeconds: number;
}

const devNull = () =>
  new Writable({
    write(_c, _e, cb) {
      cb();
    },
  });

/**
 * csv-parse → csv-stringify of the raw file into a sink that discards it, in this process: every record parsed
 * into cells and written back as CSV, nothing computed, no HTTP. The endpoint must beat it with its reading,
 * checking, computing, ten times as many output bytes and both ends of the HTTP transfer.
 */
export async function passThrough(path: string): Promise<Timing> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  await pipeline(createReadStream(path, { highWaterMark: 256 * 1024 }), parse({ bom: true }), stringify(), devNull());
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - t) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** Runs the pipeline in this process on the given runner kind (output discarded, or written to `outPath`). */
export async function inProcess(path: string, kind: 'inline' | 'pool', outPath?: string): Promise<Timing> {
  const { runBulk } = await import('../../src/bulk/pipeline.ts');
  const { createInlineRunner } = await import('../../src/bulk/runners/inline.ts');
  const { createPoolRunner } = await import('../../src/bulk/runners/pool.ts');
  const { loadConfig } = await import('../../src/config.ts');
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

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The shadow check's cost: the same students with and without sis_* columns, alternating rounds per runner. */
export async function shadowCheck(plain: string, n: number, rounds: number): Promise<void> {
  const withSis = plain.replace(/\.csv$/, '-sis.csv');
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
      cpu.push(off.cpuSeconds / on.cpuSeconds);
      console.log(
        `  ${kind.padEnd(6)} round ${round}: check off ${fmt(n / off.seconds).padStart(7)} students/s ` +
          `(${fmt(n / off.cpuSeconds)} per CPU-second), check on ${fmt(n / on.seconds).padStart(7)} students/s ` +
          `(${fmt(n / on.cpuSeconds)} per CPU-second): ratio ${wall.at(-1)!.toFixed(2)} wall, ` +
          `${cpu.at(-1)!.toFixed(2)} CPU`,
      );
    }
    console.log(
      `  ${kind.padEnd(6)} median ratio ${median(wall).toFixed(2)} wall-clock, ${median(cpu).toFixed(2)} CPU time ` +
        '(target ≥ 0.8; on a busy machine the CPU-time ratio is the steadier figure)',
    );
  }
}
