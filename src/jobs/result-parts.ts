/**
 * The results a job stores: `result` in the format it was asked for, `alternate` in the other format, `errors` the
 * errors-only CSV (the CSV header and the error rows). Jobs stored before the alternate and errors results existed
 * have `result` only (JobRecord.all_outputs unset).
 */
export type ResultPart = 'result' | 'alternate' | 'errors';
export const RESULT_PARTS: readonly ResultPart[] = ['result', 'alternate', 'errors'];
