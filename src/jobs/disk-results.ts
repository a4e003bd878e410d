/**
 * Async job results on disk (the store without Redis): one gzip file per job, never in the heap.
 *
 *   <JOBS_DIR>/                       mode 0700
 *     i-<pid>-<random>/               this API process's results (mode 0700)
 *       .alive                        touched every HEARTBEAT_MS while the process lives
 *       <job id>.<part>.gz            a result part of the job (result, alternate, errors), gzip, mode 0600,
 *                                     appended segment by segment
 *
 * Quota: at most `maxBytes` of results and reservations per process, and never more than the disk's free space
 * minus DISK_MARGIN_BYTES. Sweep (at start-up and every min(60 s, TTL)): this process's files without a job
 * (expired or failed) are deleted; another process's folder whose heartbeat is older than STALE_MS (that
 * process died; its job records, kept in its memory, died with it) is deleted whole.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, createReadStream, mkdirSync } from 'node:fs';
import { appendFile, readdir, rm, stat, statfs, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSegments } from './gunzip-segments.ts';
import { storeFullError } from './result-quota.ts';
import type { StoreHeadroom } from './result-quota.ts';
import { RESULT_PARTS, type ResultPart } from './result-parts.ts';

const HEARTBEAT_MS = 20_000;
const STALE_MS = 90_000;
/** Free disk space never handed to job results. */
const DISK_MARGIN_BYTES = 256 * 1024 * 1024;
const ALIVE = '.alive';

export interface DiskResultsOptions {
  dir: string;
  maxBytes: number;
  /** Sweep period cap; the sweep runs at least this often (ms). */
  sweepEveryMs: number;
  /** Called when a sweep or heartbeat fails (it never throws). */
  onError?: (err: unknown) => void;
}

interface Entry {
  reserved: number;
  written: number;
}

export class DiskResults {
  readonly dir: string;
  readonly #own: string;
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  readonly #timer: NodeJS.Timeout;
  readonly #onError: (err: unknown) => void;
  #sweeping: Promise<void> | undefined;

  constructor(options: DiskResultsOptions) {
    this.dir = options.dir;
    this.#maxBytes = options.maxBytes;
    this.#onError = options.onError ?? (() => undefined);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    this.#own = join(this.dir, `i-${process.pid}-${randomBytes(4).toString('hex')}`);
    mkdirSync(this.#own, { mode: 0o700 });
    void writeFile(join(this.#own, ALIVE), '', { mode: 0o600 }).catch(this.#onError);
    void this.sweep();
    const every = Math.max(1000, Math.min(HEARTBEAT_MS, options.sweepEveryMs));
    this.#timer = setInterval(() => void this.sweep(), every);
    this.#timer.unref();
  }

  #path(id: string, part: ResultPart): string {
    return join(this.#own, `${id}.${part}.gz`);
  }

  #used(): number {
    let used = 0;
    for (const e of this.#entries.values()) used += Math.max(e.reserved, e.written);
    return used;
  }

  async headroom(): Promise<StoreHeadroom> {
    const usedBytes = this.#used();
    let capacityBytes = this.#maxBytes;
    try {
      const fs = await statfs(this.dir);
      const diskFree = Number(fs.bavail) * Number(fs.bsize) - DISK_MARGIN_BYTES;
      capacityBytes = Math.min(capacityBytes, usedBytes + Math.max(0, diskFree));
    } catch (err) {
      this.#onError(err);
    }
    return { usedBytes, capacityBytes, freeBytes: Math.max(0, capacityBytes - usedBytes) };
  }

  /** Reserves room for a new job's result, or throws job_store_full (503). */
  async reserve(id: string, bytes: number): Promise<void> {
    const { freeBytes } = await this.headroom();
    // Checked and recorded with no await in between: concurrent jobs cannot both take the last room.
    const free = Math.min(freeBytes, this.#maxBytes - this.#used());
    if (bytes > free) throw storeFullError('JOBS_MAX_DISK_BYTES on disk', bytes, free);
    this.#entries.set(id, { reserved: bytes, written: 0 });
  }

  /** Raises a job's reservation to `total` bytes, or throws job_store_full. */
  async grow(id: string, total: number): Promise<void> {
    const e = this.#entries.get(id);
    if (!e) throw new Error(`job ${id} has no result reservation`);
    if (total <= e.reserved) return;
    const { freeBytes } = await this.headroom();
    const extra = total - e.reserved;
    const free = Math.min(freeBytes, this.#maxBytes - this.#used());
    if (extra > free) throw storeFullError('JOBS_MAX_DISK_BYTES on disk', total, free + e.reserved);
    e.reserved = total;
  }

  async append(id: string, segment: Buffer, part: ResultPart): Promise<void> {
    const e = this.#entries.get(id);
    if (!e) throw new Error(`job ${id} expired while its result was being written`);
    await this.grow(id, e.written + segment.length);
    await appendFile(this.#path(id, part), segment, { mode: 0o600 });
    e.written += segment.length;
  }

  /** The job is done writing: its reservation shrinks to what it wrote. */
  settle(id: string): void {
    const e = this.#entries.get(id);
    if (e) e.reserved = e.written;
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  async remove(id: string): Promise<void> {
    this.#entries.delete(id);
    for (const part of RESULT_PARTS) await rm(this.#path(id, part), { force: true });
  }

  /** A result part as stored (gzip). */
  readGzip(id: string, part: ResultPart): AsyncIterable<Buffer> {
    if (!this.#entries.has(id)) throw new Error(`job ${id} has no result`);
    return createReadStream(this.#path(id, part), { highWaterMark: 256 * 1024 });
  }

  /** A decompressed result part. */
  read(id: string, part: ResultPart): AsyncIterable<Buffer> {
    if (!this.#entries.has(id)) throw new Error(`job ${id} has no result`);
    const path = this.#path(id, part);
    // The file holds a complete gzip member once the job completed; an empty result still has one.
    return gunzipSegments(createReadStream(path, { highWaterMark: 256 * 1024 }));
  }

  /** Deletes files without a job (own folder) and the folders of processes that died. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep()
      .catch(this.#onError)
      .finally(() => {
        this.#sweeping = undefined;
      });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const now = new Date();
    await utimes(join(this.#own, ALIVE), now, now).catch(() => writeFile(join(this.#own, ALIVE), '', { mode: 0o600 }));
    for (const name of await readdir(this.#own)) {
      if (name === ALIVE) continue;
      const id = name.endsWith('.gz') ? name.slice(0, name.indexOf('.')) : undefined;
      if (id === undefined || !this.#entries.has(id)) await rm(join(this.#own, name), { force: true });
    }
    for (const name of await readdir(this.dir)) {
      const folder = join(this.dir, name);
      if (folder === this.#own || !name.startsWith('i-')) continue;
      const alive = await stat(join(folder, ALIVE)).catch(() => undefined);
      const since = alive?.mtimeMs ?? (await stat(folder).catch(() => undefined))?.mtimeMs ?? 0;
      if (now.getTime() - since > STALE_MS) await rm(folder, { recursive: true, force: true });
    }
  }

  /** Stops the timer and deletes this process's results (its job records, in memory, end with it). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
    this.#entries.clear();
    await rm(this.#own, { recursive: true, force: true });
  }
}
