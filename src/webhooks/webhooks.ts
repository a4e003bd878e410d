/**
 * Signed webhooks: when a job with a callback ends, its event (event.ts) is POSTed to the callback with a
 * Sor-Signature header (signature.ts), and retried with backoff (retry-schedule.ts) until a 2xx or the end of
 * the retry window; every attempt is on the job (`callback`).
 *
 *   submission   `checkCallback` checks a job's callback_url (callback-url.ts; without one, `deploymentUrl`,
 *                WEBHOOK_URL, is its callback); once the job exists, `register` writes its outbox entry (outbox.ts),
 *                waiting.
 *   job end      `jobEnded` (the jobs service's onJobEnded) makes the event and makes the entry due now.
 *   sweep        every SWEEP_EVERY_MS (and at start) the waiting entries are read against the job store: a job
 *                that ended without its event being queued (its process died in between) gets it now, and a job
 *                whose records are lost gets a job.failed event saying so (from the entry's snapshot), once the
 *                process that took it is gone (#endedRecord).
 *   delivery     every POLL_EVERY_MS (and at once when a job ends here) due entries are claimed (one process per
 *                attempt) and attempted, at most MAX_IN_FLIGHT at once per process (delivery.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError, appError, entryEnvelope } from '../errors.ts';
import { keyTag } from '../log-tag.ts';
import { metrics } from '../metrics.ts';
import type { JobRecord, JobStore } from '../jobs/job-store.ts';
import {
  CallbackRefusal,
  checkCallbackUrl,
  RESOLVE_TIMEOUT_MS,
  systemResolver,
  type Resolver,
} from './callback-url.ts';
import { attemptDelivery } from './attempt.ts';
import { callbackViewOf, type CallbackView } from './callback-view.ts';
import { eventTypeOf, makeEvent, type JobViewFn } from './event.ts';
import type { Claim, OutboxEntry, OutboxStore } from './outbox.ts';
import type { WebhookSettings } from './settings.ts';

/** Due entries are looked for this often (and at once when a job ends in this process). */
const POLL_EVERY_MS = 1000;
/** Waiting entries are read against the job store this often. */
const SWEEP_EVERY_MS = 15_000;
/** This instance tells the outbox it is alive this often (OutboxStore.alive; stale after INSTANCE_STALE_MS). */
const BEAT_EVERY_MS = 5000;
const SWEEP_BATCH = 100;
/** Attempts one process makes at once. */
const MAX_IN_FLIGHT = 8;
/** On close, attempts under way get this long to finish; the rest are handed back, due at once. */
const CLOSE_WAIT_MS = 5000;
/** Redis or the disk failing is logged at most this often. */
const STORE_WARN_EVERY_MS = 60_000;

/** A job record with the callback the jobs service stores with it. */
export type JobWithCallback = JobRecord & { callback_url?: string | null };

export interface WebhooksOptions {
  settings: WebhookSettings;
  store: OutboxStore;
  /** The job store: the sweep reads each waiting job's status from it. */
  jobs: Pick<JobStore, 'get'>;
  /** The job resource of a record (the API's jobView). */
  view: JobViewFn;
  logger: Logger;
  /** DNS (tests give their own). */
  resolve?: Resolver;
}

