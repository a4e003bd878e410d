/**
 * The /readyz check of the async job store: its headroom for results. Not ready when a job of even the
 * smallest reservation could not be accepted (the store is full: new jobs get job_store_full until results
 * expire).
 */
import type { StoreHeadroom } from './result-quota.ts';
import { MIN_RESERVATION_BYTES, describeHeadroom } from './result-quota.ts';

/** The check, shaped as /readyz takes it (api/context.ts ReadinessCheck) without jobs/ depending on the HTTP layer. */
export interface StoreReadinessCheck {
  name: 'jobs-store';
  check(): Promise<{ ok: boolean; detail: string }>;
}

export function jobsStoreReadiness(source: { headroom(): Promise<StoreHeadroom> }): StoreReadinessCheck {
  return {
    name: 'jobs-store',
    async check() {
      const h = await source.headroom();
      return { ok: h.freeBytes >= MIN_RESERVATION_BYTES, detail: describeHeadroom(h) };
    },
  };
}
