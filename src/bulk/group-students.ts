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
 *  - A student whose rows hold more than `maxStudentChars` characters of cells is an error (never calculated),
 *    so no thread is handed a student larger than that budget to compute.
 */
import { recordCell, type CsvRecord } from './csv-record.ts';
import type { EncodedStudent, StudentError } from './chunk-payload.ts';

/** More rows than this for one student is an error (a student has at most 4 terms). */
export const MAX_ROWS_PER_STUDENT = 64;

/**
 * The set of student_ids seen so far with the line where each first appeared: EXACT (an id is reported as seen
 * only if that very id was added; hashes only pick the slot, every hit is confirmed by comparing the stored id)
 * and compact, since it is the one structure of the pipeline that grows with the file.
 *
 * Layout: an append-only byte arena holding, per id, a varint header (length × 2 + wide flag), the first line
 * (4 bytes, little-endian) and the id's characters (1 byte each when all are ≤ U+00FF, else 2 bytes each), and an
 * open-addressing table (linear probing, load ≤ 3/4) of arena offsets + 1 in a Uint32Array.
 *
 * Cost per student: 5 + L bytes in the arena (L = id length; 14 bytes for a 9-character id like S00000001) plus
 * 5.3–10.7 bytes of table slots, and up to 2× of both as doubling slack: about 20–50 bytes, 30 MB at most for a
 * million 9-character ids, all outside the JS heap (typed arrays), against ~100 bytes per entry for a Set of
 * strings. Both structures double when full (the old copy lives only during the copy).
 */
export class StudentIdSet {
  private mask: number;
  private table: Uint32Array<ArrayBuffer>;
  private arena: Uint8Array<ArrayBuffer>;
  private used = 0;
  private count = 0;

