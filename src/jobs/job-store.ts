/**
 * Where async bulk jobs (POST /v1/jobs) and their results live. Two implementations behind one interface:
 *  - RedisJobStore (src/jobs/redis-job-store.ts) when REDIS_URL is set: jobs and results survive an API restart
 *    (when Redis keeps its data) and are visible to every API replica;
 *  - MemoryJobStore (here) without Redis: job records in this process's memory (LOST ON RESTART), results as
 *    gzip files on disk (src/jobs/disk-results.ts), never in the heap.
 * Both expire a job and its result JOB_TTL_SECONDS after it finished (or after it was created, while it has not).
 * Results are stored gzip-compressed, as ordered segments, and read back decompressed as a stream: never whole in
 * memory. Room for a result is reserved when the job is created (refused with job_store_full when it cannot fit)
 * and grown while it is written (the job fails with job_store_full when it cannot).
 * A job id whose records are gone reads as job_lost (410) or expired (404): see src/jobs/job-id.ts.
 */
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { DiskResults } from './disk-results.ts';
import { missingJobError } from './job-id.ts';
import { entryEnvelope } from '../errors.ts';
import type { StoreHeadroom } from './result-quota.ts';
import type { CheckSummary } from '../bulk/shadow-summary.ts';
import type { ResultStats } from '../bulk/result-stats.ts';
import type { SchoolPolicy } from '../domain/policy.ts';

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];
/** A job that reached one of these stays there until it expires. */
export const FINAL_STATUSES: ReadonlySet<JobStatus> = new Set(['completed', 'failed', 'cancelled']);
export type ResultFormat = 'csv' | 'ndjson';
export { RESULT_PARTS, type ResultPart } from './result-parts.ts';
import type { ResultPart } from './result-parts.ts';

export interface JobError {
  code: string;
  message: string;
  field_errors?: { field: string; message: string }[];
}

export interface JobRecord {
  id: string;
  status: JobStatus;
  format: ResultFormat;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /**
   * When the job and its results are deleted: JOB_TTL_SECONDS after it finished; while it has not, JOB_TTL_SECONDS
   * after its last lease renewal (an unfinished job never expires while a process runs it). Absent on records
   * written before it was stored: then derived from the times above.
   */
  expires_at?: string;
  /** The rule set the job calculates with (src/domain/rule-set.ts). Absent on older records. */
  rule_set?: string;
  students_done: number;
  /** Known once the file has been counted (shortly after submission). */
  students_total: number | null;
  rows_done: number;
  /** Data rows in the upload (its prescan), null when unknown. */
  rows_total?: number | null;
  /** Output rows whose row_status is error (bad student data; the job still completes). */
  error_rows: number;
  error: JobError | null;
  /** sha256 of the submitted body and format: an Idempotency-Key is scoped to it (key + this hash). */
  fingerprint: string;
  /**
   * Epoch ms until which the process running the job vouches for it (renewed while it works). A queued or
   * running job whose lease ran out belongs to a process that died: it reads as failed.
   */
  lease_until: number;
  /** The token id that submitted the job ('' without access control): only it sees the job (src/jobs/ownership.ts). */
  owner?: string;
  /** The shadow check's counts (src/bulk/shadow-summary.ts), only when the file has sis_* columns. */
  check_summary?: CheckSummary | null;
  /**
   * The school policy the job runs with (rules.md §10): the deployment default with the file's `policy.<option>`
   * parameters over it, every option. Absent on records written before policies: DEFAULT_POLICY.
   */
  policy?: SchoolPolicy;
  /** What the results written so far add up to (src/bulk/result-stats.ts); final once the job ended. */
  stats?: ResultStats | null;
  /** True when the job stores every result part (RESULT_PARTS); false or absent: `result` only. */
  all_outputs?: boolean;
  /** Where the job's end is announced (a signed webhook, src/webhooks/); null or absent: nowhere. */
  callback_url?: string | null;
}

/** A page of one owner's jobs, newest first: ids below `before` (ids sort by creation time), at most `limit`. */
export interface JobListQuery {
  limit: number;
  before?: string;
}

export type JobPatch = Partial<
  Pick<
    JobRecord,
    | 'status'
    | 'started_at'
    | 'finished_at'
    | 'students_done'
    | 'students_total'
    | 'rows_done'
    | 'error_rows'
    | 'error'
    | 'lease_until'
    | 'check_summary'
    | 'expires_at'
    | 'stats'
  >
>;

export interface CreateOutcome {
  record: JobRecord;
  /** false: the idempotency key was already used; `record` is the existing job. */
  created: boolean;
}

