/**
 * Resuming the jobs whose process stopped (src/jobs/async-jobs.ts runs this at start-up and every
 * RECOVER_EVERY_MS). For each upload in this process's JOBS_DIR (src/jobs/job-files.ts) that no run here holds:
 *  - the job is unfinished and orphaned: its instance released it at shutdown (''), its lease ran out, or its
 *    instance is a process of this host that is gone (a SIGKILL: no need to wait for the lease) → claimed
 *    (atomically: of several processes sharing the folder, one wins) and queued here for a fresh run from its
 *    upload;
 *  - the job is unfinished and its instance alive → left alone;
 *  - the job finished, or reads failed because no process resumed it in time → its upload is deleted;
 *  - there is no job (expired, or its process stopped between moving the upload and creating the job) → its
 *    upload is deleted once STRAY_UPLOAD_MS old.
 * With the local store, every process sharing JOBS_DIR sees every upload, so an orphaned job whose upload is gone
 * can never run again: it is marked failed at once (job_abandoned: submit the file again).
 */
import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import { keyTag } from '../log-tag.ts';
import { ABANDONED_ERROR, FINAL_STATUSES, type JobError, type JobRecord, type JobStore } from './job-store.ts';
import type { JobFiles, UploadFacts } from './job-files.ts';
import { instanceGone } from './instance.ts';

/** An upload without a job is deleted once this old (its job may be being created right now). */
export const STRAY_UPLOAD_MS = 2 * 60_000;

export interface RecoveryContext {
  store: JobStore;
  files: JobFiles;
  logger: Logger;
  /** This process's instance (src/jobs/instance.ts). */
  instance: string;
  leaseMs: number;
  /** True when a run of this process waits for or runs the job. */
  holds(id: string): boolean;
  /** Queues a claimed job here; false when this process no longer takes jobs (it will be released). */
  resume(record: JobRecord, path: string, facts: UploadFacts): boolean;
  /** Marks an orphaned job that can never run again failed, and announces it. */
  fail(id: string, error: JobError): Promise<void>;
}

/** The job's record, or undefined when it has none (expired, lost, never created); throws when the store fails. */
async function recordOf(store: JobStore, id: string): Promise<JobRecord | undefined> {
  try {
    return await store.get(id);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return undefined; // job_lost, not_found: no record
    throw err;
  }
}

/** True when no live process runs the job (this process's own jobs are always held, or about to be). */
function orphaned(record: JobRecord, now: number, self: string): boolean {
  const instance = record.instance ?? '';
  if (instance === self) return false;
  return instance === '' || record.lease_until < now || instanceGone(instance, self);
}

export async function recoverJobs(ctx: RecoveryContext): Promise<void> {
  const now = Date.now();
  for (const { id, mtimeMs } of await ctx.files.list()) {
    if (ctx.holds(id)) continue;
    const record = await recordOf(ctx.store, id);
    if (record === undefined) {
      if (now - mtimeMs >= STRAY_UPLOAD_MS) await ctx.files.remove(id);
      continue;
    }
    if (FINAL_STATUSES.has(record.status)) {
      await ctx.files.remove(id);
      continue;
    }
    if (!orphaned(record, now, ctx.instance)) continue;
    const facts = await ctx.files.facts(id);
    if (facts === undefined) continue;
    const claimed = await ctx.store.claim(id, record.instance ?? '', ctx.instance, Date.now() + ctx.leaseMs);
    if (claimed === undefined) continue; // another process was first, or it ended meanwhile
    const from = record.instance === '' ? 'released at shutdown' : 'its process stopped';
    if (ctx.resume(claimed, ctx.files.path(id), facts)) {
      ctx.logger.info({ job: keyTag(id), from }, 'async job resumed: it runs again from its upload');
    } else {
      await ctx.store.release(id, ctx.instance);
    }
  }
  await ctx.files.sweepStrays(STRAY_UPLOAD_MS, now);
  if (ctx.store.orphans === undefined) return;
  for (const record of await ctx.store.orphans(now)) {
    if (ctx.holds(record.id) || !orphaned(record, now, ctx.instance)) continue;
    if ((await ctx.files.facts(record.id)) !== undefined) continue; // resumed above, or by its neighbour
    ctx.logger.warn({ job: keyTag(record.id) }, 'async job: its upload is gone, it cannot run again');
    await ctx.fail(record.id, ABANDONED_ERROR);
  }
}
