/**
 * Rate limits as written in configuration and on tokens: `N/sec`, `N/min`, `N/hour` or `N/day` (RATE_LIMIT,
 * `sor token create --rate 600/min`). A limit counts cost units in a fixed window: a request costs 1; a bulk file
 * or a job costs 1 more per student, charged once its upload has been counted (docs/security.md, "Access control").
 */
export const RATE_WINDOWS = { sec: 1000, min: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type RateWindow = keyof typeof RATE_WINDOWS;

export interface Rate {
  limit: number;
  window: RateWindow;
  windowMs: number;
}

export const RATE_PATTERN = /^([1-9]\d{0,8})\/(sec|min|hour|day)$/;

/** The rate of `600/min`; undefined when the text is not a rate. */
export function parseRate(text: string): Rate | undefined {
  const m = RATE_PATTERN.exec(text.trim());
  if (!m) return undefined;
  const window = m[2] as RateWindow;
  return { limit: Number(m[1]), window, windowMs: RATE_WINDOWS[window] };
}

export function formatRate(rate: Rate): string {
  return `${rate.limit}/${rate.window}`;
}
