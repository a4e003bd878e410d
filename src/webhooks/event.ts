/**
 * The event a webhook delivers when a job ends:
 *
 *   {"id": "evt_…", "type": "job.completed" | "job.failed" | "job.cancelled", "created": <unix s>,
 *    "data": {…the job resource, as GET /v1/jobs/{id} shows it, without its `callback`…}}
 *
 * Made once, when the job ends (or when the sweep finds it ended); every attempt sends the same bytes, so a
 * receiver can deduplicate by `id`. `data` leaves out `callback` (the state of this very delivery, stale the
 * moment it is sent); the job's status URL shows it.
 */
import { randomBytes } from 'node:crypto';
import type { JobRecord } from '../jobs/job-store.ts';
import type { EventType, OutboxEvent } from './outbox.ts';

/** Every event type. */
export const EVENT_TYPES = ['job.completed', 'job.failed', 'job.cancelled'] as const satisfies readonly EventType[];

/** The job resource of a record (the API's view; injected so this room does not import the HTTP layer). */
export type JobViewFn = (record: JobRecord) => object;

/** The event type of a job that ended; undefined while it has not. */
export function eventTypeOf(record: Pick<JobRecord, 'status' | 'error'>): EventType | undefined {
  const status: string = record.status;
  if (status === 'completed') return 'job.completed';
  if (status === 'cancelled' || (status === 'failed' && record.error?.code === 'job_cancelled')) {
    return 'job.cancelled';
  }
  if (status === 'failed') return 'job.failed';
  return undefined;
}

/** `evt_` and 24 hex digits (96 random bits). */
export function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

/** The event of an ended job, with its body as it will be sent. */
export function makeEvent(record: JobRecord, type: EventType, view: JobViewFn, now: number): OutboxEvent {
  const { callback: _callback, ...data } = view(record) as Record<string, unknown>;
  const id = newEventId();
  const body = JSON.stringify({ id, type, created: Math.floor(now / 1000), data });
  return { id, type, body, endedAt: now };
}
