/**
 * Shared pieces of the job stores' result accounting: the error a job gets when its result cannot be stored,
 * how much room a job reserves up front, and the headroom report /readyz shows.
 */
import { type AppError, appError } from '../errors.ts';

/**
 * Room a job reserves for its gzip-compressed results before it starts, per byte of upload. A job keeps both
 * formats and its error rows, compressed at RESULT_GZIP_LEVEL (src/jobs/job-run.ts); measured: the CSV result is
 * 0.78–0.95× the upload, the NDJSON result 1.15–1.17×, the error rows next to nothing (20,000 students of
 * test/queue/csv-gen.ts; 100,000 of bench:bulk's random file). Results that outgrow their reservation ask for more
 * while they are written and fail clearly when there is none.
 */
export const RESERVE_PER_UPLOAD_BYTE = 2.2;
/** Never reserve less than this (tiny files still write a gzip header and a CSV header). */
export const MIN_RESERVATION_BYTES = 64 * 1024;

export function reservationFor(uploadBytes: number): number {
  return Math.max(MIN_RESERVATION_BYTES, Math.ceil(uploadBytes * RESERVE_PER_UPLOAD_BYTE));
}

export interface StoreHeadroom {
  /** Bytes of results stored or reserved. */
  usedBytes: number;
  /** The most this store may hold now (its quota, or less when the disk or Redis memory has less room). */
  capacityBytes: number;
  freeBytes: number;
}

const MiB = 1024 * 1024;

/** "12.0 MiB free of 4096.0 MiB" */
export function describeHeadroom(h: StoreHeadroom): string {
  return `${(h.freeBytes / MiB).toFixed(1)} MiB free of ${(h.capacityBytes / MiB).toFixed(1)} MiB for job results`;
}

/** A job whose result does not fit: refused up front (503) or failed with this code while it runs. */
export function storeFullError(where: string, neededBytes: number, freeBytes: number): AppError {
  return appError('JOB_STORE_FULL', {
    where,
    neededMiB: Math.ceil(neededBytes / MiB),
    freeMiB: Math.max(0, Math.floor(freeBytes / MiB)),
  });
}
