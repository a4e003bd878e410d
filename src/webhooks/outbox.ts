/**
 * The webhook outbox: one entry per job that has a callback, written when the job is submitted, so no event is
 * lost to a crash between "the job ended" and "its event was queued" (the sweep finds ended jobs whose entry still
 * waits). An entry's life:
 *
 *   waiting    the job has not ended; no event yet
 *   pending    the job ended: its event (the exact body sent on every attempt) is due at `nextAttemptAt`
 *   delivered  an attempt was answered 2xx
 *   failed     no attempt succeeded within the retry window (retry-schedule.ts)
 *
 * Attempts are made by whoever claims a due entry: a claim moves its `nextAttemptAt` a lease ahead and holds a
 * token, atomically, so among several API processes on one store exactly one makes each attempt; a process that
 * dies mid-attempt leaves the claim to run out, and the attempt is made again (at least once: a receiver
 * deduplicates by the event's id). Two stores: SqliteOutbox (JOBS_DIR, without Redis) and RedisOutbox.
 */
import type { JobRecord } from '../jobs/job-store.ts';

export type EventType = 'job.completed' | 'job.failed' | 'job.cancelled';
export type OutboxState = 'waiting' | 'pending' | 'delivered' | 'failed';

/** One delivery attempt as the job shows it (`callback.attempts`). */
export interface DeliveryAttempt {
  /** When the attempt started (ISO 8601). */
  at: string;
  event: EventType;
  /** The receiver's HTTP status; null when none came (refused, timed out, not sent). */
  status: number | null;
  /** What went wrong, in words; null for a 2xx. */
  error: string | null;
}

/** The event of an ended job, made once and sent as is on every attempt. */
export interface OutboxEvent {
  id: string;
  type: EventType;
  /** The JSON body, exactly as signed and sent. */
  body: string;
  /** When the job ended (epoch ms): the retry window starts here. */
  endedAt: number;
}

export interface OutboxEntry {
  jobId: string;
  /** Where the events go (checked when the job was submitted, and again before each attempt). */
  url: string;
  state: OutboxState;
  /** Epoch ms of the submission. */
  createdAt: number;
  /** The job as submitted: the event of a job whose records are lost is made from it. */
  snapshot: JobRecord;
  /** The webhooks instance (one per API process) that wrote the entry: see OutboxStore.alive. */
  instance: string;
  event: OutboxEvent | null;
  /** Epoch ms when the next attempt is due (pending only). */
  nextAttemptAt: number | null;
  /** An attempt is under way (claimed, its lease not run out). */
  inFlight: boolean;
  attempts: DeliveryAttempt[];
}

/** The right to make one attempt of one entry. */
export interface Claim {
  entry: OutboxEntry & { event: OutboxEvent };
  token: string;
}

/** What follows an attempt. */
export interface Settlement {
  state: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: number | null;
}

export interface OutboxTimes {
  /** Delivered and failed entries are kept this long (the job's own TTL, JOB_TTL_SECONDS). */
  retentionMs: number;
  /** The retry window (WEBHOOK_RETRY_WINDOW_MS): a pending entry lives at least this long after its job ended. */
  windowMs: number;
}

/** A waiting entry is kept at most this long: the sweep settles it as soon as its job ends or is lost. */
export const WAITING_KEEP_MS = 7 * 24 * 3600 * 1000;

/** A webhooks instance whose last heartbeat is older than this is gone (its process stopped or died). */
export const INSTANCE_STALE_MS = 20_000;

/** What a new entry holds. */
export type NewEntry = Pick<OutboxEntry, 'jobId' | 'url' | 'snapshot' | 'createdAt' | 'instance'>;

export interface OutboxStore {
  readonly kind: 'sqlite' | 'redis';
  /** Adds a waiting entry; false when the job has one already (a repeated submission keeps the first). */
  add(entry: NewEntry): Promise<boolean>;
  get(jobId: string): Promise<OutboxEntry | undefined>;
  getMany(jobIds: readonly string[]): Promise<Map<string, OutboxEntry>>;
  /**
   * waiting → pending with its event, due at `dueAt`: 'ready'; 'already' when the entry is past waiting (another
   * process or the sweep made the event first; nothing changes); 'missing' when there is no entry.
   */
  ready(jobId: string, event: OutboxEvent, dueAt: number): Promise<'ready' | 'already' | 'missing'>;
  /** Claims up to `limit` pending entries due at `now` for `leaseMs`. */
  claimDue(now: number, leaseMs: number, limit: number): Promise<Claim[]>;
  /** Appends the attempt and applies the settlement, if the claim still holds (false otherwise: nothing written). */
  settle(claim: Claim, attempt: DeliveryAttempt, next: Settlement, now: number): Promise<boolean>;
  /** Gives a claim back without an attempt (shutdown): the entry is due at `dueAt`. */
  release(claim: Claim, dueAt: number): Promise<void>;
  /** Waiting entries after job id `after` (ids sort by creation time), oldest first, at most `limit`. */
  waiting(after: string | undefined, limit: number): Promise<OutboxEntry[]>;
  /** Records that `instance` is alive at `now` (every few seconds while it runs). */
  beat(instance: string, now: number): Promise<void>;
  /** True while `instance` beat within INSTANCE_STALE_MS of `now`. */
  alive(instance: string, now: number): Promise<boolean>;
  /** Forgets `instance` (it stops): its entries' jobs may be judged by the others at once. */
  forget(instance: string): Promise<void>;
  close(): Promise<void>;
}
