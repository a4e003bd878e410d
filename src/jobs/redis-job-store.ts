/**
 * Async jobs in Redis (REDIS_URL set), under REDIS_PREFIX:
 *   `${prefix}:job:<id>`          hash: the JobRecord fields
 *   `${prefix}:job:<id>:result`   list: the gzip-compressed result's byte segments, in order (the format asked)
 *   `${prefix}:job:<id>:result:alternate`, `…:result:errors`   lists: the other format, the errors-only CSV
 *   `${prefix}:job-idem:<sha256>` string: scoped Idempotency-Key (key + upload hash) → job id
 *   `${prefix}:jobs`              sorted set: job id → expiry (ms), for counting jobs by status
 *   `${prefix}:job-bytes`         hash: job id → bytes reserved for (then taken by) its compressed result
 *   `${prefix}:jobs-of:<owner>`   sorted set (all scores 0, so ordered by id = by creation time): one owner's jobs,
 *                                 for GET /v1/jobs (token owners only: anonymous jobs are never listed); ids of
 *                                 expired jobs are dropped when listed; the set expires with its owner's last job
 * Every key expires JOB_TTL_SECONDS after the job finished (after its last lease renewal while it has not);
 * job-bytes entries of jobs gone from `jobs` are pruned whenever the ledger is read, and `jobs` and `job-bytes`
 * themselves expire JOB_TTL_SECONDS after the last job wrote to them: nothing of a job outlives its TTL. The results may take at most
 * JOBS_MAX_REDIS_BYTES, and never more than Redis's maxmemory headroom (minus a margin for the queue): a job whose
 * reservation does not fit is refused (job_store_full, 503), one that outgrows it while running fails with
 * job_store_full. Uses the API's fail-fast producer connection: when Redis is down, job calls fail at once.
 * A run's writes are fenced by its attempt (src/jobs/fencing.ts) inside the scripts that write them, so the result
 * lists need no attempt in their names: a stale run's segment is refused, never appended, and a claim empties them.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { gunzipSegments } from './gunzip-segments.ts';
import {
  APPEND_SCRIPT,
  CLEAR_SCRIPT,
  CREATE_SCRIPT,
  GROW_SCRIPT,
  RELEASE_KEY_SCRIPT,
  SETTLE_SCRIPT,
  SUM_SCRIPT,
  TAKE_SCRIPT,
  UPDATE_SCRIPT,
} from './redis-job-scripts.ts';
import { JobFencedError } from './fencing.ts';
import { missingJobError } from './job-id.ts';
import { storeFullError } from './result-quota.ts';
import type { StoreHeadroom } from './result-quota.ts';
import { freshRun, holdsIdempotencyKey, JOB_STATUSES, RESUME_GRACE_MS, withLease } from './job-store.ts';
import { FINAL_STATUSES, RESULT_PARTS } from './job-store.ts';
import type { CreateOutcome, JobListQuery, JobPatch, JobRecord, JobStatus, JobStore, ResultPart } from './job-store.ts';

/** Part of Redis maxmemory never handed to job results (the queue and job records need it). */
const REDIS_MEMORY_MARGIN = 0.25;

/** Record fields stored as JSON text in the job's hash. */
const JSON_FIELDS: ReadonlySet<string> = new Set(['error', 'check_summary', 'policy', 'stats']);

function toHash(fields: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    out.push(k, v === null ? '' : JSON_FIELDS.has(k) ? JSON.stringify(v) : String(v));
  }
  return out;
}

function fromHash(h: Record<string, string>): JobRecord | undefined {
  if (!h.id) return undefined;
  const num = (k: string) => (h[k] === undefined || h[k] === '' ? null : Number(h[k]));
  const str = (k: string) => (h[k] === undefined || h[k] === '' ? null : (h[k] as string));
  return {
    id: h.id,
    status: h.status as JobStatus,
    format: h.format === 'ndjson' ? 'ndjson' : 'csv',
    created_at: h.created_at ?? '',
    started_at: str('started_at'),
    finished_at: str('finished_at'),
    students_done: num('students_done') ?? 0,
    students_total: num('students_total'),
    rows_done: num('rows_done') ?? 0,
    error_rows: num('error_rows') ?? 0,
    error: h.error ? (JSON.parse(h.error) as JobRecord['error']) : null,
    fingerprint: h.fingerprint ?? '',
    lease_until: num('lease_until') ?? 0,
    owner: h.owner ?? '',
    ...(h.check_summary ? { check_summary: JSON.parse(h.check_summary) as JobRecord['check_summary'] } : {}),
    ...(h.policy ? { policy: JSON.parse(h.policy) as JobRecord['policy'] } : {}),
    ...(h.expires_at ? { expires_at: h.expires_at } : {}),
    ...(h.rule_set ? { rule_set: h.rule_set } : {}),
    ...(h.rows_total !== undefined ? { rows_total: num('rows_total') } : {}),
    ...(h.stats ? { stats: JSON.parse(h.stats) as JobRecord['stats'] } : {}),
    ...(h.all_outputs !== undefined ? { all_outputs: h.all_outputs === 'true' } : {}),
    ...(h.callback_url !== undefined ? { callback_url: str('callback_url') } : {}),
    ...(h.instance !== undefined ? { instance: h.instance } : {}),
    ...(h.attempt !== undefined ? { attempt: Number(h.attempt) } : {}),
  };
}

