/**
 * A job's `callback` as the job resource shows it (contract D): where its events go, the delivery's state, when
 * the next attempt is due, and every attempt made.
 */
import type { DeliveryAttempt, OutboxEntry } from './outbox.ts';

export interface CallbackView {
  /** Where the events go, its query (which may hold a token) left out: `https://hooks.example.edu/sor?…`. */
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  /** When the next attempt is due; null while the job runs, while an attempt is under way, and once settled. */
  next_attempt_at: string | null;
  attempts: DeliveryAttempt[];
}

/** The URL as shown: origin and path, `?…` for a query. */
export function shownUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.origin}${url.pathname}${url.search === '' ? '' : '?…'}`;
  } catch {
    return '(not shown)';
  }
}

/**
 * The view of a job's outbox entry; without one (not written yet), the job's own callback_url as pending; null
 * for a job without a callback.
 */
export function callbackViewOf(entry: OutboxEntry | undefined, url: string | null | undefined): CallbackView | null {
  if (entry === undefined) {
    return url ? { url: shownUrl(url), state: 'pending', next_attempt_at: null, attempts: [] } : null;
  }
  const state = entry.state === 'waiting' ? 'pending' : entry.state;
  const due = entry.state === 'pending' && !entry.inFlight ? entry.nextAttemptAt : null;
  return {
    url: shownUrl(entry.url),
    state,
    next_attempt_at: due === null ? null : new Date(due).toISOString(),
    attempts: entry.attempts,
  };
}
