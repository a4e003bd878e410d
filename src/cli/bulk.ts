/**
 * `sor bulk IN.csv`: locally through the HTTP endpoint's pipeline and runners (inline up to BULK_SYNC_MAX_ROWS
 * rows, else the piscina pool), or with --server through a running service's job API (remote.ts). The input is
 * prescanned first (stdin is spooled to SPOOL_DIR); with --sort a file whose students' rows are apart is sorted by
 * student first (sort-by-student.ts). OUT is written to a temporary file renamed at the end. Progress counts
 * students finished, against the students the prescan counted.
 */
import { createReadStream, createWriteStream, renameSync, statSync, unlinkSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { PIPELINE_READ_BYTES, runBulk, type BulkFormat, type RunnerChoice } from '../bulk/pipeline.ts';
import { createInlineRunner } from '../bulk/runners/inline.ts';
import { createPoolRunner, type PoolRunner } from '../bulk/runners/pool.ts';
import type { ChunkRunner } from '../bulk/runner.ts';
import { Prescan, prescanStream, type PrescanResult } from '../bulk/prescan.ts';
import { createSpoolFile, ensureSpoolDir, removeSpoolFile } from '../jobs/spool.ts';
import { remoteBulkCommand } from './remote.ts';
import { EXIT_OK, EXIT_ROW_ERRORS } from './exit-codes.ts';
import { ProgressReporter, formatInt } from './progress.ts';
import { formatCheckSummary, hasMismatch } from './check-summary.ts';
import { CliFailure, UsageError, describeError, exitCodeOf, fileFailure, type CliIo } from './io.ts';
import { DIALECT_OPTIONS, dialectFromArgs } from './dialect-options.ts';
import { BULK_USAGE } from './usage.ts';
import { POLICY_OPTION, policyFromArgs } from './policy-options.ts';
import { resolvePolicy } from '../domain/policy.ts';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import { sortByStudent } from './sort-by-student.ts';

interface CheckedInput {
  path: string;
  scan: PrescanResult;
  /** Removes the spooled copy of stdin, if any. */
  cleanup(): Promise<void>;
}

/** Spools stdin to a private file while prescanning it. */
async function spoolStdin(
  stdin: Readable,
  config: Config,
  dialect: CsvDialect,
): Promise<{ path: string; scan: PrescanResult }> {
  await ensureSpoolDir(config.SPOOL_DIR);
  const file = await createSpoolFile(config.SPOOL_DIR);
  const scan = new Prescan({
    maxRowChars: config.BULK_MAX_ROW_CHARS,
    maxCellChars: config.BULK_MAX_CELL_CHARS,
    dialect,
  });
  try {
    for await (const chunk of stdin) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      scan.push(buf);
      if (scan.failed !== undefined) break;
      await file.handle.write(buf);
    }
  } catch (err) {
    await file.handle.close().catch(() => undefined);
    await removeSpoolFile(file.path);
    throw err;
  }
  await file.handle.close();
  return { path: file.path, scan: scan.end() };
}

/** Checks the input (a file is read twice; stdin is spooled first). A problem other than `allowed` is thrown. */
async function checkInput(
  path: string,
  io: CliIo,
  config: Config,
  dialect: CsvDialect,
  termSortedAllowed: boolean,
): Promise<CheckedInput> {
  let source = path;
  let scan: PrescanResult;
  let cleanup = async () => {};
  if (path === '-') {
    const spooled = await spoolStdin(io.stdin, config, dialect);
    source = spooled.path;
    scan = spooled.scan;
    cleanup = () => removeSpoolFile(spooled.path);
  } else {
    try {
      if (!statSync(path).isFile()) throw new CliFailure(`cannot read ${path}: it is a folder, not a file`);
      scan = await prescanStream(createReadStream(path, { highWaterMark: 256 * 1024 }), {
        maxRowChars: config.BULK_MAX_ROW_CHARS,
        maxCellChars: config.BULK_MAX_CELL_CHARS,
        dialect,
      });
    } catch (err) {
      throw fileFailure(err, 'read', path);
    }
  }
  if (scan.problem !== undefined && !(termSortedAllowed && scan.termSorted)) {
    await cleanup();
    throw scan.problem;
  }
  return { path: source, scan, cleanup };
}

