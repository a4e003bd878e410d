/**
 * The upload spool: a private folder (SPOOL_DIR, created 0700) where bulk and job uploads are written (files
 * 0600) while they are received and checked, before they are answered (src/api/upload.ts). An async job's upload
 * then leaves the spool for the job's own files (src/jobs/job-files.ts), which outlive their process so that the
 * job can run again after a restart: nothing in the spool is meant to outlive its process.
 *
 * Every spool file names its owner: `upload-<pid>-<uuid>.csv`, pid the owning process (a request receiving or
 * computing it), which removes it on every path (success, error, client abort, shutdown). What a crash or a leak
 * leaves behind is swept, at start-up and on a timer, by every process that shares the folder:
 *  - files of a pid that is not running;
 *  - files of this very pid that this process does not hold (at start-up: every one, since a restarted
 *    container reuses pid 1; later: one its owner lost track of);
 *  - job files a former version kept in the spool (`job-<pid>-<uuid>.csv`, `job-<uuid>.csv`) once untouched for
 *    JOB_FILE_STALE_MS, whatever their pid says.
 * Upload files of another live pid are never touched, so several processes on one machine (or test workers)
 * may share one folder. Processes in different pid namespaces (containers) must not share one: each container
 * gets its own (the shipped manifests give every pod its own emptyDir, every compose container its own /tmp).
 */
import { constants } from 'node:fs';
import { chmod, mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { appError, AppError } from '../errors.ts';
import { processAlive } from './instance.ts';

const SPOOL_FILE = /^(upload|job)-(\d+)-[0-9a-f-]{36}\.csv$/;
/** The name job files had before they named their owner. */
const UNOWNED_JOB_FILE = /^job-[0-9a-f-]{36}\.csv$/;

/** A former version's job file untouched this long has no live owner (it touched its files every 10 s). */
export const JOB_FILE_STALE_MS = 2 * 60_000;

/** Paths of the spool files this process holds (created or adopted, not yet removed). */
const held = new Set<string>();

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
  held.add(path); // before it exists: a sweep running meanwhile must not take it for a leak
  try {
    const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    return { path, handle };
  } catch (err) {
    held.delete(path);
    throw err;
  }
}

/** Removes a spool file; a file already gone is fine. */
export async function removeSpoolFile(path: string): Promise<void> {
  await rm(path, { force: true });
  held.delete(path);
}

async function staleSince(path: string, bound: number): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  return info !== undefined && info.mtimeMs < bound;
}

/** True when the spool file `name` (in `dir`) has no owner that needs it any more (see the rules above). */
async function orphaned(dir: string, name: string, now: number): Promise<boolean> {
  const path = join(dir, name);
  const match = SPOOL_FILE.exec(name);
  if (match === null) return UNOWNED_JOB_FILE.test(name) && staleSince(path, now - JOB_FILE_STALE_MS);
  const pid = Number(match[2]);
  if (pid === process.pid) return !held.has(path);
  if (!processAlive(pid)) return true;
  return match[1] === 'job' && staleSince(path, now - JOB_FILE_STALE_MS);
}

/**
 * Removes orphaned spool files (the rules at the top of this file); anything else in the folder is left alone.
 * Resolves with the number removed. A folder that does not exist has none. The same rules serve at start-up: this
 * process holds no file yet then, so every file of a previous life of its pid goes.
 */
export async function sweepSpool(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const now = Date.now();
  let removed = 0;
  for (const name of names) {
    if (!(await orphaned(dir, name, now))) continue;
    await rm(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

/** Sweeps every `everyMs` (the timer does not keep the process alive); `stop` ends it. */
export function startSpoolSweeper(
  dir: string,
  everyMs: number,
  onError: (err: unknown) => void,
  onRemoved: (removed: number) => void = () => undefined,
): { stop(): void } {
  const timer = setInterval(() => {
    sweepSpool(dir).then((n) => n > 0 && onRemoved(n), onError);
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
    if (match === null || Number(match[2]) !== process.pid) continue;
    await removeSpoolFile(join(dir, name));
    removed++;
  }
  return removed;
}

/** True for a write that failed because the disk (or the user's quota) is full, looking through `cause`s. */
export function isDiskFull(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The answer for a failure while spooling or storing a file: a full disk is 507 insufficient_storage (the
 * original error kept as its cause, for the log); anything else is returned as it is.
 */
export function diskFullAsAppError(err: unknown): unknown {
  if (err instanceof AppError || !isDiskFull(err)) return err;
  return appError('INSUFFICIENT_STORAGE', {}, { cause: err });
}
