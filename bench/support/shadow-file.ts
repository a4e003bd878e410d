/**
 * The shadow-check benchmark's file: the random bulk file with the school's figures of every student added as
 * sis_* columns (sis_reduced_annual_pct, sis_sub, sis_unsub, sis_grad_plus). The figures are the service's own
 * results (read from the plain file's output), so a student matches, except a seeded `mismatchShare` of them whose
 * first-term subsidized amount is one dollar higher (no reading explains that: every reason is tried, the check's
 * most expensive outcome).
 */
import { createReadStream, createWriteStream, existsSync, renameSync } from 'node:fs';
import { once } from 'node:events';
import { parse } from 'csv-parse';
import { mulberry32 } from '../../test/support/prng.ts';

/**
 * Writes `target` from `plainPath` (the input) and `outputPath` (the pipeline's CSV output of that input, same
 * rows in the same order) unless it exists. Returns the number of students made to mismatch.
 */
export async function writeShadowFile(
  plainPath: string,
  outputPath: string,
  target: string,
  mismatchShare = 0.1,
  seed = 20261123,
): Promise<void> {
  if (existsSync(target)) return;
  const r = mulberry32(seed);
  const out = createWriteStream(`${target}.tmp`);
  const input = createReadStream(plainPath, { highWaterMark: 1 << 20 }).pipe(parse({ relax_column_count: false }));
  const results = createReadStream(outputPath, { highWaterMark: 1 << 20 }).pipe(parse({ columns: true }));
  const resultRows = results[Symbol.asyncIterator]();
  let header = true;
  let previousId = '';
  let mismatch = false;
  let buffer = '';
  const cell = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  for await (const cells of input as AsyncIterable<string[]>) {
    if (header) {
      buffer += `${cells.join(',')},sis_reduced_annual_pct,sis_sub,sis_unsub,sis_grad_plus\n`;
      header = false;
      continue;
    }
    const next = await resultRows.next();
    const res = next.value as Record<string, string>;
    const id = cells[0]!;
    const first = id !== previousId;
    if (first) mismatch = r() < mismatchShare;
    previousId = id;
    const sub = Number(res.equal_sub) + (first && mismatch ? 1 : 0);
    buffer +=
      `${cells.map(cell).join(',')},${res.reduced_annual_pct},${sub},${res.equal_unsub},` + `${res.equal_grad_plus}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
  renameSync(`${target}.tmp`, target);
}
