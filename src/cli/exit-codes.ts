/** The `sor` exit statuses, for local and remote runs alike: 0 all rows ok, 2 some rows are error rows (or the
 * request is invalid, or the shadow check found a student whose sis_* figures differ from the rules), 1 the run
 * failed. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_ROW_ERRORS = 2;
