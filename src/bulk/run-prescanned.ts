/**
 * runBulk for an input read from a file (a fs.ReadStream: a spooled job, a CLI file): the file is prescanned
 * first (src/bulk/prescan.ts; read twice) so the students whose rows are not contiguous are errors on every row,
 * their first group included. Any other input, or options that already carry `nonContiguous`, go to runBulk as
 * they are. File-level problems (not UTF-8, header, limits) are left to runBulk, which reports them as before.
 */
import { createReadStream, ReadStream } from 'node:fs';
import { runBulk, type BulkSummary, type RunBulkOptions } from './pipeline.ts';
import { prescanStream } from './prescan.ts';

export async function runBulkPrescanned(options: RunBulkOptions): Promise<BulkSummary> {
  const { input } = options;
  if (options.nonContiguous !== undefined || !(input instanceof ReadStream) || typeof input.path !== 'string') {
    return runBulk(options);
  }
  const scan = await prescanStream(createReadStream(input.path, { highWaterMark: 256 * 1024 }), {
    maxRowChars: options.config.BULK_MAX_ROW_CHARS,
    maxCellChars: options.config.BULK_MAX_CELL_CHARS,
  });
  return runBulk({ ...options, nonContiguous: scan.nonContiguous });
}
