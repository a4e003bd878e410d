/**
 * What an async job's outputs cost (bench:bulk `--job-rounds`, `--only-job`): the same file through the pipeline
 * on the pool, in this process, in alternating rounds:
 *   - before: what a job wrote until it kept every format: the result in one format (CSV), gzip at zlib's default
 *     level (6);
 *   - now: what a job writes now: the CSV result, the NDJSON result and the errors-only CSV from one run
 *     (runBulk `outputs`), each gzip at RESULT_GZIP_LEVEL (src/jobs/job-run.ts);
 *   - one format at RESULT_GZIP_LEVEL, to tell the cost of the second format from the gain of the level.
 * Compressed bytes are counted and thrown away (the store's appends are not part of the comparison). Prints each
 * round's CPU time (this process and its threads, zlib's included) and the median ratios, with the compressed
 * sizes per byte of upload.
 */
import { createReadStream, statSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, constants } from 'node:zlib';

interface Round {
  seconds: number;
  cpuSeconds: number;
  /** Compressed bytes per output. */
  bytes: number[];
}

function counter(total: number[], i: number): Writable {
  return new Writable({
    write(chunk: Buffer, _e, cb) {
      total[i]! += chunk.length;
      cb();
    },
  });
}

type Mode = 'before' | 'now' | 'one-format';

async function round(path: string, mode: Mode): Promise<Round> {
  const { runBulk } = await import('../../src/bulk/pipeline.ts');
  const { createPoolRunner } = await import('../../src/bulk/runners/pool.ts');
  const { loadConfig } = await import('../../src/config.ts');
  const { RESULT_GZIP_LEVEL } = await import('../../src/jobs/job-run.ts');
  const config = loadConfig({});
  const pool = createPoolRunner({ threads: config.BULK_THREADS, output: 'bytes' });
  await pool.ping(); // threads started before the clock starts
  const level = mode === 'before' ? constants.Z_DEFAULT_COMPRESSION : RESULT_GZIP_LEVEL;
  const parts = mode === 'now' ? 3 : 1;
  const bytes = new Array<number>(parts).fill(0);
  const gzips = bytes.map(() => createGzip({ level }));
  const stored = Promise.all(gzips.map((g, i) => pipeline(g, counter(bytes, i))));
  const t = performance.now();
  const cpu = process.cpuUsage();
  await runBulk({
    input: createReadStream(path, { highWaterMark: 64 * 1024 }),
    output: gzips[0]!,
    ...(mode === 'now' ? { outputs: { csv: gzips[0]!, ndjson: gzips[1]!, errors: gzips[2]! } } : {}),
    format: 'csv',
    runner: pool,
    config,
  });
  await stored;
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  await pool.close();
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, bytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Alternating rounds of the three modes on `path` (`students` students); prints each round and the medians. */
export async function jobOutputs(path: string, students: number, rounds: number): Promise<void> {
  const upload = statSync(path).size;
  console.log(
    `\njob outputs: ${students.toLocaleString('en-US')} students (${(upload / 1e6).toFixed(1)} MB), pool, ` +
      'alternating rounds in this process; CPU time of the process (threads and zlib included)',
  );
  const modes: Mode[] = ['before', 'now', 'one-format'];
  for (const mode of modes) await round(path, mode); // warm-up, not measured
  const cpu: Record<Mode, number[]> = { before: [], now: [], 'one-format': [] };
  let sizes: Record<Mode, number[]> = { before: [], now: [], 'one-format': [] };
  for (let r = 1; r <= rounds; r++) {
    const line: string[] = [];
    for (const mode of modes) {
      const m = await round(path, mode);
      cpu[mode].push(m.cpuSeconds);
      sizes = { ...sizes, [mode]: m.bytes };
      line.push(`${mode} ${m.cpuSeconds.toFixed(2)} CPU-s (${m.seconds.toFixed(2)} s)`);
    }
    console.log(`  round ${r}: ${line.join(', ')}; now ÷ before ${(cpu.now.at(-1)! / cpu.before.at(-1)!).toFixed(2)}`);
  }
  const perUpload = (b: number[]) => b.map((x) => (x / upload).toFixed(3)).join(' + ');
  console.log(
    `  median CPU time: before ${median(cpu.before).toFixed(2)} s, now ${median(cpu.now).toFixed(2)} s ` +
      `(ratio ${(median(cpu.now) / median(cpu.before)).toFixed(2)}), one format at the new level ` +
      `${median(cpu['one-format']).toFixed(2)} s (ratio ${(median(cpu['one-format']) / median(cpu.before)).toFixed(2)})`,
  );
  console.log(
    `  stored bytes per uploaded byte: before ${perUpload(sizes.before)}, now ${perUpload(sizes.now)} ` +
      '(CSV + NDJSON + errors)',
  );
}