export class RedisJobStore implements JobStore {
  readonly kind = 'redis' as const;
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  /** Bytes this process has written per job it is writing. */
  readonly #written = new Map<string, number>();

  constructor(redis: Redis, prefix: string, ttlSeconds: number, maxBytes = 256 * 1024 * 1024) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#ttlMs = ttlSeconds * 1000;
    this.#maxBytes = maxBytes;
  }

  #jobKey(id: string): string {
    return `${this.#prefix}:job:${id}`;
  }
  #resultKey(id: string, part: ResultPart): string {
    return part === 'result' ? `${this.#prefix}:job:${id}:result` : `${this.#prefix}:job:${id}:result:${part}`;
  }
  #indexKey(): string {
    return `${this.#prefix}:jobs`;
  }
  #ledgerKey(): string {
    return `${this.#prefix}:job-bytes`;
  }
  #ownerKey(owner: string): string {
    return `${this.#prefix}:jobs-of:${owner}`;
  }

  /** Bytes Redis can still take for job results under maxmemory (Infinity without maxmemory). */
  async #memoryFree(): Promise<number> {
    const info = await this.#redis.info('memory');
    const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
    const max = field('maxmemory');
    if (max <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(0, Math.floor(max * (1 - REDIS_MEMORY_MARGIN)) - field('used_memory'));
  }

  async create(record: JobRecord, idempotencyKey?: string, reserveBytes = 0): Promise<CreateOutcome> {
    const jobKey = this.#jobKey(record.id);
    const idemKey =
      idempotencyKey === undefined
        ? jobKey // same key twice: the script then skips the idempotency part
        : `${this.#prefix}:job-idem:${createHash('sha256').update(idempotencyKey).digest('hex')}`;
    const memoryFree = reserveBytes > 0 ? await this.#memoryFree() : Number.POSITIVE_INFINITY;
    const now = Date.now();
    const fields = toHash({ ...record });
    const outcome = (await this.#redis.eval(
      CREATE_SCRIPT,
      4,
      idemKey,
      jobKey,
      this.#indexKey(),
      this.#ledgerKey(),
      record.id,
      String(this.#ttlMs),
      String(now + this.#ttlMs),
      String(now),
      String(this.#maxBytes),
      // A reservation larger than Redis's memory headroom is refused by the script like one over the quota.
      String(reserveBytes > memoryFree ? Number.MAX_SAFE_INTEGER : reserveBytes),
      ...fields,
    )) as string | [number] | null;
    if (Array.isArray(outcome)) {
      const used = Number(outcome[0]);
      throw reserveBytes > memoryFree
        ? storeFullError('Redis maxmemory', reserveBytes, memoryFree)
        : storeFullError('JOBS_MAX_REDIS_BYTES in Redis', reserveBytes, this.#maxBytes - used);
    }
    if (outcome && outcome !== record.id) {
      const found = await this.#read(outcome);
      if (found && holdsIdempotencyKey(found)) return { record: found, created: false };
      // The job failed for the service's reasons (it releases its key), or the key outlived its job (both expire
      // together, so only by a hair): start afresh, unless another submission took the key meanwhile.
      await this.#redis.eval(RELEASE_KEY_SCRIPT, 1, idemKey, outcome);
      return this.create(record, idempotencyKey, reserveBytes);
    }
    if (reserveBytes > 0) this.#written.set(record.id, 0);
    if (record.owner) {
      const owned = this.#ownerKey(record.owner);
      await this.#redis.multi().zadd(owned, 0, record.id).pexpire(owned, this.#ttlMs).exec();
    }
    return { record: { ...record }, created: true };
  }

  async #read(id: string): Promise<JobRecord | undefined> {
    const record = fromHash(await this.#redis.hgetall(this.#jobKey(id)));
    return record ? withLease(record) : undefined;
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const raw = fromHash(await this.#redis.hgetall(this.#jobKey(id)));
    if (!raw) {
      const missing = missingJobError(id, this.#ttlMs);
      if (missing) throw missing;
      return undefined;
    }
    const record = withLease(raw);
    // The process running it died: the job reads as failed, and a failed job keeps no partial result.
    if (record.status === 'failed' && raw.status !== 'failed') await this.clearResult(id);
    return record;
  }

  /** Moves the expiry of the job, its results and the indexes to `at` (epoch ms). */
  async #refreshExpiry(id: string, at: number): Promise<void> {
    const owner = await this.#redis.hget(this.#jobKey(id), 'owner');
    const multi = this.#redis.multi();
    if (owner) multi.pexpire(this.#ownerKey(owner), this.#ttlMs);
    multi.pexpireat(this.#jobKey(id), at);
    for (const part of RESULT_PARTS) multi.pexpireat(this.#resultKey(id, part), at);
    multi.zadd(this.#indexKey(), at, id);
    multi.pexpire(this.#indexKey(), this.#ttlMs);
    multi.pexpire(this.#ledgerKey(), this.#ttlMs);
    await multi.exec();
  }

  async update(id: string, patch: JobPatch, attempt?: number): Promise<void> {
    const fields = toHash(patch);
    if (fields.length === 0) return;
    // Only a job that still exists, and a final status stays (the script): a late progress write changes nothing.
    const args = [patch.status ?? '', attempt ?? '', ...fields];
    const written = await this.#redis.eval(UPDATE_SCRIPT, 1, this.#jobKey(id), ...args);
    if (written === -1) throw new JobFencedError(id, attempt!);
    if (written !== 1) return;
    // A finished job is kept TTL from its end; an unfinished one never expires while its owner renews its lease.
    const final = patch.status !== undefined && FINAL_STATUSES.has(patch.status);
    if (final || patch.expires_at !== undefined) {
      await this.#refreshExpiry(
        id,
        patch.expires_at === undefined ? Date.now() + this.#ttlMs : Date.parse(patch.expires_at),
      );
    }
  }

  /**
   * Writes `fields` when the unfinished job is still `instance`'s (the script), moving it to its next attempt when
   * `next`: the job's attempt then, undefined when not written.
   */
  async #take(id: string, instance: string, next: boolean, fields: Record<string, unknown>) {
    const args = toHash(fields);
    const attempt = await this.#redis.eval(TAKE_SCRIPT, 1, this.#jobKey(id), instance, next ? '1' : '0', ...args);
    return attempt === null ? undefined : Number(attempt);
  }

  async renew(id: string, instance: string, leaseUntil: number, expiresAt: string): Promise<boolean> {
    const fields = { lease_until: leaseUntil, expires_at: expiresAt };
    if ((await this.#take(id, instance, false, fields)) === undefined) return false;
    await this.#refreshExpiry(id, Date.parse(expiresAt));
    return true;
  }

  /** The job for a fresh run of `to`, if it is still `from`'s: its partial results are deleted, its reservation kept. */
  async #handOver(id: string, from: string, to: string, leaseUntil: number): Promise<JobRecord | undefined> {
    const current = fromHash(await this.#redis.hgetall(this.#jobKey(id)));
    if (current === undefined || FINAL_STATUSES.has(current.status) || (current.instance ?? '') !== from)
      return undefined;
    const fresh = freshRun(current, to, leaseUntil);
    if (to !== '') fresh.expires_at = new Date(Date.now() + this.#ttlMs).toISOString();
    // The script moves the attempt on, from the job as it is then (`current` may be an attempt behind by now).
    const { id: _id, attempt: _attempt, ...fields } = fresh;
    const attempt = await this.#take(id, from, true, fields);
    if (attempt === undefined) return undefined;
    const next = { ...fresh, attempt };
    this.#written.delete(id);
    await this.#redis.del(...RESULT_PARTS.map((part) => this.#resultKey(id, part)));
    if (to !== '') await this.#refreshExpiry(id, Date.parse(next.expires_at!));
    return next;
  }

  claim(id: string, from: string, to: string, leaseUntil: number): Promise<JobRecord | undefined> {
    return this.#handOver(id, from, to, leaseUntil);
  }

  async release(id: string, instance: string): Promise<void> {
    await this.#handOver(id, instance, '', Date.now()); // its grace runs from now
  }

  async #grow(id: string, total: number, attempt: number | undefined): Promise<void> {
    const memoryFree = await this.#memoryFree();
    const already = Number((await this.#redis.hget(this.#ledgerKey(), id)) ?? 0);
    if (total <= already) return;
    if (total - already > memoryFree) throw storeFullError('Redis maxmemory', total, memoryFree + already);
    const outcome = (await this.#redis.eval(
      GROW_SCRIPT,
      3,
      this.#indexKey(),
      this.#ledgerKey(),
      this.#jobKey(id),
      id,
      String(Date.now()),
      String(this.#maxBytes),
      String(total),
      String(this.#ttlMs),
      attempt ?? '',
    )) as [number] | -1 | null;
    if (outcome === -1) throw new JobFencedError(id, attempt!);
    if (Array.isArray(outcome)) {
      throw storeFullError('JOBS_MAX_REDIS_BYTES in Redis', total, this.#maxBytes - Number(outcome[0]));
    }
  }

  async appendResult(id: string, segment: Buffer, part: ResultPart, attempt?: number): Promise<void> {
    // Counted before the awaits: the parts of one job are appended concurrently.
    const written = (this.#written.get(id) ?? 0) + segment.length;
    this.#written.set(id, written);
    await this.#grow(id, written, attempt);
    const key = this.#resultKey(id, part);
    const args = [attempt ?? '', String(this.#ttlMs), segment];
    if ((await this.#redis.eval(APPEND_SCRIPT, 2, this.#jobKey(id), key, ...args)) === -1) {
      throw new JobFencedError(id, attempt!);
    }
  }

  async settleResult(id: string, attempt?: number): Promise<void> {
    const written = this.#written.get(id);
    this.#written.delete(id);
    if (written === undefined) return;
    const keys = [this.#jobKey(id), this.#ledgerKey()];
    if ((await this.#redis.eval(SETTLE_SCRIPT, 2, ...keys, id, attempt ?? '', String(written))) === -1) {
      throw new JobFencedError(id, attempt!);
    }
  }

  async clearResult(id: string, attempt?: number): Promise<void> {
    this.#written.delete(id);
    const keys = [this.#jobKey(id), this.#ledgerKey(), ...RESULT_PARTS.map((part) => this.#resultKey(id, part))];
    if ((await this.#redis.eval(CLEAR_SCRIPT, keys.length, ...keys, id, attempt ?? '')) === -1) {
      throw new JobFencedError(id, attempt!);
    }
  }

  async *#segments(id: string, part: ResultPart): AsyncIterable<Buffer> {
    const key = this.#resultKey(id, part);
    const total = await this.#redis.llen(key);
    for (let i = 0; i < total; i++) {
      const [segment] = await this.#redis.lrangeBuffer(key, i, i);
      if (segment === undefined) throw new Error(`job ${id}'s result expired while it was being read`);
      yield segment;
    }
  }

  readResult(id: string, part: ResultPart): AsyncIterable<Buffer> {
    return gunzipSegments(this.#segments(id, part));
  }

  async list(owner: string, query: JobListQuery): Promise<JobRecord[]> {
    const key = this.#ownerKey(owner);
    const out: JobRecord[] = [];
    let before = query.before === undefined ? '+' : `(${query.before}`;
    while (out.length < query.limit) {
      const ids = await this.#redis.zrevrangebylex(key, before, '-', 'LIMIT', 0, query.limit - out.length);
      if (ids.length === 0) break;
      const pipe = this.#redis.pipeline();
      for (const id of ids) pipe.hgetall(this.#jobKey(id));
      const rows = (await pipe.exec()) ?? [];
      const gone: string[] = [];
      ids.forEach((id, i) => {
        const record = rows[i]?.[0] ? undefined : fromHash(rows[i]?.[1] as Record<string, string>);
        if (record) out.push(withLease(record));
        else gone.push(id);
      });
      if (gone.length > 0) await this.#redis.zrem(key, ...gone);
      before = `(${ids[ids.length - 1] as string}`;
    }
    return out;
  }

  readResultGzip(id: string, part: ResultPart): AsyncIterable<Buffer> {
    return this.#segments(id, part);
  }

  async headroom(): Promise<StoreHeadroom> {
    const usedBytes = Number(
      await this.#redis.eval(SUM_SCRIPT, 2, this.#indexKey(), this.#ledgerKey(), String(Date.now())),
    );
    const capacityBytes = Math.min(this.#maxBytes, usedBytes + (await this.#memoryFree()));
    return { usedBytes, capacityBytes, freeBytes: Math.max(0, capacityBytes - usedBytes) };
  }

  async counts(): Promise<Record<JobStatus, number>> {
    const out = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    const index = this.#indexKey();
    await this.#redis.zremrangebyscore(index, '-inf', Date.now());
    const ids = await this.#redis.zrevrange(index, 0, 9999);
    if (ids.length === 0) return out;
    const pipe = this.#redis.pipeline();
    for (const id of ids) pipe.hmget(this.#jobKey(id), 'status', 'lease_until');
    const rows = (await pipe.exec()) ?? [];
    const now = Date.now();
    for (const [err, value] of rows) {
      if (err) continue;
      const [status, lease] = value as [string | null, string | null];
      if (!status) continue;
      const s = status as JobStatus;
      const abandoned = (s === 'queued' || s === 'running') && Number(lease ?? 0) + RESUME_GRACE_MS < now;
      out[abandoned ? 'failed' : s]++;
    }
    return out;
  }

  async close(): Promise<void> {
    // The connection belongs to the queue runner, which closes it.
  }
}
