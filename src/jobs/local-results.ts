/**
 * The result files of the local job store (src/jobs/local-job-store.ts): one gzip file per result part of a job,
 * `<JOBS_DIR>/results/<job id>.<part>.gz` (folder 0700, files 0600), appended segment by segment by the process that
 * runs the job and read by any process that shares the folder. Never in the heap: read back as a stream.
 */
import { createReadStream, mkdirSync, chmodSync } from 'node:fs';
import { appendFile, readdir, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSegments } from './gunzip-segments.ts';
import { RESULT_PARTS, type ResultPart } from './result-parts.ts';

/** Free disk space never handed to job results. */
export const DISK_MARGIN_BYTES = 256 * 1024 * 1024;
/** A result file without a job is deleted only once it is this old (its job may be being created). */
const ORPHAN_FILE_MS = 60_000;
const FILE = /^([0-9a-f]{52})\.(result|alternate|errors)\.gz$/;

export class LocalResults {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }

  path(id: string, part: ResultPart): string {
    return join(this.dir, `${id}.${part}.gz`);
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

  async append(id: string, part: ResultPart, segment: Buffer): Promise<void> {
    await appendFile(this.path(id, part), segment, { mode: 0o600 });
  }

  async remove(id: string): Promise<void> {
    for (const part of RESULT_PARTS) await rm(this.path(id, part), { force: true });
  }

  /** A part as stored (gzip). */
  readGzip(id: string, part: ResultPart): AsyncIterable<Buffer> {
    return createReadStream(this.path(id, part), { highWaterMark: 256 * 1024 });
  }

  /** A part decompressed (a complete gzip member once the job completed; an empty part still has one). */
  read(id: string, part: ResultPart): AsyncIterable<Buffer> {
    return gunzipSegments(this.readGzip(id, part));
  }

  /** Deletes the files of jobs `known` does not keep (expired, deleted), once they are ORPHAN_FILE_MS old. */
  async sweep(known: (id: string) => boolean, now = Date.now()): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.dir)) {
      const id = FILE.exec(name)?.[1];
      if (id !== undefined && known(id)) continue;
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (info === undefined || now - info.mtimeMs < ORPHAN_FILE_MS) continue;
      await rm(join(this.dir, name), { force: true });
      removed++;
    }
    return removed;
  }
}
