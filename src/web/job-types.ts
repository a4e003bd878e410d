/** The job resource of POST /v1/jobs and GET /v1/jobs/{id}, as the file tab reads it (docs/api.md, OpenAPI Job). */
import type { LoanAmounts } from './result-types.ts';

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface JobCheck {
  match: number;
  mismatch: number;
  not_checked: number;
  reasons: Record<string, number>;
}

export interface ErrorGroup {
  field: string;
  message: string;
  rows: number;
  first_lines: number[];
}

export interface Job {
  id: string;
  status: JobStatus;
  progress: { students_done: number; students_total: number | null; rows_done: number; error_rows: number };
  counts?: {
    students: number | null;
    rows: number | null;
    rows_ok: number;
    error_rows: number;
    students_ok: number | null;
    students_with_errors: number | null;
    check: JobCheck | null;
  };
  /** Null until the job has counted its first results. */
  summary?: {
    students_reduced: number;
    students_not_reduced: number;
    totals: { equal: LoanAmounts; proportional: LoanAmounts };
    reduced_annual_pct: { from: number; to: number; students: number }[];
  } | null;
  error_groups?: ErrorGroup[] | null;
  error: { code: string; message: string } | null;
  links?: {
    self: string;
    result: string;
    result_csv: string | null;
    result_ndjson: string | null;
    errors_csv: string | null;
  };
  policy?: Record<string, unknown>;
  created_at?: string;
  started_at?: string | null;
  finished_at?: string | null;
}

export const FINAL: ReadonlySet<JobStatus> = new Set(['completed', 'failed', 'cancelled']);
