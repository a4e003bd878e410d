/**
 * How many bulk computations run at once in this process (BULK_MAX_CONCURRENT). A request beyond the limit is
 * answered 503 `service_busy` with Retry-After, after its upload was received and checked (spooling costs disk,
 * not memory; computing is what holds memory: chunks in flight, output buffers, pool threads' work).
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