/** The large runner, created only when a file is large enough to need it. */
function lazyPool(threads: number): ChunkRunner & { created(): PoolRunner | undefined } {
  let pool: PoolRunner | undefined;
  return {
    kind: 'pool',
    run: (task) => (pool ??= createPoolRunner({ threads, output: 'bytes' })).run(task),
    close: async () => {
      await pool?.close();
    },
    created: () => pool,
  };
}

function parseThreads(value: string | undefined, config: Config): number {
  if (value === undefined) return config.BULK_THREADS;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) {
    throw new UsageError('--threads must be a whole number from 1 to 256');
  }
  return Number(value);
}

export async function bulkCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      format: { type: 'string', default: 'csv' },
      threads: { type: 'string' },
      server: { type: 'string' },
      token: { type: 'string' },
      sort: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      ...DIALECT_OPTIONS,
      ...POLICY_OPTION,
    },
  });
  if (values.help === true) {
    io.stdout.write(BULK_USAGE);
    return EXIT_OK;
  }
  const dialect = dialectFromArgs(values);
  const policyChoices = policyFromArgs(values.policy);
  if (positionals.length !== 1) throw new UsageError('sor bulk needs exactly one input file (or - for stdin)');
  const format = values.format;
  if (format !== 'csv' && format !== 'ndjson') throw new UsageError('--format must be csv or ndjson');
  if (values.server !== undefined) {
    if (values.sort === true) {
      throw new UsageError('--sort sorts a local file: sort it, or run it locally, without --server');
    }
    // src/cli/remote.ts: POST /v1/jobs, follow the progress, stream the result to OUT.
    return remoteBulkCommand({
      server: values.server,
      inputPath: positionals[0]!,
      outputPath: values.output ?? '-',
      format,
      dialect,
      policy: policyChoices,
      io,
      token: values.token ?? io.env.SOR_TOKEN,
      pollMs: io.hooks?.pollMs,
      progressEveryMs: io.hooks?.progressEveryMs,
    });
  }
  const config = loadConfig(io.env);
  const threads = parseThreads(values.threads, config);
  const policy = resolvePolicy(policyChoices, config.SOR_POLICY); // --policy over SOR_POLICY
  try {
    return await runLocal(positionals[0]!, values.output ?? '-', format, {
      io,
      config,
      threads,
      dialect,
      policy,
      sort: values.sort === true,
    });
  } catch (err) {
    io.stderr.write(`sor: error: ${describeError(err)}\n`);
    return exitCodeOf(err);
  }
}

interface LocalRun {
  io: CliIo;
  config: Config;
  threads: number;
  dialect: CsvDialect;
  policy: ReturnType<typeof resolvePolicy>;
  sort: boolean;
}

