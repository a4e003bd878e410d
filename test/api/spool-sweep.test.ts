/**
 * The upload spool's orphan sweep (src/jobs/spool.ts): files of processes that are gone are removed, at start-up
 * also this pid's files older than the process; files of live processes and other names are never touched.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSpoolFile, ensureSpoolDir, sweepSpool } from '../../src/jobs/spool.ts';

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

const UUID = '123e4567-e89b-42d3-a456-426614174000';

describe('sweepSpool', () => {
  it('removes orphans at start-up and on the timer, keeps live files and foreign names', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sor-sweep-test-')), 'spool');
    try {
      await ensureSpoolDir(dir);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      const dead = join(dir, `upload-${deadPid()}-${UUID}.csv`);
      writeFileSync(dead, 'x');
      const live = await createSpoolFile(dir);
      await live.handle.close();
      expect(statSync(live.path).mode & 0o777).toBe(0o600);
      const foreign = join(dir, 'job-abc.csv');
      writeFileSync(foreign, 'x');
      const mineOld = join(dir, `upload-${process.pid}-${UUID}.csv`);
      writeFileSync(mineOld, 'x');
      const longAgo = new Date(Date.now() - process.uptime() * 1000 - 60_000);
      utimesSync(mineOld, longAgo, longAgo);

      expect(await sweepSpool(dir)).toBe(1); // the timer: only the dead process's file
      expect(readdirSync(dir).sort()).toEqual([live.path, foreign, mineOld].map((p) => p.slice(dir.length + 1)).sort());
      expect(await sweepSpool(dir, { startup: true })).toBe(1); // start-up: also this pid's file from before
      expect(readdirSync(dir).sort()).toEqual([live.path, foreign].map((p) => p.slice(dir.length + 1)).sort());
      expect(await sweepSpool(join(dir, 'missing'))).toBe(0);
    } finally {
      rmSync(dirname(dir), { recursive: true, force: true });
    }
  });
});

function dirname(p: string): string {
  return p.slice(0, p.lastIndexOf('/'));
}
