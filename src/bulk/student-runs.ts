/**
 * The order of a file's students, as the upload check (prescan.ts) sees it: how many students the pipeline will
 * compute (runs of contiguous rows with one student_id, cut every MAX_ROWS_PER_STUDENT rows as the grouper cuts
 * them), the students whose rows are not contiguous, and whether the file is sorted by term.
 *
 * A file sorted by term (every student's Fall rows, then every student's Spring rows) puts nearly every student's
 * rows in separate places. Computed, it would be error rows from top to bottom, each saying its student's rows
 * are not contiguous: nothing a registrar can act on row by row. So when MORE THAN HALF of the file's distinct
 * students have rows in separate places, the file as a whole is refused (400 CSV_SORTED_BY_TERM) before any row
 * is computed, with the sentence that says to sort it by student. Half, because a term-sorted file splits every
 * student that has more than one term: even a file where most students have a single term (which a sort by term
 * cannot split) stays above half as long as most have two or more, while a file with a few misplaced students
 * (a hand edit, an appended correction) is far below it and keeps the per-student error rows that name the lines.
 */
import { appError, type AppError } from '../errors.ts';
import { MAX_ROWS_PER_STUDENT, StudentIdSet } from './group-students.ts';

/** More than this share of the distinct students non-contiguous: the file is sorted by term (see above). */
export const TERM_SORTED_SHARE = 0.5;

function shortId(id: string): string {
  return JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id);
}

export class StudentRuns {
  /** Every student_id seen, with its first line; dropped by end() (only `nonContiguous` outlives the scan). */
  private seen: StudentIdSet | undefined = new StudentIdSet();
  private distinct = 0;
  /** student_id → line where it first appeared, for every student whose rows are not contiguous. */
  readonly nonContiguous = new Map<string, number>();
  /** The first student found in separate places: where it first was, and where it came back. */
  private firstSplit: { id: string; first: number; again: number } | undefined;
  private lastId: string | undefined;
  private segmentRows = 0;
  /** Students as the pipeline's grouper counts them (its progress counts the same). */
  students = 0;

  /** One data row, its student_id and its line. */
  add(id: string, line: number): void {
    if (id === this.lastId) {
      // The grouper cuts an over-long run into segments of MAX_ROWS_PER_STUDENT rows, each computed as a student.
      if (++this.segmentRows <= MAX_ROWS_PER_STUDENT) return;
      this.segmentRows = 1;
      this.students++;
      return;
    }
    this.lastId = id;
    this.segmentRows = 1;
    this.students++;
    if (id === '') return;
    const first = this.seen!.addOrGet(id, line);
    if (first === 0) {
      this.distinct++;
    } else if (!this.nonContiguous.has(id)) {
      this.nonContiguous.set(id, first);
      this.firstSplit ??= { id, first, again: line };
    }
  }

  /** The 400 of a file sorted by term (see above), or undefined. Drops the set of ids. */
  end(): AppError | undefined {
    this.seen?.release();
    this.seen = undefined;
    const split = this.nonContiguous.size;
    if (this.firstSplit === undefined || split <= this.distinct * TERM_SORTED_SHARE) return undefined;
    const { id, first, again } = this.firstSplit;
    return appError(
      'CSV_SORTED_BY_TERM',
      { split, students: this.distinct, id: shortId(id), first, again },
      {
        fieldErrors: [
          {
            field: 'student_id',
            message: `${split} of ${this.distinct} students have their rows in separate places: sort the file by student_id`,
          },
        ],
      },
    );
  }
}