export interface JobStore {
  readonly kind: 'redis' | 'memory';
  /**
   * Creates the job and reserves `reserveBytes` for its compressed result, atomically with the idempotency key;
   * or returns the job that already holds the key. Throws job_store_full (503) when the result cannot fit.
   */
  create(record: JobRecord, idempotencyKey?: string, reserveBytes?: number): Promise<CreateOutcome>;
  /**
   * The job; undefined for an id this service never issued. Throws job_lost (410) when the records of a job
   * that cannot have expired yet are gone, not_found (404) when it expired.
   */
  get(id: string): Promise<JobRecord | undefined>;
  update(id: string, patch: JobPatch): Promise<void>;
  /**
   * Appends one segment of a compressed result part (read back in append order). Throws job_store_full when the
   * job's results outgrow their reservation and the store has no more room.
   */
  appendResult(id: string, segment: Buffer, part: ResultPart): Promise<void>;
  /** The job wrote all its results: its reservation shrinks to the bytes written. */
  settleResult(id: string): Promise<void>;
  /** Drops every result part of the job and its reservation (a failed or cancelled job has none). */
  clearResult(id: string): Promise<void>;
  /** A decompressed result part, streamed. Throws if the result expires or disappears part-way. */
  readResult(id: string, part: ResultPart): AsyncIterable<Buffer>;
  /** The owner's jobs, newest first (expired ones left out). */
  list(owner: string, query: JobListQuery): Promise<JobRecord[]>;
  /** A result part as stored: one gzip stream, for clients that accept gzip. Throws as readResult does. */
  readResultGzip?(id: string, part: ResultPart): AsyncIterable<Buffer>;
  /** Room left for results (for /readyz). */
  headroom(): Promise<StoreHeadroom>;
  /** Jobs by status, for the metrics gauge. */
  counts(): Promise<Record<JobStatus, number>>;
  close(): Promise<void>;
}

/** The message a job gets when the process that ran it stopped before finishing. */
export const ABANDONED_ERROR: JobError = entryEnvelope('JOB_ABANDONED');

/**
 * Wire codes of failures that are the service's doing, not the file's (the process running the job died or shut
 * down, an internal fault, no room to store the result or the upload): a job that failed with one of them does not
 * hold its Idempotency-Key, so resubmitting with the same key makes a new job, as its message asks. A job that
 * failed because of its file, or was cancelled, keeps the key until it expires.
 */
const SERVICE_FAILURE_CODES: ReadonlySet<string> = new Set([
  'internal_error',
  'job_store_full',
  'insufficient_storage',
]);

/** When a record written before `expires_at` was stored expires: TTL after it finished, or after it was created. */
export function expiryOf(record: JobRecord, ttlMs: number): number {
  if (record.expires_at !== undefined) return Date.parse(record.expires_at);
  return Date.parse(record.finished_at ?? record.created_at) + ttlMs;
}

/** True unless the job (lease applied) failed for the service's reasons: then a resubmission makes a new job. */
export function holdsIdempotencyKey(record: JobRecord): boolean {
  return !(record.status === 'failed' && record.error !== null && SERVICE_FAILURE_CODES.has(record.error.code));
}

/** Applies the lease rule: an unfinished job without a live owner is reported as failed. */
export function withLease(record: JobRecord, now = Date.now()): JobRecord {
  if ((record.status === 'queued' || record.status === 'running') && record.lease_until < now) {
    return {
      ...record,
      status: 'failed',
      error: ABANDONED_ERROR,
      finished_at: record.finished_at ?? new Date(record.lease_until).toISOString(),
    };
  }
  return record;
}

interface MemoryEntry {
  record: JobRecord;
  expiresAt: number;
}

export interface MemoryJobStoreOptions {
  /** Where results are kept (default `<os tmpdir>/sor-jobs-results`). */
  dir?: string;
  /** Quota of results and reservations (default 2 GiB). */
  maxBytes?: number;
}

/** In-process job records (lost when the process restarts), results gzip on disk. */
export class MemoryJobStore implements JobStore {
  readonly kind = 'memory' as const;
  readonly results: DiskResults;
  readonly #ttlMs: number;
  readonly #jobs = new Map<string, MemoryEntry>();
  readonly #idempotency = new Map<string, { id: string; expiresAt: number }>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(ttlSeconds: number, options: MemoryJobStoreOptions = {}) {
    this.#ttlMs = ttlSeconds * 1000;
    const sweepEveryMs = Math.min(60_000, this.#ttlMs);
    this.results = new DiskResults({
      dir: options.dir ?? join(tmpdir(), 'sor-jobs-results'),
      maxBytes: options.maxBytes ?? 2048 * 1024 * 1024,
      sweepEveryMs,
    });
    this.#sweeper = setInterval(() => this.#sweep(), sweepEveryMs);
    this.#sweeper.unref();
  }

