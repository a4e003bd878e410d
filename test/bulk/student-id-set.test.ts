/**
 * The contiguity index of the bulk pipeline: exact (never reports an id it was not given), remembers the first
 * line of each id, and survives growth past its initial capacity. Checked against a Map on the same ids.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StudentIdSet } from '../../src/bulk/group-students.ts';

describe('StudentIdSet', () => {
  it('returns 0 for a new id and the first line for a repeated one', () => {
    const set = new StudentIdSet(16);
    expect(set.addOrGet('S1', 2)).toBe(0);
    expect(set.addOrGet('S2', 3)).toBe(0);
    expect(set.addOrGet('S1', 9)).toBe(2);
    expect(set.addOrGet('S1', 12)).toBe(2);
    expect(set.size).toBe(2);
  });

  it('tells apart ids that differ only in width, length or one character', () => {
    const set = new StudentIdSet(16);
    const ids = [
      '',
      'a',
      'A',
      'aa',
      'a\u0000',
      'é',
      'e\u0301',
      '学生1',
      '学生2',
      'S00000001',
      'S00000010',
      ' S1',
      'S1 ',
    ];
    ids.forEach((id, i) => expect(set.addOrGet(id, i + 1), JSON.stringify(id)).toBe(0));
    ids.forEach((id, i) => expect(set.addOrGet(id, 1000), JSON.stringify(id)).toBe(i + 1));
    expect(set.size).toBe(ids.length);
  });

  it('agrees with a Map for any sequence of ids, through many doublings', () => {
    fc.assert(
      fc.property(
        fc.array(
          // A small alphabet so that ids repeat often; both 1-byte and 2-byte characters.
          fc.string({ unit: fc.constantFrom('a', 'b', '1', 'é', '学'), maxLength: 6 }),
          { maxLength: 3000 },
        ),
        (ids) => {
          const set = new StudentIdSet(16);
          const map = new Map<string, number>();
          ids.forEach((id, i) => {
            const line = i + 2;
            const expected = map.get(id) ?? 0;
            if (expected === 0) map.set(id, line);
            expect(set.addOrGet(id, line)).toBe(expected);
          });
          expect(set.size).toBe(map.size);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps line numbers up to 2^32 - 1', () => {
    const set = new StudentIdSet(16);
    set.addOrGet('late', 4_294_967_295);
    expect(set.addOrGet('late', 1)).toBe(4_294_967_295);
  });
});
