/**
 * The retry schedule: exponential waits from the base, capped, jittered between half and all of the nominal
 * wait, and no attempt after the window that began when the job ended. The defaults (30 s, 1 h, 24 h) give the
 * schedule the docs print.
 */
import { describe, expect, it } from 'vitest';
import { nextAttemptAt, nominalWait } from '../../src/webhooks/retry-schedule.ts';

const DEFAULTS = { baseMs: 30_000, maxMs: 3_600_000, windowMs: 86_400_000 };
const MIN = 60_000;

describe('retry schedule', () => {
  it('doubles from 30 s and stays at 1 h', () => {
    const waits = Array.from({ length: 10 }, (_, i) => nominalWait(i + 1, DEFAULTS));
    expect(waits).toEqual([30_000, MIN, 2 * MIN, 4 * MIN, 8 * MIN, 16 * MIN, 32 * MIN, 60 * MIN, 60 * MIN, 60 * MIN]);
    expect(nominalWait(500, DEFAULTS)).toBe(60 * MIN);
  });

  it('draws each wait between half and all of the nominal wait', () => {
    expect(nextAttemptAt(3, 0, 1000, DEFAULTS, () => 0)).toBe(1000 + MIN);
    expect(nextAttemptAt(3, 0, 1000, DEFAULTS, () => 1)).toBe(1000 + 2 * MIN);
    expect(nextAttemptAt(3, 0, 1000, DEFAULTS, () => 0.5)).toBe(1000 + 1.5 * MIN);
  });

  it('makes no attempt after the window: the delivery is given up', () => {
    const endedAt = 0;
    expect(nextAttemptAt(30, endedAt, DEFAULTS.windowMs - 30 * MIN, DEFAULTS, () => 1)).toBeNull();
    expect(nextAttemptAt(30, endedAt, DEFAULTS.windowMs - 90 * MIN, DEFAULTS, () => 1)).toBe(
      DEFAULTS.windowMs - 30 * MIN,
    );
  });

  it('with the longest waits, tries about 30 times over 24 hours', () => {
    let now = 0;
    let attempts = 1; // the first, when the job ended
    for (;;) {
      const next = nextAttemptAt(attempts, 0, now, DEFAULTS, () => 1);
      if (next === null) break;
      now = next;
      attempts++;
    }
    // 1 + 7 waits up to 32 min (63.5 min in all), then one an hour until 24 h: 1 + 7 + 22 = 30.
    expect(attempts).toBe(30);
  });
});
