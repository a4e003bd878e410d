/** A job record as a running process writes it, for the tests that put records straight into a store. */
import { newJobId } from '../../src/jobs/job-id.ts';
import type { JobRecord } from '../../src/jobs/job-store.ts';

/** Running since now, owned by `instance` with its lease ending at `leaseUntil`; `fields` override the rest. */
export function runningJob(instance: string, leaseUntil: number, fields: Partial<JobRecord> = {}): JobRecord {
  const now = new Date();
  return {
    id: newJobId(now.getTime()),
    status: 'running',
    format: 'csv',
    created_at: now.toISOString(),
    started_at: now.toISOString(),
    finished_at: null,
    expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
    students_done: 0,
    students_total: 2,
    rows_done: 0,
    error_rows: 0,
    error: null,
    fingerprint: 'f',
    lease_until: leaseUntil,
    owner: '',
    instance,
    all_outputs: true,
    ...fields,
  };
}
