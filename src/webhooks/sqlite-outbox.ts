/**
 * The webhook outbox without Redis: a SQLite database (Node's built-in node:sqlite) in JOBS_DIR, `webhooks.sqlite`
 * (0600, in the 0700 folder), so entries survive a restart and a SIGKILL of the API. Every write is one
 * transaction, committed with synchronous=FULL in WAL mode (on disk when it returns). Several API processes on
 * one JOBS_DIR share it safely: a claim is a `BEGIN IMMEDIATE` transaction (one writer at a time, others wait up
 * to BUSY_TIMEOUT_MS), so each attempt is claimed by one process only.
 */
import { closeSync, chmodSync, mkdirSync, openSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { JobRecord } from '../jobs/job-store.ts';
import {
  INSTANCE_STALE_MS,
  WAITING_KEEP_MS,
  type Claim,
  type DeliveryAttempt,
  type EventType,
  type OutboxEntry,
  type NewEntry,
  type OutboxEvent,
  type OutboxStore,
  type OutboxTimes,
  type Settlement,
} from './outbox.ts';

/** A writer waits this long for another process's transaction before the call fails. */
const BUSY_TIMEOUT_MS = 5000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhook_outbox (
  job_id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  snapshot TEXT NOT NULL,
  instance TEXT NOT NULL,
  event_id TEXT,
  event_type TEXT,
  body TEXT,
  ended_at INTEGER,
  next_attempt_at INTEGER,
  claim TEXT,
  claim_until INTEGER,
  attempts TEXT NOT NULL DEFAULT '[]',
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS webhook_outbox_due ON webhook_outbox (state, next_attempt_at);
CREATE TABLE IF NOT EXISTS webhook_instances (id TEXT PRIMARY KEY, seen_at INTEGER NOT NULL) STRICT;
`;

type Row = Record<string, SQLInputValue>;

function entryOf(row: Row, now: number): OutboxEntry {
  const eventId = row.event_id as string | null;
  return {
    jobId: row.job_id as string,
    url: row.url as string,
    state: row.state as OutboxEntry['state'],
    createdAt: Number(row.created_at),
    snapshot: JSON.parse(row.snapshot as string) as JobRecord,
    instance: row.instance as string,
    event:
      eventId === null
        ? null
        : {
            id: eventId,
            type: row.event_type as EventType,
            body: row.body as string,
            endedAt: Number(row.ended_at),
          },
    nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
    inFlight: row.claim !== null && Number(row.claim_until) > now,
    attempts: JSON.parse(row.attempts as string) as DeliveryAttempt[],
  };
}

export class SqliteOutbox implements OutboxStore {
  readonly kind = 'sqlite' as const;
  readonly #db: DatabaseSync;
  readonly #times: OutboxTimes;

  constructor(path: string, times: OutboxTimes) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600)); // created private before SQLite opens it (its -wal and -shm follow its mode)
    chmodSync(path, 0o600);
    this.#db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
    this.#db.exec(SCHEMA);
    this.#times = times;
  }

  /** Runs `work` in one write transaction (BEGIN IMMEDIATE: the write lock first, so no upgrade deadlock). */
  #write<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const out = work();
      this.#db.exec('COMMIT');
      return out;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  async add(entry: NewEntry): Promise<boolean> {
    const result = this.#db
      .prepare(
        `INSERT INTO webhook_outbox (job_id, url, state, created_at, snapshot, instance, expires_at)
         VALUES (?, ?, 'waiting', ?, ?, ?, ?) ON CONFLICT (job_id) DO NOTHING`,
      )
      .run(
        entry.jobId,
        entry.url,
        entry.createdAt,
        JSON.stringify(entry.snapshot),
        entry.instance,
        entry.createdAt + WAITING_KEEP_MS,
      );
    return Number(result.changes) === 1;
  }

  async get(jobId: string): Promise<OutboxEntry | undefined> {
    const now = Date.now();
    const row = this.#db.prepare('SELECT * FROM webhook_outbox WHERE job_id = ? AND expires_at > ?').get(jobId, now) as
      Row | undefined;
    return row === undefined ? undefined : entryOf(row, now);
  }

  async getMany(jobIds: readonly string[]): Promise<Map<string, OutboxEntry>> {
    const out = new Map<string, OutboxEntry>();
    for (const id of jobIds) {
      const entry = await this.get(id);
      if (entry) out.set(id, entry);
    }
    return out;
  }

  async ready(jobId: string, event: OutboxEvent, dueAt: number): Promise<'ready' | 'already' | 'missing'> {
    return this.#write(() => {
      const row = this.#db.prepare('SELECT state FROM webhook_outbox WHERE job_id = ?').get(jobId) as Row | undefined;
      if (row === undefined) return 'missing';
      if (row.state !== 'waiting') return 'already';
      this.#db
        .prepare(
          `UPDATE webhook_outbox SET state = 'pending', event_id = ?, event_type = ?, body = ?, ended_at = ?,
             next_attempt_at = ?, expires_at = ? WHERE job_id = ?`,
        )
        .run(
          event.id,
          event.type,
          event.body,
          event.endedAt,
          dueAt,
          event.endedAt + this.#times.windowMs + this.#times.retentionMs,
          jobId,
        );
      return 'ready';
    });
  }

  async claimDue(now: number, leaseMs: number, limit: number): Promise<Claim[]> {
    return this.#write(() => {
      this.#db.prepare('DELETE FROM webhook_outbox WHERE expires_at <= ?').run(now);
      const rows = this.#db
        .prepare(
          `SELECT * FROM webhook_outbox WHERE state = 'pending' AND next_attempt_at <= ?
           ORDER BY next_attempt_at LIMIT ?`,
        )
        .all(now, limit) as Row[];
      const update = this.#db.prepare(
        'UPDATE webhook_outbox SET claim = ?, claim_until = ?, next_attempt_at = ? WHERE job_id = ?',
      );
      return rows.map((row) => {
        const token = randomBytes(12).toString('hex');
        update.run(token, now + leaseMs, now + leaseMs, row.job_id as string);
        const entry = entryOf({ ...row, claim: token, claim_until: now + leaseMs }, now);
        return { entry: entry as Claim['entry'], token };
      });
    });
  }

  async settle(claim: Claim, attempt: DeliveryAttempt, next: Settlement, now: number): Promise<boolean> {
    return this.#write(() => {
      const row = this.#db
        .prepare('SELECT claim, attempts, ended_at FROM webhook_outbox WHERE job_id = ?')
        .get(claim.entry.jobId) as Row | undefined;
      if (row === undefined || row.claim !== claim.token) return false;
      const attempts = [...(JSON.parse(row.attempts as string) as DeliveryAttempt[]), attempt];
      const expiresAt =
        next.state === 'pending'
          ? Number(row.ended_at) + this.#times.windowMs + this.#times.retentionMs
          : now + this.#times.retentionMs;
      this.#db
        .prepare(
          `UPDATE webhook_outbox SET state = ?, next_attempt_at = ?, attempts = ?, claim = NULL, claim_until = NULL,
             expires_at = ? WHERE job_id = ?`,
        )
        .run(next.state, next.nextAttemptAt, JSON.stringify(attempts), expiresAt, claim.entry.jobId);
      return true;
    });
  }

  async release(claim: Claim, dueAt: number): Promise<void> {
    this.#db
      .prepare(
        `UPDATE webhook_outbox SET claim = NULL, claim_until = NULL, next_attempt_at = ?
         WHERE job_id = ? AND claim = ?`,
      )
      .run(dueAt, claim.entry.jobId, claim.token);
  }

  async waiting(after: string | undefined, limit: number): Promise<OutboxEntry[]> {
    const now = Date.now();
    const rows = this.#db
      .prepare(
        `SELECT * FROM webhook_outbox WHERE state = 'waiting' AND job_id > ? AND expires_at > ?
         ORDER BY job_id LIMIT ?`,
      )
      .all(after ?? '', now, limit) as Row[];
    return rows.map((row) => entryOf(row, now));
  }

  async beat(instance: string, now: number): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO webhook_instances (id, seen_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`,
      )
      .run(instance, now);
    this.#db.prepare('DELETE FROM webhook_instances WHERE seen_at < ?').run(now - 10 * INSTANCE_STALE_MS);
  }

  async alive(instance: string, now: number): Promise<boolean> {
    const row = this.#db.prepare('SELECT seen_at FROM webhook_instances WHERE id = ?').get(instance) as Row | undefined;
    return row !== undefined && Number(row.seen_at) > now - INSTANCE_STALE_MS;
  }

  async forget(instance: string): Promise<void> {
    this.#db.prepare('DELETE FROM webhook_instances WHERE id = ?').run(instance);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}
