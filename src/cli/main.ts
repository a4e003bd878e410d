#!/usr/bin/env node
/**
 * sor: the command-line door to the same engine (architecture.md "one engine, three doors").
 *
 *   sor bulk IN.csv [-o OUT] [--format csv|ndjson] [--threads N]     (`-` = stdin / stdout)
 *   sor jobs submit|status|download|cancel …                         (a service's async jobs: src/cli/jobs.ts)
 *   sor calculate REQUEST.json                                       (`-` = stdin)
 *   sor mcp                                                          (the MCP server on stdio: src/mcp/stdio.ts)
 *
 * `bulk` runs the HTTP endpoint's pipeline and runners (inline up to BULK_SYNC_MAX_ROWS rows, else the piscina
 * pool), so the output is byte-identical to POST /v1/calculate/bulk for the same file. Progress goes to stderr:
 * a live bar of students finished (students/s, ETA) on a terminal, a plain line every few seconds otherwise. OUT is
 * written to a temporary file and renamed at the end, so a failed run never leaves a file that looks complete.
 *
 * Before computing, the file is checked in one pass (src/bulk/prescan.ts, as the HTTP doors do): bytes that are not
 * UTF-8 or a bad header stop the run (exit 1, the line named), and a student whose rows are not contiguous is an
 * error on every row. A file is read twice; stdin is first spooled to SPOOL_DIR (removed at the end).
 *
 * Exit status (src/cli/exit-codes.ts): 0 every row ok; 2 some rows are error rows (bulk) or the request is invalid
 * (calculate), with a summary line; 1 the run failed (unreadable input, bad header, bad arguments); 3, 4, 5 a
 * service that did not answer, refused the request, or whose job failed.
 * Environment: the service's BULK_* variables (src/config.ts) apply; --threads overrides BULK_THREADS.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { bulkCommand } from './bulk.ts';
import { calculateCommand } from './calculate.ts';
import { tokenCommand } from './token.ts';
import { EXIT_FAILURE, EXIT_OK, EXIT_STATUS_TEXT } from './exit-codes.ts';
import { UsageError, describeError, exitCodeOf, type CliIo } from './io.ts';
import { jobsCommand } from './jobs.ts';
import { JOBS_USAGE, MCP_USAGE, packageVersion } from './usage.ts';

export type { CliIo } from './io.ts';

const USAGE = `Usage:
  sor bulk IN.csv [-o OUT] [--format csv|ndjson] [--threads N] [--server URL [--token T]] [--policy O=V]
      Calculates every student of a bulk CSV file (layout: docs/csv-layout.md).
      --server   send the file to a running service (async job API) and follow its progress there
      IN or OUT "-" means stdin or stdout (OUT defaults to stdout).
      --format   csv (default): every input row with its results; ndjson: one BulkResult per student
      --threads  worker threads for large files (default: BULK_THREADS, the number of cores)
      --sort     put each student's rows together first (a file sorted by term)
      --encoding, --delimiter, --keep-extra-columns, --bom, --output-delimiter: how the file is written (sor bulk --help)
      --policy OPTION=VALUE  school policy for every student, repeatable (rules.md §10; sor bulk --help)
  sor jobs submit FILE [--wait] [--out FILE] [--callback URL] | status ID | download ID [--errors-only] | cancel ID
      A running service's async jobs (--server URL or SOR_SERVER, --token T or SOR_TOKEN; sor jobs --help).
  sor calculate REQUEST.json [--policy OPTION=VALUE ...]
      Calculates one student from a CalculationRequest JSON file ("-" for stdin) and prints the result.

  sor mcp
      Serves the calculation tools to an AI assistant (Model Context Protocol) on stdin/stdout (docs/mcp.md).

  sor token create --name NAME [--expires 90d|12h|never] [--rate 600/min] | list | revoke ID
      Access tokens of a service with AUTH_MODE=required (docs/security.md, "Access control"); create prints the token once.
      Remote commands (--server) send --token or SOR_TOKEN as Authorization: Bearer.
  sor --version
      Prints the version.

${EXIT_STATUS_TEXT}`;

/** Runs the CLI; resolves with the exit status. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'bulk') return await bulkCommand(rest, io);
    if (command === 'calculate') return await calculateCommand(rest, io);
    if (command === 'token') return await tokenCommand(rest, io);
    if (command === 'jobs') return await jobsCommand(rest, io);
    // Loaded only for this command: the MCP SDK stays out of the other commands' start-up.
    if (command === 'mcp') return await (await import('../mcp/stdio.ts')).mcpCommand(rest, io, MCP_USAGE);
    if (command === '--version' || command === '-v' || command === 'version') {
      io.stdout.write(`sor ${packageVersion()}\n`);
      return EXIT_OK;
    }
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      (command === undefined ? io.stderr : io.stdout).write(USAGE);
      return command === undefined ? EXIT_FAILURE : EXIT_OK;
    }
    throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  } catch (err) {
    if (err instanceof UsageError || String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`sor: ${(err as Error).message}\n\n${command === 'jobs' ? JOBS_USAGE : USAGE}`);
    } else {
      io.stderr.write(`sor: error: ${describeError(err)}\n`);
      return exitCodeOf(err);
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
