/**
 * The upload check (src/bulk/prescan.ts): the same result for every chunking of the bytes, the first file-level
 * problem with its line, the non-contiguous students with their first line.
 */
import { describe, expect, it } from 'vitest';
import { Prescan, firstInvalidUtf8, type PrescanResult } from '../../src/bulk/prescan.ts';
import { HEADER, generatedCsv, row } from './helpers.ts';

function scan(bytes: Buffer, sizes: number[] | 'bytewise' = [bytes.length], limits = {}): PrescanResult {
  const p = new Prescan(limits);
  let i = 0;
  let k = 0;
  while (i < bytes.length) {
    const size = sizes === 'bytewise' ? 1 : Math.max(1, sizes[k++ % sizes.length]!);
    p.push(bytes.subarray(i, i + size));
    i += size;
  }
  return p.end();
}

function summary(r: PrescanResult) {
  return {
    rows: r.rows,
    bytes: r.bytes,
    students: r.students,
    problem: r.problem === undefined ? undefined : [r.problem.status, r.problem.message],
    nonContiguous: [...r.nonContiguous],
  };
}

describe('firstInvalidUtf8', () => {
  it('finds the first byte that is not UTF-8 and accepts every valid form', () => {
    expect(firstInvalidUtf8(Buffer.from('aé€😀z'), true)).toBe(-1);
    expect(firstInvalidUtf8(Buffer.from([0x41, 0xe9, 0x41]), true)).toBe(1); // Windows-1252 é
    expect(firstInvalidUtf8(Buffer.from([0xc0, 0x80]), true)).toBe(0); // overlong
    expect(firstInvalidUtf8(Buffer.from([0xed, 0xa0, 0x80]), true)).toBe(0); // surrogate
    expect(firstInvalidUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80]), true)).toBe(0); // above U+10FFFF
    expect(firstInvalidUtf8(Buffer.from([0x41, 0xe2, 0x82]), false)).toBe(-1); // cut, more may come
    expect(firstInvalidUtf8(Buffer.from([0x41, 0xe2, 0x82]), true)).toBe(1); // cut at the end of the file
  });
});

