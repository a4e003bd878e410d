/** An upload handed to the async jobs (src/jobs/async-jobs.ts submit): received, checked and spooled. */
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import type { PolicyChoices } from '../domain/policy.ts';

export interface SpooledUpload {
  /** Path of the spooled file; the service owns it from submit() on (moves it to the job's files, or deletes it). */
  path: string;
  /** sha256 over the bytes and the reading options: scopes the Idempotency-Key. */
  sha256: string;
  /** Size in bytes (the results' reservation is derived from it). */
  bytes: number;
  /** Students in the file (the progress total), null when unknown. */
  students: number | null;
  /** Data rows in the file (its prescan), null when unknown. */
  rows?: number | null;
  /** Students whose rows are not contiguous, from the upload's prescan (the run does not read the file for them). */
  nonContiguous?: ReadonlyMap<string, number>;
  /** How the file is written (charset, delimiter, extra columns) and the output's BOM; default v1 UTF-8 CSV. */
  dialect?: CsvDialect;
  /** The file's own school-policy options (`policy.<option>` parameters), over the deployment's SOR_POLICY. */
  policy?: PolicyChoices;
}
