/**
 * The job store without Redis: durable, in JOBS_DIR (folder 0700).
 *
 *   <JOBS_DIR>/jobs.db                 SQLite (node:sqlite, built into Node 24: no dependency, no flag), WAL mode:
 *                                      one row per job (its JobRecord as JSON, its owner, status, expiry, current
 *                                      attempt and the bytes its results reserved and wrote) and the idempotency keys
 *   <JOBS_DIR>/results/<id>.<part>.gz  the results, one file per part and attempt (src/jobs/local-results.ts)
 *   <JOBS_DIR>/uploads/<id>.csv        the uploads of unfinished jobs (src/jobs/job-files.ts, kept by AsyncJobs)
 *
 * Why SQLite: a job's record is written many times while it runs (progress twice a second, the lease every 10 s)
 * and must survive a SIGKILL at any of those writes; SQLite's write-ahead log commits each write atomically, a
 * process killed mid-write leaves the last committed state (synchronous=NORMAL: durable across a crash of the
 * process; a power cut may lose the last transactions), and its locks let several processes share the file. A
 * JSON file per job would need its own atomic renames and directory scans for listings, idempotency keys and the
 * quota; Redis is what the deployment chose not to run.
 *
 * Several API processes may share one JOBS_DIR on one machine (a local filesystem: SQLite's locks do not hold
 * across NFS): each transaction takes SQLite's write lock (BEGIN IMMEDIATE), others wait for it (up to
 * BUSY_TIMEOUT_MS, blocking their event loop that long at worst: transactions last well under a millisecond), so
 * every process sees every job, an idempotency key names one job, the quota counts every process's results, and
 * exactly one process claims an orphaned job. A run's writes are fenced by its attempt (src/jobs/fencing.ts): each
 * checks the row's attempt in the transaction (or statement) that writes.
 *
 * The quota: results and reservations of unexpired jobs at most `maxBytes`, and never more than the disk's free
 * space minus a margin. A sweep (at start-up and every min(60 s, TTL), by every process) deletes expired jobs,
 * their results and idempotency keys; result files without a job are deleted after a minute.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { missingJobError } from './job-id.ts';
import { storeFullError } from './result-quota.ts';
import type { StoreHeadroom } from './result-quota.ts';
import { LocalResults } from './local-results.ts';
import { FIRST_ATTEMPT, JobFencedError, attemptOf } from './fencing.ts';
import {
  FINAL_STATUSES,
  JOB_STATUSES,
  applicablePatch,
  freshRun,
  holdsIdempotencyKey,
  withLease,
  type CreateOutcome,
  type JobListQuery,
  type JobPatch,
  type JobRecord,
  type JobStatus,
  type JobStore,
  type ResultPart,
} from './job-store.ts';

/** How long a transaction waits for another process's write lock before it fails. */
const BUSY_TIMEOUT_MS = 5000;
/** 2: the `attempt` column (fencing), added to a version-1 database when it is opened. */
const SCHEMA_VERSION = '2';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  status TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  reserved INTEGER NOT NULL DEFAULT 0,
  written INTEGER NOT NULL DEFAULT 0,
  record TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT ${FIRST_ATTEMPT}
) STRICT;
CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs (owner, id);
CREATE INDEX IF NOT EXISTS jobs_by_expiry ON jobs (expires_at);
CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, job_id TEXT NOT NULL, expires_at INTEGER NOT NULL) STRICT;
`;

export interface LocalJobStoreOptions {
  /** JOBS_DIR. */
  dir: string;
  ttlSeconds: number;
  /** Quota of results and reservations (JOBS_MAX_DISK_BYTES). */
  maxBytes: number;
  /** Called when a sweep fails (it never throws). */
  onError?: (err: unknown) => void;
}

interface Row {
  record: string;
  expires_at: number;
}

/** What a job's results take, and the attempt they belong to. */
type Bytes = { reserved: number; written: number; attempt: number };
type Attempt = { id: string; attempt: number };

const UNFINISHED = `status IN ('queued', 'running')`;

export class LocalJobStore implements JobStore {
  readonly kind = 'local' as const;
  readonly dir: string;
  readonly results: LocalResults;
  readonly #db: DatabaseSync;
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #sweeper: NodeJS.Timeout;
  readonly #onError: (err: unknown) => void;
  readonly #q: Record<string, StatementSync>;
  #closed = false;

  constructor(options: LocalJobStoreOptions) {
    this.dir = options.dir;
    this.#ttlMs = options.ttlSeconds * 1000;
    this.#maxBytes = options.maxBytes;
    this.#onError = options.onError ?? (() => undefined);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    this.results = new LocalResults(join(this.dir, 'results'));
    this.#db = new DatabaseSync(join(this.dir, 'jobs.db'), { timeout: BUSY_TIMEOUT_MS });
    chmodSync(join(this.dir, 'jobs.db'), 0o600);
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    this.#transaction(() => {
      this.#db.exec(SCHEMA);
      const columns = this.#db.prepare('PRAGMA table_info(jobs)').all() as { name: string }[];
      if (!columns.some((c) => c.name === 'attempt')) {
        this.#db.exec(`ALTER TABLE jobs ADD COLUMN attempt INTEGER NOT NULL DEFAULT ${FIRST_ATTEMPT}`);
      }
      this.#db.prepare(`INSERT OR REPLACE INTO meta (name, value) VALUES ('schema', ?)`).run(SCHEMA_VERSION);
    });
    this.#q = {
      get: this.#db.prepare('SELECT record, expires_at FROM jobs WHERE id = ?'),
      put: this.#db.prepare('UPDATE jobs SET record = ?, status = ?, expires_at = ?, attempt = ? WHERE id = ?'),
      insert: this.#db.prepare(
        'INSERT INTO jobs (id, owner, status, expires_at, reserved, record, attempt) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      key: this.#db.prepare('SELECT job_id FROM idempotency WHERE key = ? AND expires_at > ?'),
      setKey: this.#db.prepare('INSERT OR REPLACE INTO idempotency (key, job_id, expires_at) VALUES (?, ?, ?)'),
      used: this.#db.prepare('SELECT coalesce(sum(max(reserved, written)), 0) AS used FROM jobs WHERE expires_at > ?'),
      bytes: this.#db.prepare('SELECT reserved, written, attempt FROM jobs WHERE id = ?'),
      grow: this.#db.prepare('UPDATE jobs SET reserved = ? WHERE id = ?'),
      wrote: this.#db.prepare('UPDATE jobs SET written = written + ? WHERE id = ? AND attempt = ?'),
      settle: this.#db.prepare('UPDATE jobs SET reserved = written WHERE id = ? AND attempt = coalesce(?, attempt)'),
      clear: this.#db.prepare(
        'UPDATE jobs SET written = 0, reserved = CASE WHEN ? THEN reserved ELSE 0 END WHERE id = ?',
      ),
      list: this.#db.prepare(
        'SELECT record, expires_at FROM jobs WHERE owner = ? AND id < ? AND expires_at > ? ORDER BY id DESC LIMIT ?',
      ),
      statuses: this.#db.prepare(`SELECT status, count(*) AS n FROM jobs WHERE expires_at > ? GROUP BY status`),
      unfinished: this.#db.prepare(`SELECT record, expires_at FROM jobs WHERE ${UNFINISHED} AND expires_at > ?`),
      expired: this.#db.prepare('SELECT id, attempt FROM jobs WHERE expires_at <= ?'),
      drop: this.#db.prepare('DELETE FROM jobs WHERE id = ?'),
      dropKeys: this.#db.prepare('DELETE FROM idempotency WHERE expires_at <= ?'),
      known: this.#db.prepare('SELECT id, attempt FROM jobs WHERE expires_at > ?'),
    };
    const sweepEveryMs = Math.max(1000, Math.min(60_000, this.#ttlMs));
    this.#sweeper = setInterval(() => void this.sweep(), sweepEveryMs);
    this.#sweeper.unref();
    void this.sweep();
  }

  /** Runs `fn` in one write transaction (other processes wait for it); rolls back when it throws. */
  #transaction<T>(fn: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.#db.exec('COMMIT');
      return out;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  /** The job's record as stored (no lease rule), if it has not expired. */
  #read(id: string, now = Date.now()): JobRecord | undefined {
    const row = this.#q.get!.get(id) as Row | undefined;
    if (row === undefined || row.expires_at <= now) return undefined;
    return JSON.parse(row.record) as JobRecord;
  }

  #write(record: JobRecord): void {
    const expiresAt = Date.parse(record.expires_at ?? '');
    this.#q.put!.run(JSON.stringify(record), record.status, expiresAt, attemptOf(record), record.id);
  }

  /** The job's result bytes and attempt; throws JobFencedError when `attempt` is given and is not the job's. */
  #bytes(id: string, attempt?: number): Bytes {
    const row = this.#q.bytes!.get(id) as Bytes | undefined;
    if (row === undefined) throw new Error(`job ${id} expired while its result was being written`);
    if (attempt !== undefined && row.attempt !== attempt) throw new JobFencedError(id, attempt);
    return row;
  }

  #used(now: number): number {
    return Number((this.#q.used!.get(now) as { used: number }).used);
  }

  async create(record: JobRecord, idempotencyKey?: string, reserveBytes = 0): Promise<CreateOutcome> {
    const diskFree = reserveBytes > 0 ? await this.results.diskFree() : Number.POSITIVE_INFINITY;
    return this.#transaction(() => {
      const now = Date.now();
      if (idempotencyKey !== undefined) {
        const seen = this.#q.key!.get(idempotencyKey, now) as { job_id: string } | undefined;
        const existing = seen === undefined ? undefined : this.#read(seen.job_id, now);
        if (existing !== undefined && holdsIdempotencyKey(withLease(existing, now))) {
          return { record: withLease(existing, now), created: false };
        }
      }
      if (reserveBytes > 0) {
        const used = this.#used(now);
        const free = Math.min(this.#maxBytes - used, diskFree);
        if (reserveBytes > free) throw storeFullError('JOBS_MAX_DISK_BYTES on disk', reserveBytes, free);
      }
      const expiresAt = Date.parse(record.expires_at ?? '') || now + this.#ttlMs;
      const stored = { ...record, expires_at: new Date(expiresAt).toISOString() };
      this.#q.insert!.run(
        record.id,
        record.owner ?? '',
        record.status,
        expiresAt,
        reserveBytes,
        JSON.stringify(stored),
        attemptOf(stored),
      );
      if (idempotencyKey !== undefined) this.#q.setKey!.run(idempotencyKey, record.id, expiresAt);
      return { record: { ...stored }, created: true };
    });
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const record = this.#read(id);
    if (record !== undefined) return withLease(record);
    const missing = missingJobError(id, this.#ttlMs);
    if (missing) throw missing;
    return undefined;
  }

  async update(id: string, patch: JobPatch, attempt?: number): Promise<void> {
    this.#transaction(() => {
      const current = this.#read(id);
      if (current === undefined) return; // an expired job must not come back
      if (attempt !== undefined && attemptOf(current) !== attempt) throw new JobFencedError(id, attempt);
      const applied = applicablePatch(current, patch);
      if (applied === undefined) return;
      const next: JobRecord = { ...current, ...applied };
      if (applied.expires_at === undefined && applied.status !== undefined && FINAL_STATUSES.has(applied.status)) {
        next.expires_at = new Date(Date.now() + this.#ttlMs).toISOString();
      }
      this.#write(next);
    });
  }

  async renew(id: string, instance: string, leaseUntil: number, expiresAt: string): Promise<boolean> {
    return this.#transaction(() => {
      const current = this.#read(id);
      if (current === undefined || FINAL_STATUSES.has(current.status) || current.instance !== instance) return false;
      this.#write({ ...current, lease_until: leaseUntil, expires_at: expiresAt });
      return true;
    });
  }

  /**
   * The job for a fresh run (its next attempt) of `to`, if it is unfinished and still `from`'s; the previous
   * attempt's results are deleted, the reservation kept.
   */
  async #handOver(id: string, from: string, to: string, leaseUntil: number): Promise<JobRecord | undefined> {
    const handed = this.#transaction(() => {
      const current = this.#read(id);
      if (current === undefined || FINAL_STATUSES.has(current.status) || (current.instance ?? '') !== from) {
        return undefined;
      }
      const next = freshRun(current, to, leaseUntil);
      if (to !== '') next.expires_at = new Date(Date.now() + this.#ttlMs).toISOString();
      this.#write(next);
      this.#q.clear!.run(1, id);
      return { next, previous: attemptOf(current) };
    });
    if (handed === undefined) return undefined;
    await this.results.remove(id, handed.previous);
    return handed.next;
  }

  claim(id: string, from: string, to: string, leaseUntil: number): Promise<JobRecord | undefined> {
    return this.#handOver(id, from, to, leaseUntil);
  }

  async release(id: string, instance: string): Promise<void> {
    await this.#handOver(id, instance, '', Date.now()); // its grace runs from now
  }

  async orphans(now = Date.now()): Promise<JobRecord[]> {
    return (this.#q.unfinished!.all(now) as unknown as Row[])
      .map((row) => JSON.parse(row.record) as JobRecord)
      .filter((r) => r.lease_until < now);
  }

  /** Raises the job's reservation to `total` bytes if the quota and the disk leave room, or throws. */
  async #grow(id: string, total: number, attempt: number): Promise<void> {
    if (total <= this.#bytes(id, attempt).reserved) return;
    const diskFree = await this.results.diskFree();
    this.#transaction(() => {
      const now = Date.now();
      const mine = this.#bytes(id, attempt);
      const others = this.#used(now) - Math.max(mine.reserved, mine.written);
      const free = Math.min(this.#maxBytes - others, diskFree + mine.reserved);
      if (total > free) throw storeFullError('JOBS_MAX_DISK_BYTES on disk', total, free);
      this.#q.grow!.run(total, id);
    });
  }

  async appendResult(id: string, segment: Buffer, part: ResultPart, attempt?: number): Promise<void> {
    const row = this.#bytes(id, attempt);
    const mine = attempt ?? row.attempt;
    await this.#grow(id, row.written + segment.length, mine);
    // Claimed by another process between the check and the append: the segment went to this attempt's file only.
    await this.results.append(id, part, mine, segment);
    if (Number(this.#q.wrote!.run(segment.length, id, mine).changes) === 0 && attempt !== undefined) {
      throw new JobFencedError(id, attempt);
    }
  }

  async settleResult(id: string, attempt?: number): Promise<void> {
    if (Number(this.#q.settle!.run(id, attempt ?? null).changes) === 0 && attempt !== undefined) {
      throw new JobFencedError(id, attempt);
    }
  }

  async clearResult(id: string, attempt?: number): Promise<void> {
    const current = this.#transaction(() => {
      const row = this.#q.bytes!.get(id) as Bytes | undefined;
      if (row !== undefined && attempt !== undefined && row.attempt !== attempt) throw new JobFencedError(id, attempt);
      this.#q.clear!.run(0, id);
      return row?.attempt ?? attempt ?? FIRST_ATTEMPT;
    });
    await this.results.remove(id, current);
  }

  /** The job's current attempt, whose results are read; throws when the job is gone. */
  #readable(id: string): number {
    const record = this.#read(id);
    if (record === undefined) throw new Error(`job ${id} has no result`);
    return attemptOf(record);
  }

  readResult(id: string, part: ResultPart): AsyncIterable<Buffer> {
    return this.results.read(id, part, this.#readable(id));
  }

  readResultGzip(id: string, part: ResultPart): AsyncIterable<Buffer> {
    return this.results.readGzip(id, part, this.#readable(id));
  }

  async list(owner: string, query: JobListQuery): Promise<JobRecord[]> {
    const before = query.before ?? '\uffff';
    const rows = this.#q.list!.all(owner, before, Date.now(), query.limit) as unknown as Row[];
    return rows.map((row) => withLease(JSON.parse(row.record) as JobRecord));
  }

  async headroom(): Promise<StoreHeadroom> {
    const usedBytes = this.#used(Date.now());
    const capacityBytes = Math.min(this.#maxBytes, usedBytes + (await this.results.diskFree()));
    return { usedBytes, capacityBytes, freeBytes: Math.max(0, capacityBytes - usedBytes) };
  }

  async counts(): Promise<Record<JobStatus, number>> {
    const now = Date.now();
    const out = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const row of this.#q.statuses!.all(now) as unknown as { status: JobStatus; n: number }[]) {
      if (FINAL_STATUSES.has(row.status)) out[row.status] += Number(row.n);
    }
    // Unfinished jobs by the lease rule (one no process resumed in time reads failed).
    for (const row of this.#q.unfinished!.all(now) as unknown as Row[]) {
      out[withLease(JSON.parse(row.record) as JobRecord, now).status]++;
    }
    return out;
  }

  /** Deletes expired jobs (their results too) and idempotency keys, and result files without a job. */
  async sweep(): Promise<void> {
    if (this.#closed) return;
    try {
      const now = Date.now();
      const expired = this.#q.expired!.all(now) as Attempt[];
      this.#transaction(() => {
        for (const { id } of expired) this.#q.drop!.run(id);
        this.#q.dropKeys!.run(now);
      });
      for (const { id, attempt } of expired) await this.results.remove(id, attempt);
      const known = new Map((this.#q.known!.all(now) as Attempt[]).map((r) => [r.id, r.attempt]));
      await this.results.sweep((id) => known.get(id), now);
    } catch (err) {
      this.#onError(err);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#db.close();
  }
}