describe('Prescan', () => {
  const ids = ['ID\u00e9A', 'ID\u00e8A'];
  const utf8 = Buffer.from(
    [HEADER, row(ids[0]!, 'Fall', '12'), row(ids[0]!, 'Spring', '12'), row(ids[1]!, 'Fall', '6')].join('\n') + '\n',
  );

  it('gives the same result for every chunking (whole, random, byte by byte)', () => {
    const { csv } = generatedCsv(40);
    const sorted = Buffer.from(csv + csv.split('\n').slice(1, 3).join('\n') + '\n' + '\u00e9,x\n');
    for (const bytes of [utf8, sorted, Buffer.concat([utf8, Buffer.from([0xe9, 0x0a])])]) {
      const whole = summary(scan(bytes));
      expect(summary(scan(bytes, 'bytewise'))).toEqual(whole);
      expect(summary(scan(bytes, [7, 1, 3, 64, 2, 5]))).toEqual(whole);
    }
  });

  it('names the line of a byte that is not UTF-8, with the student read as Latin-1, in any chunking', () => {
    const bytes = Buffer.from(utf8.toString('utf8'), 'latin1'); // the same text in Windows-1252 / Latin-1
    for (const sizes of [[bytes.length], [1], [3, 5, 200]] as const) {
      const r = scan(bytes, [...sizes]);
      expect(r.problem?.status).toBe(400);
      expect(r.problem?.message).toMatch(/^The CSV file is not valid UTF-8: line 2 \(student_id "IDéA" .*\(0xe9\)/);
    }
  });

  it('lists every student whose rows are not contiguous with the line where it first appeared', () => {
    const text = [
      HEADER,
      row('A', 'Fall', '6'),
      row('B', 'Fall', '6'),
      row('A', 'Spring', '9'),
      row('C', 'Fall', '6'),
      row('C', 'Spring', '6'),
      row('B', 'Spring', '9'),
      row('D', 'Fall', '9'),
      row('E', 'Fall', '9'),
    ].join('\n');
    const r = scan(Buffer.from(text + '\n'));
    expect(r.problem).toBeUndefined();
    expect([...r.nonContiguous]).toEqual([
      ['A', 2],
      ['B', 3],
    ]);
    expect([r.rows, r.students]).toEqual([8, 7]);
  });

  it('counts students as the pipeline does: a run longer than 64 rows is one student per 64 rows', () => {
    const rows = Array.from({ length: 130 }, (_, i) => row('LONG', `T${i}`, '6'));
    const r = scan(Buffer.from([HEADER, row('A', 'Fall', '6'), ...rows, row('B', 'Fall', '6')].join('\n') + '\n'));
    expect([r.rows, r.students]).toEqual([132, 5]); // A, LONG as 64 + 64 + 2, B
  });
  it('413 over the byte or row limit (the row limit names the line and student), 400 for an empty file or bad header', () => {
    const { csv } = generatedCsv(10);
    const bytes = Buffer.from(csv);
    expect(scan(bytes, [100], { maxBytes: 1000 }).problem?.status).toBe(413);
    const rows = scan(bytes, [100], { maxRows: 5 }).problem;
    expect([rows?.status, rows?.message]).toEqual([
      413,
      expect.stringMatching(/more than 5 data rows.*line 7, student_id "G000002"/),
    ]);
    expect(scan(Buffer.from('')).problem?.message).toMatch(/empty/);
    expect(scan(Buffer.from('\ufeff\n\n')).problem?.message).toMatch(/empty/);
    expect(scan(Buffer.from('student_id,nope\nS1,1\n')).problem?.status).toBe(400);
  });
});

describe('a file sorted by term', () => {
  /** `students` students of `terms` terms each, every student's first term, then every student's second… */
  function termSorted(students: number, terms: number, singles = 0): string {
    const lines = [HEADER];
    for (let t = 0; t < terms; t++) {
      for (let s = 0; s < students; s++) lines.push(row(`S${s}`, `T${t}`, '6'));
    }
    for (let s = 0; s < singles; s++) lines.push(row(`ONE${s}`, 'T0', '6'));
    return lines.join('\n') + '\n';
  }

  it('is refused with a 400 that says to sort it by student, naming a student and its two lines', () => {
    const r = scan(Buffer.from(termSorted(5000, 2)), [65_536]);
    expect(r.termSorted).toBe(true);
    expect(r.problem?.status).toBe(400);
    expect(r.problem?.code).toBe('validation_error');
    expect(r.problem?.message).toBe(
      'The CSV file seems to be sorted by term, not by student: 5000 of its 5000 students have their rows in ' +
        'separate places (student_id "S0" is on line 2 and again on line 5002). Sort the file by student_id, ' +
        "keeping each student's terms in order, and send it again (on the command line, sor bulk --sort does it); " +
        'all rows of a student must be adjacent. No row was calculated.',
    );
    expect(r.problem?.fieldErrors?.[0]?.field).toBe('student_id');
  });

  it('also when some students have a single term (which a sort by term cannot split), while most have more', () => {
    const r = scan(Buffer.from(termSorted(60, 3, 40)));
    expect([r.termSorted, r.nonContiguous.size]).toEqual([true, 60]);
  });

  it('a few misplaced students, or exactly half, keep the per-student error rows (no file-level problem)', () => {
    const { csv } = generatedCsv(40);
    const misplaced = csv + csv.split('\n').slice(1, 4).join('\n') + '\n';
    const few = scan(Buffer.from(misplaced));
    expect([few.problem, few.termSorted, few.nonContiguous.size]).toEqual([undefined, false, 2]);
    const half = scan(Buffer.from(termSorted(10, 2, 10)));
    expect([half.problem, half.termSorted, half.nonContiguous.size]).toEqual([undefined, false, 10]);
  });
});
