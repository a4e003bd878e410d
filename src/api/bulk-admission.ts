/**
 * How many bulk computations run at once in this process (BULK_MAX_CONCURRENT). A request beyond the limit is
 * answered 503 `service_busy` with Retry-After, after its upload was received and checked (spooling costs disk,
 * not memory; computing is what holds memory: chunks in flight, output buffers, pool threads' work).
 *
 * The memory bound this enforces: a computation holds at most BULK_MAX_INFLIGHT_CHUNKS chunks between submission
 * and the end of their write, each a payload (~0.25 MB per 1,000 students, on a recycled SharedArrayBuffer) and,
 * once run, an output (~2 MB per 1,000 students for CSV), so ~18 MB at the defaults, whatever the file's size (the
 * prescan's map of non-contiguous students is the only thing that grows, with those students only). The pool
 * threads and their 8 spare output buffers are shared. Measured (bench/bulk.ts --concurrent 4, `npm start` flags,
 * machine loaded): one 1M-student upload 247 MB peak RSS, 4 × 100k at once 305 MB, 4 × 1M at once 351 MB.
 */
import { appError } from '../errors.ts';

/** Seconds a client is asked to wait before retrying a request refused as busy. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

export class BulkAdmission {
  private readonly limit: number;
  private active = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get running(): number {
    return this.active;
  }

  /** Takes a slot; the returned function gives it back (once). Throws the 503 when all slots are taken. */
  enter(): () => void {
    if (this.active >= this.limit) {
      throw appError('SERVICE_BUSY', { limit: this.limit, retryAfter: BUSY_RETRY_AFTER_SECONDS });
    }
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }
}
