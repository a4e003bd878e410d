/**
 * The usage texts of `sor bulk --help`, `sor jobs --help`, `sor calculate --help` and `sor mcp --help`, and the
 * version of `sor --version`.
 */
import { readFileSync } from 'node:fs';
import { EXIT_STATUS_TEXT } from './exit-codes.ts';
import { POLICY_USAGE } from './policy-options.ts';

/** The options that say how a file is written, as sor bulk and sor jobs submit take them. */
const DIALECT_USAGE = `  --encoding CHARSET     the input's charset: utf-8 (default), windows-1252, iso-8859-1, utf-16 (with a BOM),
                         utf-16le, utf-16be; the output is always UTF-8
  --delimiter NAME       the input's delimiter: comma (default), semicolon, tab
  --keep-extra-columns   echo columns that are not in the layout instead of refusing the file
  --bom                  start the CSV output with a UTF-8 byte order mark (Excel then reads the accents right)
  --output-delimiter NAME  the CSV output's delimiter: comma, semicolon, tab (default: the input's, so a
                         semicolon file is answered in semicolons)
`;

export const BULK_USAGE = `Usage: sor bulk IN.csv [-o OUT] [--format csv|ndjson] [--threads N] [--sort] [--server URL [--token T]]
                [--encoding CHARSET] [--delimiter comma|semicolon|tab] [--keep-extra-columns] [--bom]
                [--output-delimiter comma|semicolon|tab]
                [--policy OPTION=VALUE ...]

Calculates every student of a bulk CSV file (layout: docs/csv-layout.md).
IN or OUT "-" means stdin or stdout (OUT defaults to stdout).

  -o OUT                 write the output there (a temporary file renamed at the end)
  --format csv|ndjson    csv (default): every input row with its results; ndjson: one BulkResult per student
  --threads N            worker threads for large files (default: BULK_THREADS, the number of cores)
  --sort                 put each student's rows together first (a file sorted by term): students in the order
                         of their first row, their rows in file order; messages name the file's own lines
  --server URL           send the file to a running service (its async job API, gzip both ways) and follow its
                         progress there; a path in the URL is kept (https://host/sor/ -> https://host/sor/v1/jobs)
  --token T              with --server: the access token (default: SOR_TOKEN), sent as Authorization: Bearer
${DIALECT_USAGE}${POLICY_USAGE}                         with --server: sent as policy.OPTION=VALUE, over the service's SOR_POLICY
  -h, --help             this text

Progress (stderr) counts students finished: 100% when the last student is done.

${EXIT_STATUS_TEXT}`;

export const JOBS_USAGE = `Usage: sor jobs submit FILE [--wait] [--out FILE] [--callback URL] [--format csv|ndjson]
                       [--encoding …] [--delimiter …] [--keep-extra-columns] [--bom] [--output-delimiter …]
                       [--policy OPTION=VALUE ...]
       sor jobs status ID [--json]
       sor jobs download ID [--out FILE] [--errors-only] [--format csv|ndjson]
       sor jobs cancel ID
       (each with --server URL [--token T])

A running service's async jobs (docs/api.md, "Async jobs"): a file submitted as a job runs on the service while
this command (or the terminal) is gone; its results are kept until the job expires.

  submit FILE            send the file (gzip) as a job; prints its id on stdout (ID=$(sor jobs submit f.csv))
    --wait               follow the job until it ends, drawing the students finished on stderr
    --out FILE           also download its result there when it completes (implies --wait; "-" for stdout)
    --callback URL       the service POSTs a signed event there when the job ends (docs/webhooks.md)
    --format csv|ndjson  the result's format (default csv)
  status ID              the job's status, progress, counts and grouped errors (--json: the job resource)
  download ID            the completed job's result on stdout, or --out FILE (a temporary file renamed at the end)
    --errors-only        the CSV header and the error rows only
    --format csv|ndjson  another format than the job's own
  cancel ID              cancel a queued or running job

  --server URL           the service (default: SOR_SERVER); a path in it is kept (https://host/sor/)
  --token T              its access token (default: SOR_TOKEN), sent as Authorization: Bearer
${DIALECT_USAGE}${POLICY_USAGE}  -h, --help             this text

${EXIT_STATUS_TEXT}`;

export const CALCULATE_USAGE = `Usage: sor calculate REQUEST.json [--policy OPTION=VALUE ...]

Calculates one student from a CalculationRequest JSON file ("-" for stdin) and prints the CalculationResult.

${POLICY_USAGE}                         the request's own "policy" overrides these option by option
  -h, --help             this text

Exit status: 0 calculated, 2 the request is invalid (its error envelope is printed), 1 failure.
`;

export const MCP_USAGE = `Usage: sor mcp

Serves the Model Context Protocol on stdin and stdout for an AI assistant that starts it: the calculation tools
and the reference resources of docs/mcp.md. The log goes to stderr (LOG_LEVEL); SOR_POLICY is the default school
policy, as for the API. It stops when stdin ends.

  -h, --help             this text
`;

/** The package's version (package.json, two folders up from src/cli and from dist/src/cli alike). */
export function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'sor-loan-limits' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not there: try the next place
    }
  }
  return 'unknown';
}
