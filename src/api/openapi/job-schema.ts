/**
 * The Job resource in the OpenAPI document (what src/api/job-view.ts writes) and its example: a completed nightly
 * job as GET /v1/jobs/{id} shows it.
 */
import { z } from 'zod';
import { JOB_ID_PATTERN } from '../../jobs/job-id.ts';
import type { JobRecord } from '../../jobs/job-store.ts';
import { CHECK_REASONS } from '../../domain/readings.ts';
import { DEFAULT_POLICY } from '../../domain/policy.ts';
import { RULE_SET_ID } from '../../domain/rule-set.ts';
import { FIRST_LINES, MAX_ERROR_GROUPS, OVERFLOW_MESSAGE, SIBLING_ERROR_MESSAGE } from '../../bulk/result-stats.ts';
import { CheckSummarySchema } from '../../schema/response.ts';
import { PolicyInForceSchema } from '../../schema/policy.ts';
import { jobView } from '../job-view.ts';
import { EVENT_TYPES } from '../../webhooks/event.ts';

export const JobStatusSchema = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']).meta({
  id: 'JobStatus',
  description:
    'queued → running → completed | failed | cancelled. `cancelled`: DELETE /v1/jobs/{id} stopped it (or removed ' +
    'the results of a finished job). A job whose API process stopped resumes when the service runs again (see ' +
    'POST /v1/jobs); one that cannot (its upload is gone) reads failed.',
});

const JobErrorSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    field_errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'JobError', description: 'Why the job failed: the same envelope a synchronous bulk request returns.' });

const LoanTotalsSchema = z
  .object({ subsidized: z.int().min(0), unsubsidized: z.int().min(0), grad_plus: z.int().min(0) })
  .meta({ id: 'LoanTotals', description: 'Whole dollars per loan type.' });

const count = (description: string) => z.int().min(0).meta({ description });
const nullableCount = (description: string) => z.int().min(0).nullable().meta({ description });

const JobCountsSchema = z
  .object({
    students: nullableCount('Students in the file (runs of one student_id); null until counted.'),
    rows: nullableCount('Data rows in the file; null when it could not be counted.'),
    rows_ok: count('Rows calculated so far (row_status ok).'),
    error_rows: count('Rows with row_status error so far (bad student data; the job still completes).'),
    students_ok: nullableCount('Students calculated so far (null on jobs stored before these counts existed).'),
    students_with_errors: nullableCount('Students whose rows are error rows so far (null as students_ok).'),
    check: z
      .object({
        match: z.int().min(0),
        mismatch: z.int().min(0),
        not_checked: z.int().min(0),
        reasons: z
          .strictObject(
            Object.fromEntries(CHECK_REASONS.map((r) => [r, z.int().min(0)])) as Record<
              (typeof CHECK_REASONS)[number],
              z.ZodInt
            >,
          )
          .meta({ description: 'Mismatched students by check_reason, every reason listed.' }),
      })
      .nullable()
      .meta({ description: 'The shadow check by student (files with sis_* columns); null otherwise.' }),
  })
  .meta({ id: 'JobCounts', description: 'Counts of the job; they grow while it runs and are final once it ends.' });

const JobSummarySchema = z
  .object({
    students_reduced: count('Calculated students whose reduced_annual_pct is below 100.'),
    students_not_reduced: count('Calculated students at 100%.'),
    totals: z
      .object({
        equal: LoanTotalsSchema.meta({ description: "The sum of every calculated student's total_equal." }),
        proportional: LoanTotalsSchema.meta({
          description:
            "The sum of every calculated student's total_proportional: the proportional amounts where that " +
            'option is offered and the equal amounts where it is not, i.e. what the school would schedule ' +
            'choosing proportional wherever it may.',
        }),
      })
      .meta({ description: 'Dollars scheduled over every term of the calculated students, by option.' }),
    reduced_annual_pct: z
      .array(z.object({ from: z.int().min(0).max(100), to: z.int().min(0).max(100), students: z.int().min(0) }))
      .length(11)
      .meta({ description: 'Calculated students by reduced_annual_pct: 0–9, 10–19, …, 90–99, and 100 alone.' }),
  })
  .meta({
    id: 'JobSummary',
    description:
      'What the calculated students add up to, counted as the result is written: it grows while the job runs ' +
      'and is final once it ends. Students with errors are not in it. Null on jobs stored before it existed.',
  });

const ErrorGroupSchema = z
  .object({
    field: z.string().meta({ description: 'The CSV column the problem is about; `row` for a row as a whole.' }),
    message: z.string(),
    rows: z.int().min(1).meta({ description: 'Error rows with this problem.' }),
    first_lines: z
      .array(z.int().min(1))
      .max(FIRST_LINES)
      .meta({ description: `The file lines of its first ${FIRST_LINES} rows, in file order.` }),
  })
  .meta({
    id: 'JobErrorGroup',
    description:
      `Error rows grouped by column and message. A row counts once in each group of its own problems; a row ` +
      `with none of its own, in a student with errors, is in the group "${SIBLING_ERROR_MESSAGE}". At most ` +
      `${MAX_ERROR_GROUPS} groups; the rows of further kinds are counted in one last group, "${OVERFLOW_MESSAGE}".`,
  });