  constructor(initialCapacity = 4096) {
    let cap = 16;
    while (cap < initialCapacity) cap <<= 1;
    this.mask = cap - 1;
    this.table = new Uint32Array(cap);
    this.arena = new Uint8Array(cap * 16);
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held by the index (table and arena capacity). */
  get bytes(): number {
    return this.table.byteLength + this.arena.byteLength;
  }

  /**
   * Gives the memory back now (the set is empty afterwards): at a million students it holds ~24 MB, which would
   * otherwise stay resident until the thread's next full garbage collection, maybe the whole computation later.
   */
  release(): void {
    free(this.table);
    free(this.arena);
    this.table = new Uint32Array(16);
    this.arena = new Uint8Array(16);
    this.mask = 15;
    this.used = 0;
    this.count = 0;
  }

  /** Adds `id` first seen on `line` (≥ 1); returns 0 when it was new, else the line where it was first seen. */
  addOrGet(id: string, line: number): number {
    const len = id.length;
    let h = 0x811c9dc5 ^ len;
    let wide = 0;
    for (let i = 0; i < len; i++) {
      const c = id.charCodeAt(i);
      wide |= c;
      h = Math.imul(h ^ c, 0x01000193);
    }
    h = mix(h);
    const isWide = wide > 0xff ? 1 : 0;
    const header = len * 2 + isWide;
    const { table, arena } = this;
    let slot = h & this.mask;
    for (;;) {
      const entry = table[slot]!;
      if (entry === 0) break;
      let p = entry - 1;
      // Header varint.
      let v = 0;
      let shift = 1;
      let b: number;
      do {
        b = arena[p++]!;
        v += (b & 0x7f) * shift;
        shift *= 128;
      } while (b & 0x80);
      if (v === header && sameId(arena, p + 4, id, isWide)) {
        return (arena[p]! | (arena[p + 1]! << 8) | (arena[p + 2]! << 16) | (arena[p + 3]! << 24)) >>> 0;
      }
      slot = (slot + 1) & this.mask;
    }
    // New id: append header, line, characters.
    const need = 5 + 4 + len * (isWide + 1);
    if (this.used + need + 1 > this.arena.length) this.growArena(this.used + need + 1);
    const a = this.arena;
    const at = this.used;
    let p = at;
    let v = header;
    while (v >= 0x80) {
      a[p++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    a[p++] = v;
    const l = Math.max(1, Math.min(line, 0xffffffff));
    a[p++] = l & 0xff;
    a[p++] = (l >>> 8) & 0xff;
    a[p++] = (l >>> 16) & 0xff;
    a[p++] = (l >>> 24) & 0xff;
    if (isWide) {
      for (let i = 0; i < len; i++) {
        const c = id.charCodeAt(i);
        a[p++] = c & 0xff;
        a[p++] = c >>> 8;
      }
    } else {
      for (let i = 0; i < len; i++) a[p++] = id.charCodeAt(i);
    }
    this.used = p;
    table[slot] = at + 1;
    this.count++;
    if (this.count * 4 > (this.mask + 1) * 3) this.growTable();
    return 0;
  }

  private growArena(min: number): void {
    let cap = this.arena.length * 2;
    while (cap < min) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.arena.subarray(0, this.used));
    free(this.arena);
    this.arena = next;
  }

  /** Doubles the table, re-hashing every id from the arena (same hash as addOrGet, over the characters). */
  private growTable(): void {
    const cap = (this.mask + 1) * 2;
    const mask = cap - 1;
    const table = new Uint32Array(cap);
    const a = this.arena;
    let p = 0;
    while (p < this.used) {
      const at = p;
      let v = 0;
      let shift = 1;
      let b: number;
      do {
        b = a[p++]!;
        v += (b & 0x7f) * shift;
        shift *= 128;
      } while (b & 0x80);
      const isWide = v % 2;
      const len = (v - isWide) / 2;
      p += 4;
      let h = 0x811c9dc5 ^ len;
      if (isWide) {
        for (let i = 0; i < len; i++, p += 2) h = Math.imul(h ^ (a[p]! | (a[p + 1]! << 8)), 0x01000193);
      } else {
        for (let i = 0; i < len; i++) h = Math.imul(h ^ a[p++]!, 0x01000193);
      }
      let slot = mix(h) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = at + 1;
    }
    free(this.table);
    this.table = table;
    this.mask = mask;
  }
}

/** Frees a typed array's memory at once (detaching its buffer), instead of when it is garbage collected. */
function free(array: Uint8Array<ArrayBuffer> | Uint32Array<ArrayBuffer>): void {
  array.buffer.transfer(0);
}

/** Final avalanche (murmur3 fmix32) so the low bits used for the slot depend on every character. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Whether the characters stored at `p` (same length and width as `id`, checked by the caller) are `id`'s. */
function sameId(a: Uint8Array, p: number, id: string, isWide: number): boolean {
  const len = id.length;
  if (isWide) {
    for (let i = 0; i < len; i++, p += 2) if ((a[p]! | (a[p + 1]! << 8)) !== id.charCodeAt(i)) return false;
  } else {
    for (let i = 0; i < len; i++) if (a[p + i] !== id.charCodeAt(i)) return false;
  }
  return true;
}

function shortId(id: string): string {
  return JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id);
}

/** Hands each completed student to `emit` with the number of cell characters it holds. */
export class StudentGrouper {
  private readonly idIndex: number;
  private readonly emit: (student: EncodedStudent, chars: number) => void;
  /** The ids seen so far, when no prescan said which students are not contiguous (created on first use). */
  private seen: StudentIdSet | undefined;
  /**
   * Students known (from a prescan of this same input, src/bulk/prescan.ts) to have non-contiguous rows → the
   * line where each first appeared. When set, it is taken as complete: an id not in it is contiguous, so the
   * grouper keeps no set of the ids seen (the one structure that would grow with the file: ~24 MB of typed arrays
   * at a million students, a second copy of the prescan's).
   */
  nonContiguous: ReadonlyMap<string, number> | undefined;
  private current: EncodedStudent | undefined;
  private currentId = '';
  private currentChars = 0;
  private readonly maxStudentChars: number;
  /** Number of students handed out. */
  students = 0;

  constructor(
    idIndex: number,
    emit: (student: EncodedStudent, chars: number) => void,
    maxStudentChars: number = Number.POSITIVE_INFINITY,
  ) {
    this.idIndex = idIndex;
    this.emit = emit;
    this.maxStudentChars = maxStudentChars;
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
      const split = id === '' ? undefined : this.nonContiguous?.get(id);
      if (split !== undefined) {
        // Every group of rows of such a student is an error, the first one included: never a partial loan period.
        student.x = {
          f: 'student_id',
          m:
            `rows are not contiguous: student_id ${shortId(id)} appears in separate groups of rows (first on line ` +
            `${split}); all rows of a student must be adjacent, so none of its rows was calculated`,
        };
      } else if (id !== '' && this.nonContiguous === undefined) {
        this.seen ??= new StudentIdSet();
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
    if (this.currentChars > this.maxStudentChars && student.x === undefined) {
      student.x = {
        f: '',
        m:
          `the rows of student_id ${shortId(id)} hold more than ${this.maxStudentChars} characters, the most one ` +
          'student may have; this student was not calculated',
      };
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
