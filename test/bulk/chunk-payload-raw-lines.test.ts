/**
 * A row sent as its raw line is echoed from that line, and only from it: a thread lists a student's raw lines when
 * it computes the student (splitRows), never from the payload, so a payload cannot make the output echo a line
 * other than the cells it computed.
 */
import { describe, expect, it } from 'vitest';
import { decodePayload, splitRows } from '../../src/bulk/chunk-payload.ts';
import { processChunkPayload } from '../../src/bulk/process-chunk.ts';
import { HEADER, row } from './helpers.ts';

const LINE = row('S1', 'Fall', '6');

function payload(student: Record<string, unknown>): string {
  return JSON.stringify({ v: 1, f: 'csv', h: HEADER.split(','), s: [student] });
}

describe('raw lines of a chunk payload', () => {
  it('are echoed as the row, whatever list of raw lines the payload carries', () => {
    const honest = processChunkPayload(payload({ l: [2], c: [LINE] })).text;
    const forged = processChunkPayload(payload({ l: [2], c: [LINE], r: ['S9,forged'] })).text;
    expect(honest.startsWith(`${LINE},ok,`)).toBe(true);
    expect(forged).toBe(honest);
  });

  it('are listed when the student is split, for the rows sent as lines only', () => {
    const cells = LINE.split(',');
    const decoded = decodePayload(payload({ l: [2, 3], c: [LINE, cells], r: ['forged'] }), { lazyCells: true });
    const student = splitRows(decoded.s[0]!);
    expect(student.c).toEqual([cells, cells]);
    expect(student.r).toEqual([LINE, undefined]);
    // Decoded without lazyCells, the rows are split and listed at once.
    const eager = decodePayload(payload({ l: [2], c: [LINE], r: ['forged'] })).s[0]!;
    expect(splitRows(eager)).toEqual({ ...eager, r: [LINE] });
  });
});
