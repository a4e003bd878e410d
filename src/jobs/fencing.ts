/**
 * Fencing of a job's runs. A process whose lease ran out while it was stalled (a long GC pause, SIGSTOP, a lost
 * Redis connection while it renewed) is still alive and may wake up after another process claimed the job and ran
 * it again. Every claim (and every hand-back at shutdown) moves the job to its next attempt (JobRecord.attempt),
 * atomically with the change of its instance; a run knows the attempt it was started for, and every write it makes
 * (progress, result segments, the reservation's settling, its final status) is applied by the store only while that
 * attempt is still the job's, otherwise refused with JobFencedError. The run that meets the refusal stops quietly
 * (one log line, no status, no webhook): the job is the new attempt's.
 * The local store also writes each attempt's results to their own files (src/jobs/local-results.ts), because a
 * file append cannot be made atomic with the check in SQLite: a stale append lands in its own attempt's file, which
 * no download reads and the sweep deletes. In Redis the check and the append are one Lua script.
 */
/** The attempt of a job's first run; records written before attempts were stored are on it. */
export const FIRST_ATTEMPT = 1;

/** The job's current attempt (of a JobRecord, src/jobs/job-store.ts). */
export function attemptOf(record: { attempt?: number }): number {
  return record.attempt ?? FIRST_ATTEMPT;
}

/** A write of a run whose attempt is no longer the job's (another process claimed the job since). */
export class JobFencedError extends Error {
  readonly jobId: string;
  readonly attempt: number;

  constructor(jobId: string, attempt: number) {
    super(`job ${jobId}: attempt ${attempt} is no longer the job's current run`);
    this.name = 'JobFencedError';
    this.jobId = jobId;
    this.attempt = attempt;
  }
}

export function isFenced(err: unknown): err is JobFencedError {
  return err instanceof JobFencedError;
}
