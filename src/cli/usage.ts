/** The usage texts of `sor bulk --help`, `sor calculate --help` and `sor mcp --help`, and the version of `sor --version`. */
import { readFileSync } from 'node:fs';
import { POLICY_USAGE } from './policy-options.ts';

export const BULK_USAGE = `Usage: sor bulk IN.csv [-o OUT] [--format csv|ndjson] [--threads N] [--server URL [--token T]]
                [--encoding CHARSET] [--delimiter comma|semicolon|tab] [--keep-extra-columns] [--bom]
                [--output-delimiter comma|semicolon|tab]
                [--policy OPTION=VALUE ...]

Calculates every student of a bulk CSV file (layout: docs/csv-layout.md).
IN or OUT "-" means stdin or stdout (OUT defaults to stdout).

  -o OUT                 write the output there (a temporary file renamed at the end)
  --format csv|ndjson    csv (default): every input row with its results; ndjson: one BulkResult per student
  --threads N            worker threads for large files (default: BULK_THREADS, the number of cores)
  --server URL           send the file to a running service (its async job API, gzip both ways) and follow its
                         progress there; a path in the URL is kept (https://host/sor/ -> https://host/sor/v1/jobs)
  --token T              with --server: the access token (default: SOR_TOKEN), sent as Authorization: Bearer
  --encoding CHARSET     the input's charset: utf-8 (default), windows-1252, iso-8859-1, utf-16 (with a BOM),
                         utf-16le, utf-16be; the output is always UTF-8
  --delimiter NAME       the input's delimiter: comma (default), semicolon, tab
  --keep-extra-columns   echo columns that are not in the layout instead of refusing the file
  --bom                  start the CSV output with a UTF-8 byte order mark (Excel then reads the accents right)
  --output-delimiter NAME  the CSV output's delimiter: comma, semicolon, tab (default: the input's, so a
                         semicolon file is answered in semicolons)
${POLICY_USAGE}                         with --server: sent as policy.OPTION=VALUE, over the service's SOR_POLICY
  -h, --help             this text

Exit status: 0 all rows ok, 2 some rows are errors, 1 failure.
`;

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