function originOf(text: string): string {
  try {
    return new URL(text).origin;
  } catch {
    return '(not a URL)';
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class Webhooks {
  readonly store: OutboxStore;
  readonly #settings: WebhookSettings;
  readonly #jobs: Pick<JobStore, 'get'>;
  readonly #view: JobViewFn;
  readonly #logger: Logger;
  readonly #resolve: Resolver;
  readonly #inFlight = new Map<string, { claim: Claim; done: Promise<void> }>();
  /** This process's webhooks: written on the entries it adds; its heartbeat tells the others it lives. */
  readonly #instance = randomBytes(8).toString('hex');
  #pollTimer: NodeJS.Timeout | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #beatTimer: NodeJS.Timeout | undefined;
  #ticking = false;
  #tickAgain = false;
  #sweeping: Promise<void> | undefined;
  #closed = false;
  #lastStoreWarning = 0;

  constructor(options: WebhooksOptions) {
    this.store = options.store;
    this.#settings = options.settings;
    this.#jobs = options.jobs;
    this.#view = options.view;
    this.#logger = options.logger.child({ component: 'webhooks' });
    this.#resolve = options.resolve ?? systemResolver;
  }

  /** How long a claim lasts: longer than any attempt (the lookup, then the request's own time limit). */
  get #leaseMs(): number {
    return RESOLVE_TIMEOUT_MS + this.#settings.timeoutMs + 30_000;
  }

  /**
   * Checks WEBHOOK_URL at start-up. Throws an Error naming the variable when it is refused; a lookup that fails
   * for a passing reason is only logged (each attempt checks again).
   */
  async checkDeploymentUrl(): Promise<void> {
    const url = this.#settings.deploymentUrl;
    if (url === undefined) return;
    try {
      await checkCallbackUrl(url, this.#settings.allow, this.#resolve);
    } catch (err) {
      if (!(err instanceof CallbackRefusal)) throw err;
      if (!err.transient) throw new Error(`Invalid configuration: WEBHOOK_URL ${err.reason}`);
      this.#logger.warn(
        { origin: originOf(url), reason: err.reason },
        'webhooks: WEBHOOK_URL could not be checked now',
      );
    }
    this.#logger.info(
      { origin: originOf(url) },
      'webhooks: every job without its own callback_url notifies WEBHOOK_URL',
    );
  }

  /** WEBHOOK_URL: the callback of a job submitted without its own; null when unset. */
  get deploymentUrl(): string | null {
    return this.#settings.deploymentUrl ?? null;
  }

  /** Checks a job's callback_url before the job is created: the URL, or the 400 (or the lookup's 503) AppError. */
  async checkCallback(callbackUrl: string): Promise<string> {
    try {
      await checkCallbackUrl(callbackUrl, this.#settings.allow, this.#resolve);
      return callbackUrl;
    } catch (err) {
      if (!(err instanceof CallbackRefusal)) throw err;
      if (err.transient) {
        throw appError('CALLBACK_DNS_UNAVAILABLE', { detail: err.reason, retryAfter: 30 }, { cause: err });
      }
      throw appError(
        'CALLBACK_URL_REFUSED',
        { reason: err.reason },
        { fieldErrors: [{ field: 'callback_url', message: err.reason }] },
      );
    }
  }

  /**
   * Writes the outbox entry of a job just created with a callback. Never throws: when the store fails, the job's
   * end writes the entry (jobEnded), so the event is still sent.
   */
  async register(record: JobRecord, url: string): Promise<void> {
    try {
      await this.store.add(this.#entry(record, url, Date.now()));
    } catch (err) {
      this.#storeWarning(err, 'could not write the outbox entry of a new job; it is written when the job ends');
    }
  }

  /** The jobs service's onJobEnded: the job's event is made and queued. Never throws (the sweep retries). */
  async jobEnded(record: JobWithCallback): Promise<void> {
    const url = record.callback_url;
    if (!url || this.#closed) return;
    try {
      if (await this.#queue(record, url)) this.kick();
    } catch (err) {
      this.#storeWarning(err, 'could not queue the event of a job that ended; the sweep queues it');
    }
  }

  #entry(record: JobRecord, url: string, now: number) {
    return { jobId: record.id, url, snapshot: record, createdAt: now, instance: this.#instance };
  }

  /** Makes and queues the event of an ended job; true when this call queued it. */
  async #queue(record: JobRecord, url: string): Promise<boolean> {
    const type = eventTypeOf(record);
    if (type === undefined) return false;
    const now = Date.now();
    const event = makeEvent(record, type, this.#view, now);
    let outcome = await this.store.ready(record.id, event, now);
    if (outcome === 'missing') {
      await this.store.add(this.#entry(record, url, now));
      outcome = await this.store.ready(record.id, event, now);
    }
    if (outcome === 'ready') {
      this.#logger.info({ job: keyTag(record.id), event: type, origin: originOf(url) }, 'webhooks: event queued');
    }
    return outcome === 'ready';
  }

  /** The `callback` of a job (callback-view.ts). */
  async callbackView(record: JobWithCallback): Promise<CallbackView | null> {
    return (await this.callbackViews([record])).get(record.id) ?? null;
  }

  /** The `callback` of several jobs (a page of GET /v1/jobs), one read of the store. */
  async callbackViews(records: readonly JobWithCallback[]): Promise<Map<string, CallbackView | null>> {
    const entries = await this.store.getMany(records.map((r) => r.id));
    return new Map(records.map((r) => [r.id, callbackViewOf(entries.get(r.id), r.callback_url)]));
  }

  /**
   * Starts delivering and sweeping (a first sweep at once: events a crash left unqueued go out now). Call it once
   * the jobs service has taken back the jobs it resumes, so the sweep sees them as they are.
   */
  start(): void {
    void this.#beat();
    this.#beatTimer = setInterval(() => void this.#beat(), BEAT_EVERY_MS);
    this.#beatTimer.unref();
    this.#pollTimer = setInterval(() => this.kick(), POLL_EVERY_MS);
    this.#pollTimer.unref();
    this.#sweepTimer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    this.#sweepTimer.unref();
    void this.sweep().then(() => this.kick());
  }

  async #beat(): Promise<void> {
    try {
      await this.store.beat(this.#instance, Date.now());
    } catch (err) {
      this.#storeWarning(err, 'could not record that this process is alive');
    }
  }

  /** Looks for due entries now. */
  kick(): void {
    if (this.#closed) return;
    if (this.#ticking) {
      this.#tickAgain = true;
      return;
    }
    this.#ticking = true;
    void this.#tick().finally(() => {
      this.#ticking = false;
      if (this.#tickAgain) {
        this.#tickAgain = false;
        this.kick();
      }
    });
  }

  async #tick(): Promise<void> {
    const free = MAX_IN_FLIGHT - this.#inFlight.size;
    if (free <= 0) return;
    let claims: Claim[];
    try {
      claims = await this.store.claimDue(Date.now(), this.#leaseMs, free);
    } catch (err) {
      this.#storeWarning(err, 'could not read the due deliveries');
      return;
    }
    for (const claim of claims) {
      const done = this.#attempt(claim).finally(() => {
        this.#inFlight.delete(claim.token);
        this.kick();
      });
      this.#inFlight.set(claim.token, { claim, done });
    }
  }

  async #attempt(claim: Claim): Promise<void> {
    const { entry } = claim;
    const { event } = entry;
    const { attempt, next } = await attemptDelivery(claim, this.#settings, this.#resolve);
    const now = Date.now();
    const outcome = { ok: next.state === 'delivered', status: attempt.status, error: attempt.error };
    const log = {
      job: keyTag(entry.jobId),
      event: event.type,
      origin: originOf(entry.url),
      attempt: entry.attempts.length + 1,
    };
    try {
      if (!(await this.store.settle(claim, attempt, next, now))) {
        this.#logger.warn(log, 'webhooks: the claim ran out before the attempt was recorded; it will be made again');
        return;
      }
    } catch (err) {
      this.#storeWarning(err, 'could not record a delivery attempt; it will be made again');
      return;
    }
    metrics.webhookAttempts.inc({
      outcome: outcome.ok ? 'delivered' : next.state === 'failed' ? 'given_up' : 'failed',
    });
    if (outcome.ok) this.#logger.info({ ...log, status: outcome.status }, 'webhooks: event delivered');
    else if (next.state === 'failed') {
      this.#logger.error({ ...log, status: outcome.status, error: outcome.error }, 'webhooks: delivery given up');
    } else {
      this.#logger.warn(
        { ...log, status: outcome.status, error: outcome.error, next: iso(next.nextAttemptAt) },
        'webhooks: delivery attempt failed; retrying',
      );
      const wait = (next.nextAttemptAt ?? now) - now;
      if (wait < POLL_EVERY_MS) setTimeout(() => this.kick(), wait).unref();
    }
  }

  /** Queues the event of every waiting job that ended (or whose records are lost). */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweepAll().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweepAll(): Promise<void> {
    let after: string | undefined;
    let queued = false;
    try {
      for (;;) {
        const batch = await this.store.waiting(after, SWEEP_BATCH);
        for (const entry of batch) {
          if (this.#closed) return;
          const record = await this.#endedRecord(entry);
          if (record !== undefined && (await this.#queue(record, entry.url))) queued = true;
        }
        if (batch.length < SWEEP_BATCH) break;
        after = batch[batch.length - 1]?.jobId;
      }
    } catch (err) {
      this.#storeWarning(err, 'the sweep of waiting deliveries failed; it runs again');
    }
    if (queued) this.kick();
  }

  /**
   * The record of a waiting entry's job if it ended; a job whose records are gone (lost or expired) reads as
   * failed with job_lost, from the snapshot taken at submission. Undefined while the job runs, or when the job
   * store cannot answer now. "Gone" is believed only from this instance, or once the instance that submitted the
   * job is gone too: a job store kept in each process's memory knows only its own jobs, so another process's
   * running job looks lost from here while that process lives.
   */
  async #endedRecord(entry: OutboxEntry): Promise<JobRecord | undefined> {
    let record: JobRecord | undefined;
    try {
      record = await this.#jobs.get(entry.jobId);
    } catch (err) {
      if (!(err instanceof AppError && (err.entry === 'JOB_LOST' || err.entry === 'JOB_EXPIRED'))) return undefined;
    }
    if (record !== undefined) return eventTypeOf(record) === undefined ? undefined : record;
    if (entry.instance !== this.#instance && (await this.store.alive(entry.instance, Date.now()))) return undefined;
    return {
      ...entry.snapshot,
      status: 'failed',
      finished_at: new Date().toISOString(),
      error: entryEnvelope('JOB_LOST'),
    };
  }

  #storeWarning(err: unknown, what: string): void {
    const now = Date.now();
    if (now - this.#lastStoreWarning < STORE_WARN_EVERY_MS) return;
    this.#lastStoreWarning = now;
    this.#logger.warn({ err }, `webhooks: ${what}`);
  }

  /** Stops: no new attempts; those under way get CLOSE_WAIT_MS, then are handed back (due at once elsewhere). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#pollTimer);
    clearInterval(this.#sweepTimer);
    clearInterval(this.#beatTimer);
    const running = [...this.#inFlight.values()];
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(running.map((r) => r.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    for (const { claim } of this.#inFlight.values()) await this.store.release(claim, Date.now()).catch(() => undefined);
    await this.#sweeping;
    await this.store.forget(this.#instance).catch(() => undefined);
  }
}
