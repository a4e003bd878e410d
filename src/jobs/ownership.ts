/**
 * Jobs belong to the token that submitted them (AUTH_MODE=required; docs/security.md, "Access control"). Another caller
 * gets exactly the answer of an id that does not exist (404 not_found, JOB_NOT_FOUND): it must not learn that the
 * job exists. Without access control every job's owner is '' and every caller is '': the id alone is the key.
 */
import { appError } from '../errors.ts';
import { JOB_ID_PATTERN } from './job-id.ts';
import type { JobListQuery, JobRecord, JobStore } from './job-store.ts';

const JOB_ID = new RegExp(JOB_ID_PATTERN);

/** At most this many jobs per page of GET /v1/jobs; DEFAULT_PAGE when the client does not say. */
export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;

/** The job `id` if `owner` owns it; JOB_NOT_FOUND otherwise (and for an id of the wrong shape). */
export async function ownedJob(store: JobStore, id: string | undefined, owner: string): Promise<JobRecord> {
  const job = id && JOB_ID.test(id) ? await store.get(id) : undefined;
  if (!job || (job.owner ?? '') !== owner) throw appError('JOB_NOT_FOUND');
  return job;
}

/** One page of the owner's jobs, newest first, and the cursor of the next page (undefined on the last). */
export async function ownedJobs(
  store: JobStore,
  owner: string,
  query: JobListQuery,
): Promise<{ jobs: JobRecord[]; next?: string }> {
  const limit = Math.min(Math.max(1, query.limit), MAX_PAGE);
  const before = query.before !== undefined && JOB_ID.test(query.before) ? query.before : undefined;
  const found = await store.list(owner, { limit: limit + 1, before });
  const jobs = found.slice(0, limit);
  return found.length > limit ? { jobs, next: jobs[jobs.length - 1]?.id } : { jobs };
}