const link = (description: string) => z.string().meta({ description });

const JobLinksSchema = z
  .object({
    self: link('This job.'),
    result: link('The result in the format asked at submission (the Accept header).'),
    result_csv: link('The CSV result.').nullable(),
    result_ndjson: link('The NDJSON result.').nullable(),
    errors_csv: link('The errors-only CSV: the CSV header and the error rows, nothing else.').nullable(),
  })
  .meta({
    id: 'JobLinks',
    description:
      'Where to download what the job made; each answers 409 until the job is completed. The job computes every ' +
      'student once and writes all three files. null: a job stored before every format was kept has its own only.',
  });

const JobCallbackSchema = z
  .object({
    url: z.string().meta({ description: 'Where the events go, without its query: `https://hooks.example.edu/sor?…`.' }),
    state: z.enum(['pending', 'delivered', 'failed']).meta({
      description:
        'pending: the job runs, or an attempt is due; delivered: a 2xx came back; failed: no attempt succeeded ' +
        'within the retry window (24 h after the job ended).',
    }),
    next_attempt_at: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'null while the job runs, while an attempt is under way, and once settled.' }),
    attempts: z.array(
      z.object({
        at: z.iso.datetime(),
        event: z.enum(EVENT_TYPES),
        status: z.int().nullable().meta({ description: "The receiver's HTTP status; null when none came back." }),
        error: z.string().nullable(),
      }),
    ),
  })
  .meta({
    id: 'JobCallback',
    description: 'The webhook announcing the end of the job (the jobEnded webhook), and every delivery attempt.',
  });

export const JobSchema = z
  .object({
    id: z.string().regex(new RegExp(JOB_ID_PATTERN)),
    object: z.literal('job'),
    status: JobStatusSchema,
    format: z
      .enum(['csv', 'ndjson'])
      .meta({ description: 'Result format, chosen by the Accept header at submission.' }),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    expires_at: z.iso
      .datetime()
      .nullable()
      .meta({
        description:
          'When the job and its results are deleted: JOB_TTL_SECONDS after it finished (while it has not, that long ' +
          'after its last sign of life: it never expires while it runs). null only on jobs stored before it existed.',
      }),
    rule_set: z.string().nullable().meta({ description: 'The rule set the job calculates with (X-Rule-Set).' }),
    policy: PolicyInForceSchema,
    progress: z.object({
      students_done: z.int().min(0),
      students_total: z.int().min(0).nullable().meta({ description: 'null until the file has been counted.' }),
      rows_done: z.int().min(0).meta({ description: 'Output rows written so far.' }),
      error_rows: z.int().min(0).meta({ description: 'Rows with row_status error so far (bad student data).' }),
    }),
    counts: JobCountsSchema,
    summary: JobSummarySchema.nullable(),
    error_groups: z
      .array(ErrorGroupSchema)
      .nullable()
      .meta({ description: 'The error rows grouped, the largest groups first (null on older jobs).' }),
    error: JobErrorSchema.nullable(),
    links: JobLinksSchema,
    callback: JobCallbackSchema.nullable().meta({ description: 'null: the job has no callback.' }),
    status_url: z.string().meta({ description: 'links.self (kept for existing clients).' }),
    result_url: z.string().meta({ description: 'links.result (kept for existing clients).' }),
    check_summary: CheckSummarySchema.optional(),
  })
  .meta({ id: 'Job' });

/** A completed job of 5,000 students (12,000 rows, 96 of them error rows in 40 students), as stored. */
const EXAMPLE_RECORD: JobRecord = {
  id: '019ab3f2c4d07b1c9a2f4e6d8c0b1a3f5e7d9c2b4a6f8e0d1c3b',
  status: 'completed',
  format: 'csv',
  created_at: '2026-11-24T02:00:03.120Z',
  started_at: '2026-11-24T02:00:03.410Z',
  finished_at: '2026-11-24T02:00:09.877Z',
  expires_at: '2026-11-25T02:00:09.877Z',
  rule_set: RULE_SET_ID,
  students_done: 5000,
  students_total: 5000,
  rows_done: 12000,
  rows_total: 12000,
  error_rows: 96,
  error: null,
  fingerprint: '',
  lease_until: 0,
  owner: '',
  policy: DEFAULT_POLICY,
  all_outputs: true,
  stats: {
    students_ok: 4960,
    students_with_errors: 40,
    students_reduced: 1200,
    equal: { subsidized: 11_240_310, unsubsidized: 14_876_220, grad_plus: 0 },
    proportional: { subsidized: 11_239_870, unsubsidized: 14_875_640, grad_plus: 0 },
    pct: [3, 41, 96, 110, 150, 288, 170, 102, 132, 108, 3760],
    error_groups: [
      { field: 'credits_enrolled', message: 'is required', rows: 52, first_lines: [142, 208, 239, 311, 402] },
      { field: 'row', message: SIBLING_ERROR_MESSAGE, rows: 44, first_lines: [141, 207, 240, 310, 401] },
    ],
  },
};

/** GET /v1/jobs/{id} of the example job. */
export const JOB_EXAMPLE = jobView(EXAMPLE_RECORD);
