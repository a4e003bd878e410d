/**
 * The upload spool: a private folder (SPOOL_DIR, created 0700) where bulk and job uploads are written (files
 * 0600) while they are received and checked, before they are answered (src/api/upload.ts).
 *
 * A spool file is named `upload-<pid>-<uuid>.csv`. Its owner removes it on every path (success, error, client
 * abort, shutdown); what a crash leaves behind is swept:
 *  - at start-up, files of processes that are gone, and files of this very pid older than this process (a
 *    restarted container reuses pid 1);
 *  - on a timer, files of processes that are gone.
 * Files of live processes are never touched, so several processes (or test workers) may share one folder.
 */
import { constants } from 'node:fs';
import { chmod, mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

const SPOOL_FILE = /^upload-(\d+)-[0-9a-f-]{36}\.csv$/;

/** Creates the folder (0700) if needed and tightens its mode if it exists (it must be ours alone). */
export async function ensureSpoolDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

export interface SpoolFile {
  path: string;
  handle: FileHandle;
}

/** A new, empty spool file of this process, opened for writing (mode 0600, never an existing file). */
export async function createSpoolFile(dir: string): Promise<SpoolFile> {
  const path = join(dir, `upload-${process.pid}-${randomUUID()}.csv`);
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  return { path, handle };
}

/** Removes a spool file; a file already gone is fine. */
export async function removeSpoolFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by someone else
  }
}

/**
 * Removes orphaned spool files: those of processes that are gone and, with `startup`, those of this pid that
 * predate this process. Resolves with the number removed. A folder that does not exist has none.
 */
export async function sweepSpool(dir: string, options: { startup?: boolean } = {}): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const startedAt = Date.now() - process.uptime() * 1000;
  let removed = 0;
  for (const name of names) {
    const match = SPOOL_FILE.exec(name);
    if (match === null) continue;
    const pid = Number(match[1]);
    const path = join(dir, name);
    let orphan = !processAlive(pid);
    if (!orphan && options.startup === true && pid === process.pid) {
      const info = await stat(path).catch(() => undefined);
      orphan = info !== undefined && info.mtimeMs < startedAt;
    }
    if (orphan) {
      await removeSpoolFile(path);
      removed++;
    }
  }
  return removed;
}

/** Sweeps every `everyMs` (the timer does not keep the process alive); `stop` ends it. */
export function startSpoolSweeper(dir: string, everyMs: number, onError: (err: unknown) => void): { stop(): void } {
  const timer = setInterval(() => {
    sweepSpool(dir).catch(onError);
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Removes this process's own spool files (at shutdown, after its requests were answered or cut). */
export async function removeOwnSpoolFiles(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const match = SPOOL_FILE.exec(name);
    if (match === null || Number(match[1]) !== process.pid) continue;
    await removeSpoolFile(join(dir, name));
    removed++;
  }
  return removed;
}
