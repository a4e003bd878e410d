import { expect } from 'vitest';
import { SAMPLE_EXPECTED_CSV, SAMPLE_EXPECTED_NDJSON, parseNdjson, parseOutput, readText } from './helpers.ts';

/**
 * The sample's golden output (samples/sample.expected.*, written for the pipeline on its own) as the HTTP door
 * answers it (and the CLI): the doors prescan the file, so FSA-1, whose Summer row comes back after other students, is an
 * error on EVERY row (its Fall and Spring included), never a two-term `ok`. Every other row is the golden one.
 */
export function expectSampleCsv(text: string): void {
  const rows = parseOutput(text);
  const golden = parseOutput(readText(SAMPLE_EXPECTED_CSV));
  expect(rows.length).toBe(golden.length);
  expect(rows.filter((r) => r.student_id !== 'FSA-1')).toEqual(golden.filter((r) => r.student_id !== 'FSA-1'));
  const split = rows.filter((r) => r.student_id === 'FSA-1');
  expect(split.map((r) => r.term_label)).toEqual(['Fall', 'Spring', 'Summer']);
  for (const r of split) {
    expect([r.row_status, r.error_code, r.error_field, r.subsidized_amount]).toEqual([
      'error',
      'validation_error',
      'student_id',
      '3500', // the input cells are echoed
    ]);
    expect(r.error_message).toMatch(/not contiguous.*first on line 2/);
    expect([r.equal_sub, r.equal_unsub, r.disbursement_pct]).toEqual(['', '', '']);
  }
}

export function expectSampleNdjson(text: string): void {
  const lines = parseNdjson(text);
  const golden = parseNdjson(readText(SAMPLE_EXPECTED_NDJSON));
  expect(lines.filter((l) => l.student_id !== 'FSA-1')).toEqual(golden.filter((l) => l.student_id !== 'FSA-1'));
  const split = lines.filter((l) => l.student_id === 'FSA-1');
  expect(split).toHaveLength(2);
  for (const l of split) {
    expect(l.result).toBeNull();
    expect(JSON.stringify(l.error)).toMatch(/not contiguous/);
  }
}
