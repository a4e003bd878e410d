/**
 * Groups the records of a bulk file into students: a student is a run of contiguous rows with the same
 * student_id (one row per term). Runs on the pipeline's thread, so it only looks at the student_id cell.
 *
 *  - A student_id that reappears after other students is an error for that later run of rows ("rows are not
 *    contiguous"), never merged with the earlier run. Streaming means the earlier run was already calculated and
 *    written by then; the error message names the line where the id first appeared so both can be found.
 *  - A run longer than MAX_ROWS_PER_STUDENT rows is cut into segments that are all errors, so one id repeated on
 *    a million rows cannot hold a million rows in memory.
 *  - Rows with an empty student_id are grouped like any other id (and rejected by validation).
 */
import { recordCell, type CsvRecord } from './csv-reader.ts';
import type { EncodedStudent, StudentError } from './chunk-payload.ts';

/** More rows than this for one student is an error (a student has at most 4 terms). */
export const MAX_ROWS_PER_STUDENT = 64;

/**
 * The set of student_ids seen so far, kept as two independent 32-bit hashes (64 bits) and the first line, in
 * typed arrays: about 24 bytes per student instead of a few hundred for a Set of strings. Two different ids
 * are taken for the same one only if both hashes collide (probability about n²/2⁶⁵: 10⁻⁷ for 2 million ids),
 * and then the later one is reported as not contiguous — an error row, never a wrong amount.
 */
export class StudentIdSet {
  private mask: number;
  private h1: Uint32Array;
  private h2: Uint32Array;
  private lines: Uint32Array;
  private count = 0;

  constructor(initialCapacity = 4096) {
    let cap = 16;
    while (cap < initialCapacity) cap <<= 1;
    this.mask = cap - 1;
    this.h1 = new Uint32Array(cap);
    this.h2 = new Uint32Array(cap);
    this.lines = new Uint32Array(cap);
  }

  get size(): number {
    return this.count;
  }

  /** Adds `id` first seen on `line` (≥ 1); returns 0 when it was new, else the line where it was first seen. */
  addOrGet(id: string, line: number): number {
    let a = 0x811c9dc5;
    let b = 0x9747b28c ^ id.length;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    a >>>= 0;
    b = (b ^ (b >>> 15)) >>> 0;
    let slot = (a ^ (b >>> 7)) & this.mask;
    for (;;) {
      const seen = this.lines[slot]!;
      if (seen === 0) break;
      if (this.h1[slot] === a && this.h2[slot] === b) return seen;
      slot = (slot + 1) & this.mask;
    }
    this.h1[slot] = a;
    this.h2[slot] = b;
    this.lines[slot] = Math.max(1, Math.min(line, 0xffffffff));
    this.count++;
    if (this.count * 4 > (this.mask + 1) * 3) this.grow();
    return 0;
  }

  private grow(): void {
    const { h1, h2, lines } = this;
    const cap = (this.mask + 1) * 2;
    this.mask = cap - 1;
    this.h1 = new Uint32Array(cap);
    this.h2 = new Uint32Array(cap);
    this.lines = new Uint32Array(cap);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === 0) continue;
      const a = h1[i]!;
      const b = h2[i]!;
      let slot = (a ^ (b >>> 7)) & this.mask;
      while (this.lines[slot] !== 0) slot = (slot + 1) & this.mask;
      this.h1[slot] = a;
      this.h2[slot] = b;
      this.lines[slot] = line;
    }
  }
}

function shortId(id: string): string {
  return JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id);
}

/** Hands each completed student to `emit` with the number of cell characters it holds. */
export class StudentGrouper {
  private readonly idIndex: number;
  private readonly emit: (student: EncodedStudent, chars: number) => void;
  private readonly seen = new StudentIdSet();
  private current: EncodedStudent | undefined;
  private currentId = '';
  private currentChars = 0;
  /** Number of students handed out. */
  students = 0;

  constructor(idIndex: number, emit: (student: EncodedStudent, chars: number) => void) {
    this.idIndex = idIndex;
    this.emit = emit;
  }

  /** Adds one data record; `rowError` marks the row as an error row (e.g. over the row limit). */
  add(record: CsvRecord, rowError?: string): void {
    const id = recordCell(record, this.idIndex);
    const error = record.error ?? rowError;
    let student = this.current;
    if (student !== undefined && id === this.currentId) {
      if (student.l.length >= MAX_ROWS_PER_STUDENT) {
        // Cut an over-long run; this segment and every following one of the run are errors.
        const x: StudentError = {
          f: 'student_id',
          m:
            `student_id ${shortId(id)} has more than ${MAX_ROWS_PER_STUDENT} consecutive rows; a student has one ` +
            'row per term and at most 4 terms',
        };
        student.x = x;
        this.flush();
        student = { l: [], c: [], x };
        this.current = student;
        this.currentId = id;
      }
    } else {
      this.flush();
      student = { l: [], c: [] };
      if (id !== '') {
        const firstLine = this.seen.addOrGet(id, record.line);
        if (firstLine !== 0) {
          student.x = {
            f: 'student_id',
            m:
              `rows are not contiguous: student_id ${shortId(id)} already appeared on line ${firstLine}; all rows ` +
              'of a student must be adjacent (this later group of rows was not calculated)',
          };
        }
      }
      this.current = student;
      this.currentId = id;
    }
    if (error !== undefined) {
      student.e ??= new Array<string | null>(student.l.length).fill(null);
      student.e.push(error);
    } else if (student.e !== undefined) {
      student.e.push(null);
    }
    student.l.push(record.line);
    if (record.raw !== undefined) {
      student.c.push(record.raw);
      this.currentChars += record.raw.length;
    } else {
      student.c.push(record.cells);
      let chars = 0;
      for (const cell of record.cells) chars += cell.length + 1;
      this.currentChars += chars;
    }
  }

  /** Emits the student in progress, if any. */
  flush(): void {
    if (this.current === undefined || this.current.l.length === 0) return;
    const student = this.current;
    const chars = this.currentChars;
    this.current = undefined;
    this.currentChars = 0;
    this.students++;
    this.emit(student, chars);
  }
}
