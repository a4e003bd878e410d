/**
 * The CLI's shadow-check table (src/cli/check-summary.ts): every reason of the table in its order
 * (architecture.md "Shadow check"), the four of rule set 2026-27.3 included, and 0 for a reason a job recorded
 * before it existed does not list.
 */
import { describe, expect, it } from 'vitest';
import { emptyCheckSummary } from '../../src/bulk/shadow-summary.ts';
import { formatCheckSummary, hasMismatch } from '../../src/cli/check-summary.ts';

const TABLE_ORDER = [
  'option_mismatch',
  'remainder_placement',
  'below_half_time_excluded',
  'percent_not_rounded',
  'binary_float',
  'grad_plus_gap_before_reduction',
  'paid_term_recomputed',
  'proration_parts_rounded',
  'proration_decimal',
  'single_term_half_annual',
  'below_half_time_term_dropped',
  'unexplained',
];

function reasonLines(text: string): [string, string][] {
  return [...text.matchAll(/mismatch: ([a-z_]+)\s+(\S+)\n/g)].map((m) => [m[1]!, m[2]!]);
}

describe('formatCheckSummary', () => {
  it('lists every reason in the table’s order with its count', () => {
    const summary = emptyCheckSummary();
    summary.match = 1_200;
    summary.mismatch = 3;
    summary.checked = 1_203;
    summary.by_reason.proration_decimal = 2;
    summary.by_reason.below_half_time_term_dropped = 1;
    const text = formatCheckSummary(summary);
    expect(reasonLines(text)).toEqual(
      TABLE_ORDER.map((r) => [r, r === 'proration_decimal' ? '2' : r === 'below_half_time_term_dropped' ? '1' : '0']),
    );
    expect(text).toMatch(/checked\s+1,203\n/);
    expect(text).toMatch(/3 student\(s\) differ from the rules/);
    expect(hasMismatch(summary)).toBe(true);
  });

  it('a job recorded with fewer reasons (or in another key order) still prints the table’s order, 0 for the rest', () => {
    const recorded = {
      checked: 2,
      match: 1,
      mismatch: 1,
      not_checked: 0,
      by_reason: { unexplained: 0, remainder_placement: 1, option_mismatch: 0 },
    } as unknown as ReturnType<typeof emptyCheckSummary>;
    const lines = reasonLines(formatCheckSummary(recorded));
    expect(lines.map(([r]) => r)).toEqual(TABLE_ORDER);
    expect(Object.fromEntries(lines)).toMatchObject({ remainder_placement: '1', proration_parts_rounded: '0' });
  });
});
