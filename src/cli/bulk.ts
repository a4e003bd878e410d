/**
 * `sor bulk IN.csv`: locally through the HTTP endpoint's pipeline and runners (inline up to BULK_SYNC_MAX_ROWS
 * rows, else the piscina pool), or with --server through a running service's job API (remote.ts). The input is
 * prescanned first; stdin is spooled to SPOOL_DIR. OUT is written to a temporary file renamed at the end.
 */
import { createReadStream, createWriteStream, renameSync, statSync, unlinkSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { PIPELINE_READ_BYTES, runBulk, type BulkFormat } from '../bulk/pipeline.ts';
import { createInlineRunner } from '../bulk/runners/inline.ts';
import { createPoolRunner, type PoolRunner } from '../bulk/runners/pool.ts';
import type { ChunkRunner } from '../bulk/runner.ts';
import { Prescan, prescanStream, type PrescanResult } from '../bulk/prescan.ts';
import { createSpoolFile, ensureSpoolDir, removeSpoolFile } from '../jobs/spool.ts';
import { remoteBulkCommand } from './remote.ts';
import { EXIT_FAILURE, EXIT_OK, EXIT_ROW_ERRORS } from './exit-codes.ts';
import { ProgressReporter, formatInt } from './progress.ts';
import { formatCheckSummary, hasMismatch } from './check-summary.ts';
import { UsageError, describeError, type CliIo } from './io.ts';
import { DIALECT_OPTIONS, dialectFromArgs } from './dialect-options.ts';
import { BULK_USAGE } from './usage.ts';
import { POLICY_OPTION, policyFromArgs } from './policy-options.ts';
import { resolvePolicy } from '../domain/policy.ts';
import type { CsvDialect } from '../bulk/csv-dialect.ts';

interface CheckedInput {
  input: Readable;
  size: number;
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

/** Opens the input after checking it (a file is read twice; stdin is spooled first). */
async function openInput(path: string, io: CliIo, config: Config, dialect: CsvDialect): Promise<CheckedInput> {
  let source = path;
  let scan: PrescanResult;
  let cleanup = async () => {};
  if (path === '-') {
    const spooled = await spoolStdin(io.stdin, config, dialect);
    source = spooled.path;
    scan = spooled.scan;
    cleanup = () => removeSpoolFile(spooled.path);
  } else {
    const stat = statSync(path); // throws ENOENT with the path in the message
    if (!stat.isFile()) throw new UsageError(`${path} is not a file`);
    scan = await prescanStream(createReadStream(path, { highWaterMark: 256 * 1024 }), {
      maxRowChars: config.BULK_MAX_ROW_CHARS,
      maxCellChars: config.BULK_MAX_CELL_CHARS,
      dialect,
    });
  }
  if (scan.problem !== undefined) {
    await cleanup();
    throw scan.problem;
  }
  return {
    input: createReadStream(source, { highWaterMark: PIPELINE_READ_BYTES }),
    size: scan.bytes,
    scan,
    cleanup,
  };
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
    });
  }
  const config = loadConfig(io.env);
  const threads = parseThreads(values.threads, config);
  const policy = resolvePolicy(policyChoices, config.SOR_POLICY); // --policy over SOR_POLICY
  const { input, size, scan, cleanup } = await openInput(positionals[0]!, io, config, dialect);

  const outPath = values.output ?? '-';
  const tmpPath = outPath === '-' ? undefined : `${outPath}.partial-${process.pid}`;
  const output: Writable = tmpPath === undefined ? io.stdout : createWriteStream(tmpPath);

  const small = createInlineRunner();
  const large = lazyPool(threads);
  const progress = new ProgressReporter(io.stderr, size);
  const abort = new AbortController();
  const onSignal = () => abort.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const onOutputError = (err: Error) => abort.abort(err);
  output.on('error', onOutputError);
  const started = performance.now();
  try {
    const summary = await runBulk({
      input,
      output,
      format: format as BulkFormat,
      runner: { small, large },
      config,
      nonContiguous: scan.nonContiguous,
      dialect,
      policy,
      signal: abort.signal,
      endOutput: tmpPath !== undefined,
      recycleOutput: true, // a file or stdout is done with a chunk once its write callback fires
      onProgress: (p) => progress.update(p),
      onChunkError: (err, index) =>
        io.stderr.write(`sor: chunk ${index} could not be run (${describeError(err)}); its rows are error rows\n`),
    });
    progress.finish();
    if (tmpPath !== undefined) renameSync(tmpPath, outPath);
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
    io.stderr.write(`sor: error: ${describeError(abort.signal.aborted ? abort.signal.reason : err)}\n`);
    return EXIT_FAILURE;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    output.off('error', onOutputError);
    input.destroy();
    await cleanup();
    await large.close();
    await small.close();
  }
}