/** A local run: check (and sort), compute, write OUT, print the summary; resolves with the exit status. */
async function runLocal(inputPath: string, outPath: string, format: BulkFormat, run: LocalRun): Promise<number> {
  const { io, config } = run;
  const everyMs = io.hooks?.progressEveryMs;
  let { path, scan, cleanup } = await checkInput(inputPath, io, config, run.dialect, run.sort);
  let dialect = run.dialect;
  let lineOf: ((line: number) => number) | undefined;
  if (run.sort && scan.nonContiguous.size > 0) {
    // The students' rows are apart: a sorted copy is computed, its lines mapped back to the file's.
    const reading = new ProgressReporter(io.stderr, undefined, everyMs);
    const sortStarted = performance.now();
    let sorted;
    try {
      sorted = await sortByStudent({
        path,
        dialect,
        spoolDir: config.SPOOL_DIR,
        maxRowChars: config.BULK_MAX_ROW_CHARS,
        maxCellChars: config.BULK_MAX_CELL_CHARS,
        onProgress: (p) =>
          reading.phase(
            p.phase === 'read'
              ? `sorting by student: ${formatInt(p.rows)} rows read`
              : `sorting by student: ${formatInt(p.rows)} of ${formatInt(scan.rows)} rows in order`,
            p.phase === 'read' ? p.bytes / Math.max(1, p.totalBytes) : p.rows / Math.max(1, scan.rows),
          ),
      });
    } finally {
      reading.finish();
      await cleanup();
    }
    const copy = sorted;
    io.stderr.write(
      `sor: sorted ${formatInt(copy.rows)} rows by student in ${((performance.now() - sortStarted) / 1000).toFixed(1)} s ` +
        `(${formatInt(scan.nonContiguous.size)} students had rows apart)\n`,
    );
    const recheck = await checkInput(copy.path, io, config, copy.dialect, false).catch(async (err: unknown) => {
      await copy.remove();
      throw err;
    });
    ({ path, scan } = recheck);
    cleanup = () => copy.remove();
    dialect = copy.dialect;
    lineOf = copy.lineOf;
  }

  const tmpPath = outPath === '-' ? undefined : `${outPath}.partial-${process.pid}`;
  const output: Writable = tmpPath === undefined ? io.stdout : createWriteStream(tmpPath);
  const input = createReadStream(path, { highWaterMark: PIPELINE_READ_BYTES });
  const injected = io.hooks?.runners;
  const small = injected?.small ?? createInlineRunner();
  const large = injected?.large ?? lazyPool(run.threads);
  const runners: RunnerChoice = { small, large };
  const progress = new ProgressReporter(io.stderr, scan.students, everyMs);
  const abort = new AbortController();
  const onSignal = () => abort.abort(new CliFailure('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const onOutputError = (err: Error) => abort.abort(fileFailure(err, 'write', outPath));
  output.on('error', onOutputError);
  const started = performance.now();
  try {
    const summary = await runBulk({
      input,
      output,
      format,
      runner: runners,
      config,
      nonContiguous: scan.nonContiguous,
      lineOf,
      dialect,
      policy: run.policy,
      signal: abort.signal,
      endOutput: tmpPath !== undefined,
      recycleOutput: true, // a file or stdout is done with a chunk once its write callback fires
      onProgress: (p) => progress.update({ students: p.students, rows: p.rows, errorRows: p.errorRows }),
      onChunkError: (err, index) =>
        io.stderr.write(`sor: chunk ${index} could not be run (${describeError(err)}); its rows are error rows\n`),
    });
    progress.finish();
    if (tmpPath !== undefined) {
      try {
        renameSync(tmpPath, outPath);
      } catch (err) {
        throw fileFailure(err, 'write', outPath);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? summary.students / seconds : 0;
    io.stderr.write(
      `sor: ${formatInt(summary.rows)} rows, ${formatInt(summary.students)} students in ${seconds.toFixed(1)} s ` +
        `(${formatInt(rate)} students/s, ${summary.runner} runner): ` +
        (summary.errorRows === 0
          ? 'all rows ok\n'
          : `${formatInt(summary.errorRows)} error rows (row_status=error; see error_field and error_message)\n`),
    );
    if (summary.checks !== undefined) io.stderr.write(formatCheckSummary(summary.checks));
    return summary.errorRows === 0 && !hasMismatch(summary.checks) ? EXIT_OK : EXIT_ROW_ERRORS;
  } catch (err) {
    progress.finish();
    if (tmpPath !== undefined) {
      output.destroy();
      try {
        unlinkSync(tmpPath);
      } catch {
        // nothing was written
      }
    }
    throw abort.signal.aborted ? abort.signal.reason : err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    output.off('error', onOutputError);
    input.destroy();
    await cleanup();
    if (injected === undefined) {
      await large.close();
      await small.close();
    }
  }
}
