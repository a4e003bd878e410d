/**
 * The one random bulk-CSV generator of the benchmarks: seeded (the same file on every machine and run), streamed
 * in ~1 MiB pieces so a million-student file is never whole in memory. Students have 1-4 term rows, a mix of
 * degree levels, dependency, fractional credits, final credits and prior disbursements, and student-level values
 * either on the first row only or on every row. `invalidShare` makes that share of students invalid (negative
 * credits on the first term) so error rows travel the pipeline too; with 0 every student is valid.
 */
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { mulberry32 } from '../../test/support/prng.ts';

export const RANDOM_FILE_HEADER =
  'student_id,term_label,full_time_credits,credits_enrolled,actual_final_credits,prior_disbursement_sub,' +
  'prior_disbursement_unsub,prior_disbursement_grad_plus,dependency_status,degree_level,grade_level,' +
  'academic_year_terms,cost_of_attendance,is_legacy_borrower,plus_denied,subsidized_amount,total_limit';

export interface RandomFileOptions {
  students: number;
  /** PRNG seed (default 20260701). */
  seed?: number;
  /** Share of students made invalid, 0 to 1 (default 0: every student valid). */
  invalidShare?: number;
}

/** The rows of student `i`, each ending in a line feed. */
function studentRows(i: number, r: () => number, invalidShare: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const degree = r() < 0.8 ? 'undergraduate' : r() < 0.75 ? 'graduate' : 'professional';
  const undergrad = degree === 'undergraduate';
  const terms = 1 + Math.floor(r() * 4);
  const ayt = r() < 0.2 ? '' : String(Math.max(terms, 2 + Math.floor(r() * 3)));
  const ft = undergrad ? 12 : 9;
  const student = [
    r() < 0.7 ? 'dependent' : 'independent',
    degree,
    undergrad ? pick(['first_year', 'second_year', 'third_year_and_beyond']) : '',
    ayt,
    r() < 0.3 ? String(5000 + Math.floor(r() * 40000)) : '',
    !undergrad && r() < 0.2 ? 'yes' : 'no',
    r() < 0.05 ? 'true' : 'false',
    undergrad ? String(Math.floor(r() * 5500)) : '0',
    r() < 0.5 ? String(1000 + Math.floor(r() * 20000)) : '',
  ].join(',');
  const repeat = r() < 0.5;
  // Drawn only when asked for, so a file of valid students is the same for a seed whatever the option's history.
  const invalid = invalidShare > 0 && r() < invalidShare;
  const id = `S${String(i).padStart(8, '0')}`;
  let out = '';
  for (let t = 0; t < terms; t++) {
    const drawn = r() < 0.2 ? `${Math.floor(r() * 15)}.5` : String(Math.floor(r() * 16));
    const credits = invalid && t === 0 ? '-3' : drawn;
    const actual = r() < 0.1 ? String(Math.floor(r() * 16)) : '';
    const paid = t === 0 && r() < 0.1 ? String(Math.floor(r() * 1500)) : '';
    out += `${id},Term ${t + 1},${ft},${credits},${actual},${paid},,,${t === 0 || repeat ? student : ',,,,,,,,'}\n`;
  }
  return out;
}

/** The file (header first) as pieces of about 1 MiB. */
export function* randomFilePieces(options: RandomFileOptions): Generator<string> {
  const r = mulberry32(options.seed ?? 20260701);
  const invalidShare = options.invalidShare ?? 0;
  let buf = `${RANDOM_FILE_HEADER}\n`;
  for (let i = 0; i < options.students; i++) {
    buf += studentRows(i, r, invalidShare);
    if (buf.length > 1 << 20) {
      yield buf;
      buf = '';
    }
  }
  if (buf.length > 0) yield buf;
}

/** The whole file as one string (small files only). */
export function randomFileText(options: RandomFileOptions): string {
  return [...randomFilePieces(options)].join('');
}

/**
 * Writes the file to `path` unless it is already there (same options, same bytes: reused between runs). Written
 * to `path.tmp` first, so an interrupted run never leaves a truncated file behind.
 */
export async function writeRandomFile(path: string, options: RandomFileOptions): Promise<string> {
  if (existsSync(path)) return path;
  mkdirSync(dirname(path), { recursive: true });
  const out = createWriteStream(`${path}.tmp`);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  for (const piece of randomFilePieces(options)) {
    if (!out.write(piece)) await Promise.race([new Promise<void>((res) => out.once('drain', () => res())), failed]);
  }
  await Promise.race([new Promise<void>((res) => out.end(() => res())), failed]);
  renameSync(`${path}.tmp`, path);
  return path;
}
