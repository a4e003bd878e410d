/**
 * The CLI's progress counts students finished: on a 5,000-student file whose last chunk is held back (a runner
 * that waits for the test, never a sleep), the bar stays below 100% although every byte of the file has been read,
 * and says 100% only once the last student is done — for a local `sor bulk` and for `sor jobs submit --wait`
 * against a service whose calculation is held the same way. The job's result is the local run's bytes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedCsv } from '../bulk/helpers.ts';
import { holdingRunner, jobService, startCli, tempDir, until } from './harness.ts';

const tmp = tempDir('progress');
afterAll(() => tmp.rm());
const input = join(tmp.dir, 'students.csv');
writeFileSync(input, generatedCsv(5000).csv);
// 5,000 students in chunks of 500: chunks 0 to 9, the last one held.
const env = { BULK_CHUNK_STUDENTS: '500' };
const LAST_CHUNK = 9;

/** The percentages of the progress lines, in order. */
function percents(stderr: string): number[] {
  return [...stderr.matchAll(/^sor: (?:\w+: )?(\d+)% /gm)].map((m) => Number(m[1]));
}

function expectHeldThenDone(before: string, after: string, heldAt?: number): void {
  // Held: every byte read, and the bar below 100% (locally: exactly the 4,500 students before the held chunk).
  expect(percents(before).length).toBeGreaterThan(0);
  if (heldAt !== undefined) expect(Math.max(...percents(before))).toBe(heldAt);
  expect(Math.max(...percents(before))).toBeLessThan(100);
  expect(before).not.toMatch(/100%/);
  // Released: 100% only now, with every student counted; the percentages never go down.
  const all = percents(after);
  expect(all).toEqual([...all].sort((a, b) => a - b));
  expect(after.slice(before.length)).toMatch(/^sor: 100% 5,000 \/ 5,000 students/m);
  expect(all.filter((p) => p === 100).length).toBeGreaterThan(0);
}

describe('progress counts students finished, not bytes read', () => {
  let localBytes: Buffer;

  it('sor bulk (local): below 100% while the last chunk is held, 100% once its students are done', async () => {
    const hold = holdingRunner(LAST_CHUNK);
    const out = join(tmp.dir, 'local.csv');
    const cli = startCli(['bulk', input, '-o', out], {
      env,
      hooks: { runners: { small: hold.runner, large: hold.runner }, progressEveryMs: 0 },
    });
    await hold.arrived; // the last chunk is submitted: the whole file has been read
    await until(() => /4,500 \/ 5,000 students/.test(cli.stderr()), 'the students before the held chunk');
    const before = cli.stderr();
    hold.release();
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(0);
    expectHeldThenDone(before, run.stderr, 90);
    expect(run.stderr).toMatch(/sor: \d[\d,]* rows, 5,000 students in .*: all rows ok/);
    localBytes = readFileSync(out);
  }, 120_000);

  it('sor jobs submit --wait --out (remote): the same, and the same bytes as the local run', async () => {
    const hold = holdingRunner(LAST_CHUNK);
    const service = await jobService(hold.runner, tmp.dir, env);
    try {
      const out = join(tmp.dir, 'remote.csv');
      const cli = startCli(['jobs', 'submit', input, '--wait', '--out', out, '--server', service.base], {
        hooks: { pollMs: 20, progressEveryMs: 0 },
      });
      await hold.arrived;
      // The service writes a job's progress at most every 500 ms: it shows some of the students before the held
      // chunk (which ones depends on that timing), never all of them.
      await until(() => percents(cli.stderr()).length > 0, 'the job to show its progress');
      const before = cli.stderr();
      hold.release();
      const run = await cli.done;
      expect(run.code, run.stderr).toBe(0);
      expectHeldThenDone(before, run.stderr);
      expect(readFileSync(out).equals(localBytes)).toBe(true);
    } finally {
      hold.release();
      await service.close();
    }
  }, 120_000);
});
