/**
 * Async job ids carry their creation time, so a job whose records are gone can be told apart, and 128 random
 * bits, because until access control exists the id is what lets its holder download the job's student data:
 *
 *   tttttttttttt rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr cccccccc   (52 lower-case hex digits, no separators:
 *                                                             t = creation time in ms, 48 bits;
 *                                                             r = 128 random bits; c = a 32-bit check over t and r)
 *
 * The check is not a secret: it tells an id this service issued from a mistyped or invented one (those stay
 * 404 not_found). For an id that passes it and has no records:
 *   - created less than JOB_TTL_SECONDS ago: the records cannot have expired yet (a job lives at least its TTL
 *     from creation), so they were lost (a Redis restart without persistence, an API restart without Redis):
 *     410 job_lost, "submit the file again";
 *   - older: it expired (404 not_found, "expired").
 */
import { createHash, randomBytes } from 'node:crypto';
import { type AppError, appError } from '../errors.ts';

/** The shape of every job id (JSON Schema pattern for the OpenAPI document and route validation). */
export const JOB_ID_PATTERN = '^[0-9a-f]{52}$';
const LAYOUT = /^([0-9a-f]{12})([0-9a-f]{32})([0-9a-f]{8})$/;

function check(time: string, random: string): string {
  return createHash('sha256').update(`sor-job-id:${time}:${random}`).digest('hex').slice(0, 8);
}

/** A new job id created at `now` (epoch ms). */
export function newJobId(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0').slice(-12);
  const random = randomBytes(16).toString('hex');
  return `${time}${random}${check(time, random)}`;
}

/** The creation time (epoch ms) of an id issued by newJobId, or undefined for any other string. */
export function jobIdCreatedAt(id: string): number | undefined {
  const m = LAYOUT.exec(id);
  if (!m) return undefined;
  const [, time, random, sum] = m as unknown as [string, string, string, string];
  if (check(time, random) !== sum) return undefined;
  return Number.parseInt(time, 16);
}

/**
 * What to answer for a job id that has no records: job_lost (410) when they cannot have expired yet, not_found
 * (404, expired) when they may have, undefined when the id is not one of ours (the caller's plain 404).
 */
export function missingJobError(id: string, ttlMs: number, now = Date.now()): AppError | undefined {
  const created = jobIdCreatedAt(id);
  if (created === undefined) return undefined;
  if (now < created + ttlMs) {
    return appError('JOB_LOST');
  }
  return appError('JOB_EXPIRED');
}
