/**
 * Deterministic bulk CSV files for the queue tests and bench/queue.ts: `students` students with 1-3 terms each,
 * varied enrollment, some students with invalid data (so error rows travel the queue too). The tests compare the
 * queue's output with the embedded pool's output for the same file byte for byte; no dollar is asserted here.
 */
import { mulberry32 } from '../support/prng.ts';

export const CSV_HEADER =
  'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,degree_level,grade_level,' +
  'academic_year_terms,subsidized_amount,cost_of_attendance\n';

const TERMS = ['Fall', 'Spring', 'Summer'];
const GRADES = ['first_year', 'second_year', 'third_year_and_beyond'];

/** The rows of student `i` (index from 0). */
function studentRows(i: number, rnd: () => number): string {
  const id = `S${String(i + 1).padStart(8, '0')}`;
  const terms = 1 + Math.floor(rnd() * 3);
  const dependency = rnd() < 0.5 ? 'dependent' : 'independent';
  const graduate = rnd() < 0.15;
  const degree = graduate ? 'graduate' : 'undergraduate';
  const grade = graduate ? '' : (GRADES[Math.floor(rnd() * 3)] ?? '');
  const sub = graduate ? '0' : String(Math.floor(rnd() * 4) * 1000 + 500);
  const coa = rnd() < 0.3 ? String(10_000 + Math.floor(rnd() * 30_000)) : '';
  const broken = rnd() < 0.02; // invalid credits → error rows for this student
  let out = '';
  for (let t = 0; t < terms; t++) {
    const ft = 12;
    const enrolled = broken && t === 0 ? '-3' : String(3 + Math.floor(rnd() * 10));
    const first = t === 0;
    out +=
      `${id},${TERMS[t]},${ft},${enrolled},${first ? dependency : ''},${first ? degree : ''},` +
      `${first ? grade : ''},${first ? String(Math.max(2, terms)) : ''},${first ? sub : ''},${first ? coa : ''}\n`;
  }
  return out;
}

/** The whole file as one string (for small files). */
export function makeCsv(students: number, seed = 1): string {
  const rnd = mulberry32(seed);
  let out = CSV_HEADER;
  for (let i = 0; i < students; i++) out += studentRows(i, rnd);
  return out;
}

/** The file as a stream of ~1 MiB pieces (for the 1M-student benchmark: never whole in memory). */
export function* csvPieces(students: number, seed = 1): Generator<string> {
  const rnd = mulberry32(seed);
  let buf = CSV_HEADER;
  for (let i = 0; i < students; i++) {
    buf += studentRows(i, rnd);
    if (buf.length >= 1 << 20) {
      yield buf;
      buf = '';
    }
  }
  if (buf.length > 0) yield buf;
}
