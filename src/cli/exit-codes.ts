/**
 * The `sor` exit statuses, for local and remote runs alike (docs/command-line.md and `sor --help` list them):
 *
 *   0  done: every row ok (or the command did what it says: a status printed, a job cancelled)
 *   1  a usage error, a local file that cannot be read or written, or a file refused before any row (bad header…)
 *   2  done, but some rows are error rows (or the request is invalid, or the shadow check found a mismatch)
 *   3  the service did not answer, or is unavailable for now (502, 503, 504): try again later
 *   4  the service refused the request (a 4xx: the file, an option, the token, an unknown or expired job, results
 *      not ready yet): change the request
 *   5  the job failed or was cancelled, or the service had an internal error (500)
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_ROW_ERRORS = 2;
export const EXIT_UNREACHABLE = 3;
export const EXIT_REFUSED = 4;
export const EXIT_JOB_FAILED = 5;

/** The exit statuses as `sor --help` and `sor jobs --help` print them. */
export const EXIT_STATUS_TEXT = `Exit status:
  0  done, every row ok (or the command did what it says)
  1  bad arguments, a file that cannot be read or written, or a file refused before any row (bad header…)
  2  done, but some rows are error rows (or the request is invalid, or a sis_* shadow check found a mismatch)
  3  the service did not answer or is unavailable for now (502, 503, 504): try again later
  4  the service refused the request (4xx: the file, an option, the token, an unknown or expired job)
  5  the job failed or was cancelled, or the service had an internal error
`;
