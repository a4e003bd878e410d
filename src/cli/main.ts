#!/usr/bin/env node
/**
 * sor: the command-line door to the same engine (architecture.md "one engine, three doors").
 *
 *   sor bulk IN.csv [-o OUT] [--format csv|ndjson] [--threads N]     (`-` = stdin / stdout)
 *   sor calculate REQUEST.json                                       (`-` = stdin)
 *
 * `bulk` runs the HTTP endpoint's pipeline and runners (inline up to BULK_SYNC_MAX_ROWS rows, else the piscina
 * pool), so the output is byte-identical to POST /v1/calculate/bulk for the same file. Progress goes to stderr:
 * a live bar (rows, students/s, ETA) on a terminal, a plain line every few seconds otherwise. OUT is written to a
 * temporary file and renamed at the end, so a failed run never leaves a file that looks complete.
 *
 * Before computing, the file is checked in one pass (src/bulk/prescan.ts, as the HTTP doors do): bytes that are not
 * UTF-8 or a bad header stop the run (exit 1, the line named), and a student whose rows are not contiguous is an
 * error on every row. A file is read twice; stdin is first spooled to SPOOL_DIR (removed at the end).
 *
 * Exit status: 0 every row ok; 2 some rows are error rows (bulk) or the request is invalid (calculate), with a
 * summary line; 1 the run failed (unreadable input, bad header, bad arguments).
 * Environment: the service's BULK_* variables (src/config.ts) apply; --threads overrides BULK_THREADS.
 */
import {
  createReadStream,
  createWriteStream,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { AppError, errorEnvelope } from '../errors.ts';
import { calculate } from '../domain/calculate.ts';
import { parseCalculationRequest } from '../schema/request.ts';
import { runBulk, type BulkFormat } from '../bulk/pipeline.ts';
import { createInlineRunner } from '../bulk/runners/inline.ts';
import { createPoolRunner, type PoolRunner } from '../bulk/runners/pool.ts';
import type { ChunkRunner } from '../bulk/runner.ts';
import { remoteBulkCommand } from './remote.ts';
import { EXIT_FAILURE, EXIT_OK, EXIT_ROW_ERRORS } from './exit-codes.ts';
import { ProgressReporter, formatInt } from './progress.ts';
import { Prescan, prescanStream, type PrescanResult } from '../bulk/prescan.ts';
import { createSpoolFile, ensureSpoolDir, removeSpoolFile } from '../jobs/spool.ts';

const USAGE = `Usage:
  sor bulk IN.csv [-o OUT] [--format csv|ndjson] [--threads N] [--server URL]
      Calculates every student of a bulk CSV file (layout: README, "Bulk CSV layout").
      --server   send the file to a running service (async job API) and follow its progress there
      IN or OUT "-" means stdin or stdout (OUT defaults to stdout).
      --format   csv (default): every input row with its results; ndjson: one BulkResult per student
      --threads  worker threads for large files (default: BULK_THREADS, the number of cores)
  sor calculate REQUEST.json
      Calculates one student from a CalculationRequest JSON file ("-" for stdin) and prints the result.

Exit status: 0 all rows ok, 2 some rows are errors (or the request is invalid), 1 failure.
`;

/** Where the CLI writes: injectable for tests. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
}

class UsageError extends Error {}

interface CheckedInput {
  input: Readable;
  size: number;
  scan: PrescanResult;
  /** Removes the spooled copy of stdin, if any. */
  cleanup(): Promise<void>;
}

/** Spools stdin to a private file while prescanning it. */
async function spoolStdin(stdin: Readable, config: Config): Promise<{ path: string; scan: PrescanResult }> {
  await ensureSpoolDir(config.SPOOL_DIR);
  const file = await createSpoolFile(config.SPOOL_DIR);
  const scan = new Prescan({ maxRowChars: config.BULK_MAX_ROW_CHARS, maxCellChars: config.BULK_MAX_CELL_CHARS });
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
async function openInput(path: string, io: CliIo, config: Config): Promise<CheckedInput> {
  let source = path;
  let scan: PrescanResult;
  let cleanup = async () => {};
  if (path === '-') {
    const spooled = await spoolStdin(io.stdin, config);
    source = spooled.path;
    scan = spooled.scan;
    cleanup = () => removeSpoolFile(spooled.path);
  } else {
    const stat = statSync(path); // throws ENOENT with the path in the message
    if (!stat.isFile()) throw new UsageError(`${path} is not a file`);
    scan = await prescanStream(createReadStream(path, { highWaterMark: 256 * 1024 }), {
      maxRowChars: config.BULK_MAX_ROW_CHARS,
      maxCellChars: config.BULK_MAX_CELL_CHARS,
    });
  }
  if (scan.problem !== undefined) {
    await cleanup();
    throw scan.problem;
  }
  return {
    input: createReadStream(source, { highWaterMark: 256 * 1024 }),
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

function describeError(err: unknown): string {
  if (err instanceof AppError) {
    const fields = (err.fieldErrors ?? []).map((f) => `\n  ${f.field}: ${f.message}`).join('');
    return `${err.message}${fields}`;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

async function bulkCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      format: { type: 'string', default: 'csv' },
      threads: { type: 'string' },
      server: { type: 'string' },
    },
  });
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
      io,
    });
  }
  const config = loadConfig(io.env);
  const threads = parseThreads(values.threads, config);
  const { input, size, scan, cleanup } = await openInput(positionals[0]!, io, config);

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
    return summary.errorRows === 0 ? EXIT_OK : EXIT_ROW_ERRORS;
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

async function readAll(stream: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

async function calculateCommand(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('sor calculate needs exactly one request file (or - for stdin)');
  const path = positionals[0]!;
  const text = path === '-' ? await readAll(io.stdin) : readFileSync(path, 'utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    io.stderr.write(`sor: error: ${path} is not valid JSON (${(err as Error).message})\n`);
    return EXIT_FAILURE;
  }
  const parsed = parseCalculationRequest(body);
  if (!parsed.ok) {
    const n = parsed.fieldErrors.length;
    const envelope = errorEnvelope(AppError.validation(parsed.fieldErrors));
    io.stdout.write(`${JSON.stringify(envelope, null, 2)}\n`);
    io.stderr.write(`sor: the request is invalid (${n} field error${n === 1 ? '' : 's'})\n`);
    return EXIT_ROW_ERRORS;
  }
  io.stdout.write(`${JSON.stringify(calculate(parsed.value), null, 2)}\n`);
  return EXIT_OK;
}

/** Runs the CLI; resolves with the exit status. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'bulk') return await bulkCommand(rest, io);
    if (command === 'calculate') return await calculateCommand(rest, io);
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      (command === undefined ? io.stderr : io.stdout).write(USAGE);
      return command === undefined ? EXIT_FAILURE : EXIT_OK;
    }
    throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  } catch (err) {
    if (err instanceof UsageError || String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`sor: ${(err as Error).message}\n\n${USAGE}`);
    } else {
      io.stderr.write(`sor: error: ${describeError(err)}\n`);
    }
    return EXIT_FAILURE;
  }
}

/** True when this module is the process's entry point (node src/cli/main.ts, dist/src/cli/main.js, or the `sor` link). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  process.exitCode = await main(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
}
