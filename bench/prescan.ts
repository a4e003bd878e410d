/**
 * How long the upload check (src/bulk/prescan.ts) takes on a CSV file: the time a full-duplex client loses to
 * "upload, check, then answer" on a fast network. Usage: node bench/prescan.ts FILE.csv [runs]
 */
import { createReadStream } from 'node:fs';
import { prescanStream } from '../src/bulk/prescan.ts';

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: node bench/prescan.ts FILE.csv [runs]\n');
  process.exit(1);
}
const runs = Number(process.argv[3] ?? '3');
for (let i = 0; i < runs; i++) {
  const started = performance.now();
  const r = await prescanStream(createReadStream(file, { highWaterMark: 64 * 1024 }));
  const ms = performance.now() - started;
  process.stdout.write(
    `prescan: ${r.rows} rows, ${r.students} students, ${r.bytes} bytes in ${ms.toFixed(0)} ms` +
      `${r.problem ? ` (problem: ${r.problem.message})` : ''}\n`,
  );
}
