/**
 * The result files of the local job store (src/jobs/local-job-store.ts): one gzip file per result part of a job's
 * attempt (src/jobs/fencing.ts), `<JOBS_DIR>/results/<job id>.<part>.gz` for its first attempt and
 * `<job id>.<attempt>.<part>.gz` for the next ones (folder 0700, files 0600), appended segment by segment by the
 * process that runs the attempt and read by any process that shares the folder. Never in the heap: read back as a
 * stream. A stalled run that lost the job appends only to its own attempt's files, which no one reads.
 */
import { createReadStream, mkdirSync, chmodSync } from 'node:fs';
import { appendFile, readdir, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSegments } from './gunzip-segments.ts';
import { RESULT_PARTS, type ResultPart } from './result-parts.ts';
import { FIRST_ATTEMPT } from './fencing.ts';

/** Free disk space never handed to job results. */
export const DISK_MARGIN_BYTES = 256 * 1024 * 1024;
/** A result file without a job is deleted only once it is this old (its job may be being created). */
const ORPHAN_FILE_MS = 60_000;
const FILE = /^([0-9a-f]{52})(?:\.([0-9]+))?\.(?:result|alternate|errors)\.gz$/;

export class LocalResults {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }

  path(id: string, part: ResultPart, attempt: number): string {
    return join(this.dir, attempt === FIRST_ATTEMPT ? `${id}.${part}.gz` : `${id}.${attempt}.${part}.gz`);
  }

  /** Bytes the disk under the folder can still take, minus the margin (Infinity when it cannot be told). */
  async diskFree(): Promise<number> {
    try {
      const fs = await statfs(this.dir);
      return Math.max(0, Number(fs.bavail) * Number(fs.bsize) - DISK_MARGIN_BYTES);
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  }

  async append(id: string, part: ResultPart, attempt: number, segment: Buffer): Promise<void> {
    await appendFile(this.path(id, part, attempt), segment, { mode: 0o600 });
  }

  /** Deletes the files of one attempt of the job. */
  async remove(id: string, attempt: number): Promise<void> {
    for (const part of RESULT_PARTS) await rm(this.path(id, part, attempt), { force: true });
  }

  /** A part as stored (gzip). */
  readGzip(id: string, part: ResultPart, attempt: number): AsyncIterable<Buffer> {
    return createReadStream(this.path(id, part, attempt), { highWaterMark: 256 * 1024 });
  }

  /** A part decompressed (a complete gzip member once the job completed; an empty part still has one). */
  read(id: string, part: ResultPart, attempt: number): AsyncIterable<Buffer> {
    return gunzipSegments(this.readGzip(id, part, attempt));
  }

  /**
   * Deletes the files that are not of a kept job's current attempt (`attemptOf`: undefined for a job expired or
   * deleted), once they are ORPHAN_FILE_MS old: those of gone jobs, and those a stale run wrote for an old attempt.
   */
  async sweep(attemptOf: (id: string) => number | undefined, now = Date.now()): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.dir)) {
      const match = FILE.exec(name);
      if (match !== null && attemptOf(match[1]!) === Number(match[2] ?? FIRST_ATTEMPT)) continue;
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (info === undefined || now - info.mtimeMs < ORPHAN_FILE_MS) continue;
      await rm(join(this.dir, name), { force: true });
      removed++;
    }
    return removed;
  }
}
