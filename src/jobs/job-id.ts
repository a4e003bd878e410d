/**
 * Async job ids that carry their creation time, so a job whose records are gone can be told apart:
 *
 *   tttttttt-tttt-8rrr-vrrr-rrrrcccccccc   (UUID layout, version 8: t = creation time in ms, 48 bits;
 *                                           r = 42 random bits; c = a 32-bit check over t and r)
 *
 * The check is not a secret: it tells an id this service issued from a mistyped or invented one (those stay
 * 404 not_found). For an id that passes it and has no records:
 *   - created less than JOB_TTL_SECONDS ago: the records cannot have expired yet (a job lives at least its TTL
 *     from creation), so they were lost (a Redis restart without persistence, an API restart without Redis):
 *     410 job_lost, "submit the file again";
 *   - older: it expired (404 not_found, "expired").
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';

function check(time: string, random: string): string {
  return createHash('sha256').update(`sor-job-id:${time}:${random}`).digest('hex').slice(0, 8);
}

/** A new job id created at `now` (epoch ms). */
export function newJobId(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0').slice(-12);
  const r = randomBytes(6);
  // 42 random bits: 12 after the version nibble, 14 after the 2 variant bits, 16 in the last group.
  const a = ((r[0] as number) << 4) | ((r[1] as number) >> 4); // 12 bits
  const b = (((r[1] as number) & 0x0f) << 10) | ((r[2] as number) << 2) | ((r[3] as number) >> 6); // 14 bits
  const c = (((r[3] as number) & 0x3f) << 10) | ((r[4] as number) << 2) | ((r[5] as number) >> 6); // 16 bits
  const random = `${a.toString(16).padStart(3, '0')}${b.toString(16).padStart(4, '0')}${c.toString(16).padStart(4, '0')}`;
  const variant = (0x8000 | b).toString(16); // 10bb bbbb bbbb bbbb
  return (
    `${time.slice(0, 8)}-${time.slice(8, 12)}-8${a.toString(16).padStart(3, '0')}-${variant}-` +
    `${c.toString(16).padStart(4, '0')}${check(time, random)}`
  );
}

const LAYOUT = /^([0-9a-f]{8})-([0-9a-f]{4})-8([0-9a-f]{3})-([89ab][0-9a-f]{3})-([0-9a-f]{4})([0-9a-f]{8})$/;

/** The creation time (epoch ms) of an id issued by newJobId, or undefined for any other string. */
export function jobIdCreatedAt(id: string): number | undefined {
  const m = LAYOUT.exec(id);
  if (!m) return undefined;
  const [, t1, t2, a, v, c, sum] = m as unknown as [string, string, string, string, string, string, string];
  const b = Number.parseInt(v, 16) & 0x3fff;
  const time = `${t1}${t2}`;
  const random = `${a}${b.toString(16).padStart(4, '0')}${c}`;
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
    return new AppError(
      'job_lost',
      410,
      'This job was accepted but its records were lost (the job store restarted without keeping them). ' +
        'Submit the file again.',
    );
  }
  return new AppError(
    'not_found',
    404,
    'This job has expired: jobs and their results are kept for JOB_TTL_SECONDS after they finish.',
  );
}
