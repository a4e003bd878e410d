/**
 * Where async bulk jobs (POST /v1/jobs) and their results live. Two implementations behind one interface:
 *  - RedisJobStore (src/jobs/redis-job-store.ts) when REDIS_URL is set: jobs and results survive an API restart
 *    (when Redis keeps its data) and are visible to every API replica;
 *  - LocalJobStore (src/jobs/local-job-store.ts) without Redis: job records in a SQLite database in JOBS_DIR,
 *    results as gzip files beside it: they survive a restart of the API, and every API process sharing the folder
 *    sees them.
 * Both expire a job and its results JOB_TTL_SECONDS after it finished (or after its last lease renewal, while it
 * has not).
 *
 * Leases: the process running a job (its `instance`) renews the job's lease while it waits or runs. When that
 * process stops, the job is resumed from its upload by a process that has the upload (src/jobs/job-recovery.ts):
 * it `claim`s the job (atomically: one process wins) and runs it afresh. A job no process resumes within
 * RESUME_GRACE_MS of its lease's end reads as failed (its upload is gone with its process's disk).
 * Results are stored gzip-compressed, as ordered segments, and read back decompressed as a stream: never whole in
 * memory. Room for a result is reserved when the job is created (refused with job_store_full when it cannot fit)
 * and grown while it is written (the job fails with job_store_full when it cannot).
 * A job id whose records are gone reads as job_lost (410) or expired (404): see src/jobs/job-id.ts.
 */
import { entryEnvelope } from '../errors.ts';
import { emptyResultStats } from '../bulk/result-stats.ts';
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
import { attemptOf } from './fencing.ts';

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
  /**
   * The process that runs (or waits to run) the job, `<host>:<pid>:<random>` (src/jobs/instance.ts); '' once that
   * process released it at shutdown (any process may resume it then). Absent on older records.
   */
  instance?: string;
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
  /**
   * The fencing token of the job's current run: FIRST_ATTEMPT when created, one more at every claim and hand-back
   * (src/jobs/fencing.ts). Absent on older records: FIRST_ATTEMPT.
   */
  attempt?: number;
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
  readonly kind: 'redis' | 'local';
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
  /**
   * Merges `patch` into the job. A job that reached a final status keeps it (late progress writes change nothing),
   * except that a finished job may become cancelled (DELETE removes its results). With `attempt` (a run's write),
   * only while it is the job's current attempt: otherwise throws JobFencedError (src/jobs/fencing.ts).
   */
  update(id: string, patch: JobPatch, attempt?: number): Promise<void>;
  /**
   * Renews the lease of an unfinished job that `instance` holds (its expiry moves with it); false when the job is
   * no longer this instance's to run (another process claimed it, it finished or was cancelled, or it is gone).
   */
  renew(id: string, instance: string, leaseUntil: number, expiresAt: string): Promise<boolean>;
  /**
   * Takes an unfinished job over from the instance `from` (as read before; '' for a released job) for `to`,
   * atomically: the job is queued again for a fresh run, its next attempt (progress, counts and partial results
   * cleared, its lease `to`'s). Undefined when another process claimed it first, or it finished meanwhile.
   */
  claim(id: string, from: string, to: string, leaseUntil: number): Promise<JobRecord | undefined>;
  /**
   * Hands an unfinished job of `instance` back (shutdown): queued, no instance, its next attempt, its lease ending
   * now (its grace runs from now); partial results cleared.
   */
  release(id: string, instance: string): Promise<void>;
  /** Unfinished jobs whose lease ran out (the local store only: every process sharing it sees its uploads). */
  orphans?(now?: number): Promise<JobRecord[]>;
  /**
   * Appends one segment of a compressed result part (read back in append order). Throws job_store_full when the
   * job's results outgrow their reservation and the store has no more room. With `attempt`, appends to that
   * attempt's results and throws JobFencedError once it is not the job's current attempt (update, above).
   */
  appendResult(id: string, segment: Buffer, part: ResultPart, attempt?: number): Promise<void>;
  /** The job wrote all its results: its reservation shrinks to the bytes written. Fenced as `update`. */
  settleResult(id: string, attempt?: number): Promise<void>;
  /** Drops every result part of the job and its reservation (a failed or cancelled job has none). Fenced as `update`. */
  clearResult(id: string, attempt?: number): Promise<void>;
  /** A decompressed result part (the current attempt's), streamed. Throws if the result expires or disappears part-way. */
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

/**
 * How long after its lease ran out an unfinished job waits for a process to resume it (an API restarted with the
 * job's upload on its disk) before it reads as failed: a restart, even one that waits for a node, is done by then.
 */
export const RESUME_GRACE_MS = 10 * 60_000;

/** Applies the lease rule: an unfinished job no process resumed within RESUME_GRACE_MS reads as failed. */
export function withLease(record: JobRecord, now = Date.now()): JobRecord {
  if (!FINAL_STATUSES.has(record.status) && record.lease_until + RESUME_GRACE_MS < now) {
    return {
      ...record,
      status: 'failed',
      error: ABANDONED_ERROR,
      finished_at: record.finished_at ?? new Date(record.lease_until + RESUME_GRACE_MS).toISOString(),
    };
  }
  return record;
}

/** `record` as a fresh run of it for `instance`: its next attempt, queued again, nothing counted, no partial result. */
export function freshRun(record: JobRecord, instance: string, leaseUntil: number): JobRecord {
  return {
    ...record,
    attempt: attemptOf(record) + 1,
    status: 'queued',
    instance,
    lease_until: leaseUntil,
    started_at: null,
    students_done: 0,
    rows_done: 0,
    error_rows: 0,
    error: null,
    check_summary: null,
    stats: emptyResultStats(),
  };
}

/** The patch that merges into `current`, or undefined when a final status must stay (see JobStore.update). */
export function applicablePatch(current: JobRecord, patch: JobPatch): JobPatch | undefined {
  if (FINAL_STATUSES.has(current.status) && patch.status !== 'cancelled') return undefined;
  return patch;
}