  #sweep(now = Date.now()): void {
    for (const [id, e] of this.#jobs) if (e.expiresAt <= now) this.#forget(id);
    for (const [k, e] of this.#idempotency) if (e.expiresAt <= now) this.#idempotency.delete(k);
  }

  #forget(id: string): void {
    this.#jobs.delete(id);
    void this.results.remove(id).catch(() => undefined);
  }

  #entry(id: string): MemoryEntry | undefined {
    const e = this.#jobs.get(id);
    if (e && e.expiresAt <= Date.now()) {
      this.#forget(id);
      return undefined;
    }
    return e;
  }

  async create(record: JobRecord, idempotencyKey?: string, reserveBytes = 0): Promise<CreateOutcome> {
    if (idempotencyKey !== undefined) {
      const seen = this.#idempotency.get(idempotencyKey);
      const existing = seen && seen.expiresAt > Date.now() ? this.#entry(seen.id) : undefined;
      if (existing && holdsIdempotencyKey(withLease(existing.record))) {
        return { record: withLease(existing.record), created: false };
      }
    }
    await this.results.reserve(record.id, reserveBytes);
    // Between the check above and here another submission may have taken the key: it wins, this one yields.
    if (idempotencyKey !== undefined) {
      const seen = this.#idempotency.get(idempotencyKey);
      const existing = seen && seen.expiresAt > Date.now() ? this.#entry(seen.id) : undefined;
      if (existing && holdsIdempotencyKey(withLease(existing.record))) {
        await this.results.remove(record.id);
        return { record: withLease(existing.record), created: false };
      }
    }
    const expiresAt = record.expires_at === undefined ? Date.now() + this.#ttlMs : Date.parse(record.expires_at);
    if (idempotencyKey !== undefined) this.#idempotency.set(idempotencyKey, { id: record.id, expiresAt });
    this.#jobs.set(record.id, { record: { ...record }, expiresAt });
    return { record: { ...record }, created: true };
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const e = this.#entry(id);
    if (e) return withLease({ ...e.record });
    const missing = missingJobError(id, this.#ttlMs);
    if (missing) throw missing;
    return undefined;
  }

  async update(id: string, patch: JobPatch): Promise<void> {
    const e = this.#entry(id);
    if (!e) return;
    e.record = { ...e.record, ...patch };
    // A finished job is kept TTL from its end; an unfinished one never expires while its owner renews its lease.
    if (patch.expires_at !== undefined) e.expiresAt = Date.parse(patch.expires_at);
    else if (patch.status !== undefined && FINAL_STATUSES.has(patch.status)) e.expiresAt = Date.now() + this.#ttlMs;
    else if (patch.lease_until !== undefined) e.expiresAt = Math.max(e.expiresAt, Date.now() + this.#ttlMs);
  }

  async appendResult(id: string, segment: Buffer, part: ResultPart): Promise<void> {
    if (!this.#entry(id)) throw new Error(`job ${id} expired while its result was being written`);
    await this.results.append(id, segment, part);
  }

  async settleResult(id: string): Promise<void> {
    this.results.settle(id);
  }

  async clearResult(id: string): Promise<void> {
    await this.results.remove(id);
  }

  readResult(id: string, part: ResultPart): AsyncIterable<Buffer> {
    if (!this.#entry(id)) throw new Error(`job ${id} has no result`);
    return this.results.read(id, part);
  }

  async list(owner: string, query: JobListQuery): Promise<JobRecord[]> {
    const ids = [...this.#jobs.keys()]
      .filter((id) => {
        const e = query.before === undefined || id < query.before ? this.#entry(id) : undefined;
        return e !== undefined && (e.record.owner ?? '') === owner;
      })
      .sort()
      .reverse()
      .slice(0, query.limit);
    return ids.map((id) => withLease({ ...(this.#jobs.get(id) as MemoryEntry).record }));
  }

  readResultGzip(id: string, part: ResultPart): AsyncIterable<Buffer> {
    if (!this.#entry(id)) throw new Error(`job ${id} has no result`);
    return this.results.readGzip(id, part);
  }

  headroom(): Promise<StoreHeadroom> {
    return this.results.headroom();
  }

  async counts(): Promise<Record<JobStatus, number>> {
    const out = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const [id] of this.#jobs) {
      const e = this.#entry(id);
      if (e) out[withLease(e.record).status]++;
    }
    return out;
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#jobs.clear();
    this.#idempotency.clear();
    await this.results.close();
  }
}
