/**
 * Where async bulk jobs (POST /v1/jobs) and their results live. Two implementations behind one interface:
 *  - RedisJobStore (src/queue/redis-job-store.ts) when REDIS_URL is set: jobs and results survive an API restart
 *    and are visible to every API replica;
 *  - MemoryJobStore (here) without Redis: same API, kept in this process only and LOST ON RESTART.
 * Both expire a job and its result JOB_TTL_SECONDS after it finished (or after it was created, while it has not).
 * The result is stored as ordered byte segments and read back segment by segment: never whole in memory.
 */

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'completed', 'failed'];
export type ResultFormat = 'csv' | 'ndjson';

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
  students_done: number;
  /** Known once the file has been counted (shortly after submission). */
  students_total: number | null;
  rows_done: number;
  /** Output rows whose row_status is error (bad student data; the job still completes). */
  error_rows: number;
  error: JobError | null;
  /** sha256 of the submitted body and format: an Idempotency-Key reused for a different file is refused. */
  fingerprint: string;
  /**
   * Epoch ms until which the process running the job vouches for it (renewed while it works). A queued or
   * running job whose lease ran out belongs to a process that died: it reads as failed.
   */
  lease_until: number;
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
  >
>;

export interface CreateOutcome {
  record: JobRecord;
  /** false: the idempotency key was already used; `record` is the existing job. */
  created: boolean;
}

export interface JobStore {
  readonly kind: 'redis' | 'memory';
  create(record: JobRecord, idempotencyKey?: string): Promise<CreateOutcome>;
  get(id: string): Promise<JobRecord | undefined>;
  update(id: string, patch: JobPatch): Promise<void>;
  /** Appends one segment of the result (segments are read back in append order). */
  appendResult(id: string, segment: Buffer): Promise<void>;
  /** Drops a partial result (a failed job has none). */
  clearResult(id: string): Promise<void>;
  /** The result segments in order. Throws if the result expires or disappears part-way. */
  readResult(id: string): AsyncIterable<Buffer>;
  /** Jobs by status, for the metrics gauge. */
  counts(): Promise<Record<JobStatus, number>>;
  close(): Promise<void>;
}

/** The message a job gets when the process that ran it stopped before finishing. */
export const ABANDONED_ERROR: JobError = {
  code: 'internal_error',
  message: 'The service instance running this job stopped before it finished. Submit the file again.',
};

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
  segments: Buffer[];
  expiresAt: number;
}

/** In-process job store (no Redis): jobs are lost when the process restarts. */
export class MemoryJobStore implements JobStore {
  readonly kind = 'memory' as const;
  readonly #ttlMs: number;
  readonly #jobs = new Map<string, MemoryEntry>();
  readonly #idempotency = new Map<string, { id: string; expiresAt: number }>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(ttlSeconds: number) {
    this.#ttlMs = ttlSeconds * 1000;
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(60_000, this.#ttlMs));
    this.#sweeper.unref();
  }

  #sweep(now = Date.now()): void {
    for (const [id, e] of this.#jobs) if (e.expiresAt <= now) this.#jobs.delete(id);
    for (const [k, e] of this.#idempotency) if (e.expiresAt <= now) this.#idempotency.delete(k);
  }

  #entry(id: string): MemoryEntry | undefined {
    const e = this.#jobs.get(id);
    if (e && e.expiresAt <= Date.now()) {
      this.#jobs.delete(id);
      return undefined;
    }
    return e;
  }

  async create(record: JobRecord, idempotencyKey?: string): Promise<CreateOutcome> {
    const now = Date.now();
    if (idempotencyKey !== undefined) {
      const seen = this.#idempotency.get(idempotencyKey);
      const existing = seen && seen.expiresAt > now ? this.#entry(seen.id) : undefined;
      if (existing) return { record: withLease(existing.record), created: false };
      this.#idempotency.set(idempotencyKey, { id: record.id, expiresAt: now + this.#ttlMs });
    }
    this.#jobs.set(record.id, { record: { ...record }, segments: [], expiresAt: now + this.#ttlMs });
    return { record: { ...record }, created: true };
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const e = this.#entry(id);
    return e ? withLease({ ...e.record }) : undefined;
  }

  async update(id: string, patch: JobPatch): Promise<void> {
    const e = this.#entry(id);
    if (!e) return;
    e.record = { ...e.record, ...patch };
    if (patch.status === 'completed' || patch.status === 'failed') e.expiresAt = Date.now() + this.#ttlMs;
  }

  async appendResult(id: string, segment: Buffer): Promise<void> {
    const e = this.#entry(id);
    if (!e) throw new Error(`job ${id} expired while its result was being written`);
    e.segments.push(segment);
  }

  async clearResult(id: string): Promise<void> {
    const e = this.#entry(id);
    if (e) e.segments = [];
  }

  async *readResult(id: string): AsyncIterable<Buffer> {
    const e = this.#entry(id);
    if (!e) throw new Error(`job ${id} has no result`);
    for (const s of e.segments) yield s;
  }

  async counts(): Promise<Record<JobStatus, number>> {
    const out: Record<JobStatus, number> = { queued: 0, running: 0, completed: 0, failed: 0 };
    for (const [id] of this.#jobs) {
      const r = await this.get(id);
      if (r) out[r.status]++;
    }
    return out;
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
  }
}
