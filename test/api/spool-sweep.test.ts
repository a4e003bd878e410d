/**
 * The spool's orphan sweep (src/jobs/spool.ts): every spool file names its owner (`upload-<pid>-<uuid>.csv`); the
 * sweep removes the files of processes that are gone, this pid's files it does not hold (a previous life of the
 * pid, or a leak), and the job files a former version kept in the spool once stale; it keeps the files of live
 * owners (this process's, another live process's) and names that are not spool files. (Async jobs keep their
 * uploads outside the spool now: src/jobs/job-files.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import {
  createSpoolFile,
  ensureSpoolDir,
  JOB_FILE_STALE_MS,
  removeSpoolFile,
  sweepSpool,
} from '../../src/jobs/spool.ts';

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

const UUID = '123e4567-e89b-42d3-a456-426614174000';
const UUID2 = '223e4567-e89b-42d3-a456-426614174000';

/** Another process that stays alive for the test (the owner of "a live other process's" files). */
let other: ChildProcess;
beforeAll(async () => {
  other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
  await once(other, 'spawn');
});
afterAll(async () => {
  if (other.exitCode === null && other.signalCode === null) {
    other.kill('SIGKILL');
    await once(other, 'exit');
  }
});

function freshDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'sor-sweep-test-')), 'spool');
}

function file(dir: string, name: string, ageMs = 0): string {
  const path = join(dir, name);
  writeFileSync(path, 'student data');
  if (ageMs > 0) {
    const then = new Date(Date.now() - ageMs);
    utimesSync(path, then, then);
  }
  return path;
}

const names = (dir: string) => readdirSync(dir).sort();

describe('sweepSpool', () => {
  it('removes the files of dead processes and this pid files it does not hold; keeps live owners and other names', async () => {
    const dir = freshDir();
    try {
      await ensureSpoolDir(dir);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      const dead = deadPid();
      file(dir, `upload-${dead}-${UUID}.csv`);
      file(dir, `job-${dead}-${UUID}.csv`);
      const live = await createSpoolFile(dir);
      await live.handle.close();
      expect(statSync(live.path).mode & 0o777).toBe(0o600);
      const foreign = file(dir, 'job-abc.csv', 3 * JOB_FILE_STALE_MS);
      const notes = file(dir, 'notes.txt', 3 * JOB_FILE_STALE_MS);
      // A previous life of this pid (a restarted container is pid 1 again): this process never held them.
      file(dir, `upload-${process.pid}-${UUID}.csv`);
      file(dir, `job-${process.pid}-${UUID}.csv`);

      expect(await sweepSpool(dir)).toBe(4);
      expect(names(dir)).toEqual([basename(live.path), basename(foreign), basename(notes)].sort());
      expect(await sweepSpool(dir)).toBe(0);
      expect(await sweepSpool(join(dir, 'missing'))).toBe(0);
    } finally {
      rmSync(dirname(dir), { recursive: true, force: true });
    }
  });

  it("removes a former version's job file, whatever its pid, once untouched for JOB_FILE_STALE_MS", async () => {
    const dir = freshDir();
    try {
      await ensureSpoolDir(dir);
      const pid = other.pid as number;
      const fresh = file(dir, `job-${pid}-${UUID}.csv`);
      const stale = file(dir, `job-${pid}-${UUID2}.csv`, JOB_FILE_STALE_MS + 60_000);
      const oldUpload = file(dir, `upload-${pid}-${UUID}.csv`, 24 * 3600_000); // a live owner's upload: never
      const unownedStale = file(dir, `job-${UUID}.csv`, JOB_FILE_STALE_MS + 60_000); // the name before owners
      const unownedFresh = file(dir, `job-${UUID2}.csv`);

      expect(await sweepSpool(dir)).toBe(2);
      expect(names(dir)).toEqual([fresh, oldUpload, unownedFresh].map((p) => basename(p)).sort());
      expect(names(dir)).not.toContain(basename(stale));
      expect(names(dir)).not.toContain(basename(unownedStale));
    } finally {
      rmSync(dirname(dir), { recursive: true, force: true });
    }
  });

  it('removes a file of this pid once its holder removed it from its hands without deleting it (a leak)', async () => {
    const dir = freshDir();
    try {
      await ensureSpoolDir(dir);
      const upload = await createSpoolFile(dir);
      await upload.handle.close();
      expect(await sweepSpool(dir)).toBe(0);
      // Its holder is done with it (an async job moved it to its files), then the name reappears: a leak of this pid.
      await removeSpoolFile(upload.path);
      file(dir, basename(upload.path));
      const kept = await createSpoolFile(dir);
      await kept.handle.close();
      expect(await sweepSpool(dir)).toBe(1);
      expect(names(dir)).toEqual([basename(kept.path)]);
    } finally {
      rmSync(dirname(dir), { recursive: true, force: true });
    }
  });
});
