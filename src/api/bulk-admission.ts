/**
 * Admission of uploads and bulk computations in this process, each refusal a 503 `service_busy` with Retry-After:
 *
 *   SpoolingGate   uploads being received into the spool at once (UPLOAD_MAX_SPOOLING), bulk and jobs together:
 *                  each holds a socket and a spool file descriptor while its body arrives, so the cap bounds the
 *                  descriptors slow uploads can take (UPLOADS_BUSY). Checked before the spool file is opened.
 *   BulkAdmission  bulk files computing at once (BULK_MAX_CONCURRENT), checked after the upload was received and
 *                  checked (spooling costs disk, not memory; computing is what holds memory: chunks in flight,
 *                  output buffers, pool threads' work) (SERVICE_BUSY). A small-file lane of
 *                  BULK_SMALL_MAX_CONCURRENT more slots takes only files of at most BULK_SMALL_FILE_ROWS data rows,
 *                  so large files holding every slot (clients that stopped reading hold theirs until
 *                  BULK_STALL_TIMEOUT_MS, src/api/response-stall.ts) never starve small ones.
 *
 * The memory bound BulkAdmission enforces: a computation holds at most BULK_MAX_INFLIGHT_CHUNKS chunks between
 * submission and the end of their write, each a payload (~0.25 MB per 1,000 students, on a recycled
 * SharedArrayBuffer) and, once run, an output (~2 MB per 1,000 students for CSV), so ~18 MB at the defaults,
 * whatever the file's size (the prescan's map of non-contiguous students is the only thing that grows, with those
 * students only). The pool threads and their 8 spare output buffers are shared. Measured (bench/bulk.ts
 * --concurrent 4, `npm start` flags, machine loaded): one 1M-student upload 247 MB peak RSS, 4 × 100k at once
 * 305 MB, 4 × 1M at once 351 MB. A small file's computation holds at most its own rows.
 */
import { appError } from '../errors.ts';

/** Seconds a client is asked to wait before retrying a request refused as busy. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/** A counter of slots: `take` gives back a function that returns the slot (once), or undefined when full. */
class Slots {
  readonly limit: number;
  private active = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get taken(): number {
    return this.active;
  }

  take(): (() => void) | undefined {
    if (this.active >= this.limit) return undefined;
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }
}

export interface BulkLanes {
  /** BULK_MAX_CONCURRENT: files of any size. */
  limit: number;
  /** BULK_SMALL_MAX_CONCURRENT: more slots, for small files only (0: no lane). */
  smallLimit?: number;
  /** BULK_SMALL_FILE_ROWS: the most data rows a file of the small lane has. */
  smallRows?: number;
}

export class BulkAdmission {
  private readonly general: Slots;
  private readonly small: Slots;
  private readonly smallRows: number;

  constructor(lanes: number | BulkLanes) {
    const l = typeof lanes === 'number' ? { limit: lanes } : lanes;
    this.general = new Slots(l.limit);
    this.small = new Slots(l.smallLimit ?? 0);
    this.smallRows = l.smallRows ?? 0;
  }

  /** Files computing now, both lanes. */
  get running(): number {
    return this.general.taken + this.small.taken;
  }

  /** Files computing now in the small-file lane. */
  get runningSmall(): number {
    return this.small.taken;
  }

  /**
   * Takes a slot for a file of `rows` data rows: a small file first from its own lane (keeping the general slots
   * for large files), then from the general one. The returned function gives it back (once). Throws the 503 when
   * no slot is free.
   */
  enter(rows = Number.POSITIVE_INFINITY): () => void {
    const leave = (rows <= this.smallRows ? this.small.take() : undefined) ?? this.general.take();
    if (leave === undefined) {
      throw appError('SERVICE_BUSY', { limit: this.general.limit, retryAfter: BUSY_RETRY_AFTER_SECONDS });
    }
    return leave;
  }
}

/** UPLOAD_MAX_SPOOLING: uploads whose body is being received into the spool at once. */
export class SpoolingGate {
  private readonly slots: Slots;

  constructor(limit: number) {
    this.slots = new Slots(limit);
  }

  get spooling(): number {
    return this.slots.taken;
  }

  /** Takes a place for one upload; the returned function gives it back (once). Throws the 503 when full. */
  enter(): () => void {
    const leave = this.slots.take();
    if (leave === undefined) {
      throw appError('UPLOADS_BUSY', { limit: this.slots.limit, retryAfter: BUSY_RETRY_AFTER_SECONDS });
    }
    return leave;
  }
}
