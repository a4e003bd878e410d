/**
 * The wire view of an async job (the Job schema of src/api/openapi/jobs-paths.ts): GET /v1/jobs/{id}, the 202 of
 * POST /v1/jobs, the items of GET /v1/jobs and the `data` of a webhook event. Everything in it is read from the
 * job's record (src/jobs/job-store.ts); `extras` adds what other modules keep about the job (its callback's
 * deliveries, src/webhooks/).
 */
import { DEFAULT_POLICY } from '../domain/policy.ts';
import type { ErrorGroup, ResultStats } from '../bulk/result-stats.ts';
import type { CheckSummary } from '../bulk/shadow-summary.ts';
import type { JobRecord } from '../jobs/job-store.ts';

export const JOBS_PATH = '/v1/jobs';

/** The download paths of a job, relative to its own path. */
export const RESULT_PATHS = {
  result: 'result',
  result_csv: 'result.csv',
  result_ndjson: 'result.ndjson',
  errors_csv: 'errors.csv',
} as const;

/** What the webhooks keep about a job's callback (shown as `callback`). */
export interface JobCallbackView {
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  next_attempt_at: string | null;
  attempts: { at: string; event: string; status: number | null; error: string | null }[];
}

export interface JobViewExtras {
  callback?: JobCallbackView | null;
}

/** Where the routes get a job's extras from (the webhooks' deliveries); none: no extras. */
export type JobExtrasSource = (job: JobRecord) => JobViewExtras | Promise<JobViewExtras>;

/** The view of `job` with the extras `source` keeps about it. */
export async function viewWithExtras(job: JobRecord, source: JobExtrasSource | undefined) {
  return jobView(job, source === undefined ? {} : await source(job));
}

/** reduced_annual_pct buckets as the summary shows them: 0–9, 10–19, …, 90–99, 100. */
function pctBuckets(pct: readonly number[]) {
  return pct.map((students, i) => ({ from: i * 10, to: i === pct.length - 1 ? 100 : i * 10 + 9, students }));
}

function summaryOf(stats: ResultStats) {
  return {
    students_reduced: stats.students_reduced,
    students_not_reduced: stats.students_ok - stats.students_reduced,
    totals: { equal: { ...stats.equal }, proportional: { ...stats.proportional } },
    reduced_annual_pct: pctBuckets(stats.pct),
  };
}

/** The groups with the most rows first (input order among equals). */
function errorGroupsOf(groups: readonly ErrorGroup[]): ErrorGroup[] {
  return groups
    .map((g, i) => ({ g, i }))
    .sort((a, b) => b.g.rows - a.g.rows || a.i - b.i)
    .map(({ g }) => ({ field: g.field, message: g.message, rows: g.rows, first_lines: [...g.first_lines] }));
}

function checkCounts(check: CheckSummary) {
  return {
    match: check.match,
    mismatch: check.mismatch,
    not_checked: check.not_checked,
    reasons: { ...check.by_reason },
  };
}

function linksOf(job: JobRecord) {
  const self = `${JOBS_PATH}/${job.id}`;
  // A job stored before every result part existed has its own format's result only.
  const all = job.all_outputs === true;
  const has = (format: 'csv' | 'ndjson') => all || job.format === format;
  return {
    self,
    result: `${self}/${RESULT_PATHS.result}`,
    result_csv: has('csv') ? `${self}/${RESULT_PATHS.result_csv}` : null,
    result_ndjson: has('ndjson') ? `${self}/${RESULT_PATHS.result_ndjson}` : null,
    errors_csv: all ? `${self}/${RESULT_PATHS.errors_csv}` : null,
  };
}

/** The wire view of a job (see the top of this file). */
export function jobView(job: JobRecord, extras: JobViewExtras = {}) {
  const stats = job.stats ?? undefined;
  const links = linksOf(job);
  return {
    id: job.id,
    object: 'job' as const,
    status: job.status,
    format: job.format,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    expires_at: job.expires_at ?? null,
    rule_set: job.rule_set ?? null,
    policy: job.policy ?? DEFAULT_POLICY,
    progress: {
      students_done: job.students_done,
      students_total: job.students_total,
      rows_done: job.rows_done,
      error_rows: job.error_rows,
    },
    counts: {
      students: job.status === 'completed' ? job.students_done : job.students_total,
      rows: job.status === 'completed' ? job.rows_done : (job.rows_total ?? null),
      rows_ok: job.rows_done - job.error_rows,
      error_rows: job.error_rows,
      students_ok: stats?.students_ok ?? null,
      students_with_errors: stats?.students_with_errors ?? null,
      check: job.check_summary ? checkCounts(job.check_summary) : null,
    },
    summary: stats === undefined ? null : summaryOf(stats),
    error_groups: stats === undefined ? null : errorGroupsOf(stats.error_groups),
    error: job.error,
    links,
    callback: extras.callback ?? null,
    status_url: links.self,
    result_url: links.result,
    ...(job.check_summary ? { check_summary: job.check_summary } : {}),
  };
}

export type JobView = ReturnType<typeof jobView>;
