/**
 * When a failed delivery is tried again: exponential backoff with jitter, for a window after the job ended.
 * After the n-th failed attempt the wait is min(base × 2^(n−1), max), drawn at random between half of it and
 * all of it (so many receivers that failed together do not come back together). With the defaults (30 s, 1 h,
 * 24 h) the nominal waits are 30 s, 1 min, 2 min, 4 min, 8 min, 16 min, 32 min, then 1 h, until 24 h after the
 * job ended; an attempt that would fall after the window is not made, and the delivery is given up (`failed`).
 * Pure: the caller passes the clock and the random source.
 */

export interface RetrySettings {
  /** WEBHOOK_RETRY_BASE_MS: the nominal wait after the first failed attempt. */
  baseMs: number;
  /** WEBHOOK_RETRY_MAX_MS: the longest nominal wait. */
  maxMs: number;
  /** WEBHOOK_RETRY_WINDOW_MS: attempts are made for this long after the job ended. */
  windowMs: number;
}

/** The nominal wait after `failures` failed attempts (1 = after the first). */
export function nominalWait(failures: number, settings: Pick<RetrySettings, 'baseMs' | 'maxMs'>): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 40); // 2^40 × any base is past any max
  return Math.min(settings.baseMs * 2 ** exponent, settings.maxMs);
}

/**
 * The time (epoch ms) of the next attempt after `failures` failed attempts, or null when it would fall after the
 * window that began when the job ended (`endedAt`): the delivery is then given up.
 */
export function nextAttemptAt(
  failures: number,
  endedAt: number,
  now: number,
  settings: RetrySettings,
  random: () => number = Math.random,
): number | null {
  const nominal = nominalWait(failures, settings);
  const at = now + Math.round(nominal * (0.5 + 0.5 * random()));
  return at > endedAt + settings.windowMs ? null : at;
}
