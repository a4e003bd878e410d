/**
 * Reading a chunk payload student by student (src/bulk/payload-reader.ts) gives what parsing it whole gives
 * (decodePayload, then splitRows): the same fields, the same students, and the same refusal (a SyntaxError) of a
 * payload that is malformed, for payloads as ChunkBuilder writes them, as JSON with spaces, and mutated byte by byte.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ChunkBuilder,
  decodePayload,
  payloadText,
  splitRows,
  type EncodedStudent,
} from '../../src/bulk/chunk-payload.ts';
import { openPayload } from '../../src/bulk/payload-reader.ts';
import { resolvePolicy } from '../../src/domain/policy.ts';
import { HEADER } from './helpers.ts';

const HEAD = HEADER.split(',');

type Read = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The payload read whole: its fields and its students split, or the error. */
function readWhole(text: string): Read {
  try {
    const p = decodePayload(text, { lazyCells: true });
    return { ok: true, value: { head: { ...p, s: [] }, students: p.s.map((s) => splitRows(s)) } };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The payload read student by student, from its bytes or its string. */
function readByStudent(payload: string | Uint8Array): Read {
  try {
    const reader = openPayload(payload);
    const students = [];
    for (let k = 0; k < reader.count; k++) students.push(reader.student(k));
    return { ok: true, value: { head: reader.head, students } };
  } catch (error) {
    return { ok: false, error };
  }
}

function expectSameReading(text: string): void {
  const whole = readWhole(text);
  for (const other of [readByStudent(text), readByStudent(Buffer.from(text, 'utf8'))]) {
    expect(other.ok).toBe(whole.ok);
    if (whole.ok && other.ok) expect(other.value).toEqual(whole.value);
    if (!whole.ok && !other.ok) expect(other.error).toBeInstanceOf(SyntaxError);
  }
}

/** Cell text that JSON escapes or that looks like JSON structure. */
const cellArb = fc.oneof(
  fc.string(),
  fc.constantFrom('"', '\\', '\\"', '\\\\"', '"]}', '{"s":[', ',', '', 'Łódź', '😀', '\u2028', '\n', '\u0000'),
);

const studentArb: fc.Arbitrary<EncodedStudent> = fc
  .array(fc.oneof(fc.array(cellArb, { minLength: 1, maxLength: 5 }), cellArb), { minLength: 1, maxLength: 4 })
  .chain((c) =>
    fc.record({
      l: fc.constant(c.map((_, r) => r + 2)),
      c: fc.constant(c),
      e: fc.option(fc.constant(c.map((_, r) => (r === 0 ? 'broken "record"' : null))), { nil: undefined }),
      x: fc.option(fc.record({ f: fc.constant('student_id'), m: cellArb }), { nil: undefined }),
    }),
  )
  .map((s) => {
    const student: EncodedStudent = { l: s.l, c: s.c };
    if (s.e !== undefined) student.e = s.e;
    if (s.x !== undefined) student.x = s.x;
    return student;
  });

function built(students: EncodedStudent[], options: { policy?: boolean; delimiter?: ';'; all?: boolean } = {}): string {
  const policy = options.policy === true ? resolvePolicy({ grad_plus_gap: 'before_reduction' }) : undefined;
  const builder = new ChunkBuilder('csv', HEAD, policy, { delimiter: options.delimiter, allOutputs: options.all });
  for (const s of students) builder.add(s, 1);
  return payloadText(builder.take());
}

describe('a chunk payload read student by student', () => {
  it('reads what parsing it whole reads, for every payload ChunkBuilder writes', () => {
    fc.assert(
      fc.property(
        fc.array(studentArb, { maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (students, policy, semicolons, all) => {
          const text = built(students, { policy, delimiter: semicolons ? ';' : undefined, all });
          expectSameReading(text);
          expect(readByStudent(text).ok).toBe(true);
          // The same payload with JSON's spaces and line breaks.
          expectSameReading(JSON.stringify(JSON.parse(text), null, 2));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses what parsing it whole refuses, and reads the rest the same, when its bytes are mutated', () => {
    const text = built([
      { l: [2, 3], c: ['S1,Fall,12', ['S1', 'Spring "x", y', '\\']], e: [null, 'bad'] },
      { l: [4], c: ['S2,Fall,6'], x: { f: 'student_id', m: 'rows not contiguous' } },
    ]);
    fc.assert(
      fc.property(
        fc.nat(text.length),
        fc.nat(text.length),
        fc.constantFrom('', '"', '\\', ',', '[', ']', '{', '}', ':', ' ', '"s":[]', '1', 'null', '"x"'),
        (at, length, insert) => {
          const count = length % 4;
          expectSameReading(text.slice(0, at) + insert + text.slice(at + count));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['no students', `{"v":1,"f":"csv","h":[]}`],
    ['students twice', `{"v":1,"f":"csv","h":[],"s":[],"s":[]}`],
    ['students not an array', `{"v":1,"f":"csv","h":[],"s":{}}`],
    ['an empty element', `{"v":1,"f":"csv","h":[],"s":[,]}`],
    ['a student that is not an object', `{"v":1,"f":"csv","h":[],"s":[1]}`],
    ['an unterminated string', `{"v":1,"f":"csv","h":[],"s":[{"l":[2],"c":["x]}]}`],
    ['bytes after the payload', `{"v":1,"f":"csv","h":[],"s":[]}x`],
    ['a truncated payload', `{"v":1,"f":"csv","h":[],"s":[{"l":[2],"c":["x"]}`],
    ['an array', `[]`],
    ['nothing', ``],
  ])('refuses a payload with %s, as a SyntaxError', (_, text) => {
    const whole = readWhole(text);
    const byStudent = readByStudent(text);
    expect(byStudent.ok).toBe(false);
    if (!byStudent.ok) expect(byStudent.error).toBeInstanceOf(SyntaxError);
    // Parsed whole, a repeated "s" is the last one: the one case the reader refuses and JSON.parse does not.
    if (!text.includes('"s":[],"s"')) expect(whole.ok).toBe(false);
  });
});
