import { expect } from 'vitest';
import { SAMPLE_EXPECTED_CSV, SAMPLE_EXPECTED_NDJSON, parseNdjson, parseOutput, readText } from './helpers.ts';

/**
 * The sample's golden output (samples/sample.expected.*) as every door answers it (HTTP, jobs, CLI): byte for byte,
 * and with SPLIT-1 — whose Spring row comes back after other students — an error on EVERY row, its first group
 * included, never a one-term `ok`.
 */
export function expectSampleCsv(text: string): void {
  expect(text).toBe(readText(SAMPLE_EXPECTED_CSV));
  const split = parseOutput(text).filter((r) => r.student_id === 'SPLIT-1');
  expect(split.map((r) => r.term_label)).toEqual(['Fall', 'Spring']);
  for (const r of split) {
    expect([r.row_status, r.error_code, r.error_field]).toEqual(['error', 'validation_error', 'student_id']);
    expect(r.error_message).toMatch(/not contiguous.*first on line 4/);
    expect([r.equal_sub, r.equal_unsub, r.disbursement_pct]).toEqual(['', '', '']);
  }
}

export function expectSampleNdjson(text: string): void {
  expect(text).toBe(readText(SAMPLE_EXPECTED_NDJSON));
  const split = parseNdjson(text).filter((l) => l.student_id === 'SPLIT-1');
  expect(split).toHaveLength(2);
  for (const l of split) {
    expect(l.result).toBeNull();
    expect(JSON.stringify(l.error)).toMatch(/not contiguous/);
  }
}
