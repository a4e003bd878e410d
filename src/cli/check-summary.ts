/**
 * The shadow check's summary as the CLI prints it at the end of `sor bulk` (local or --server): students by check
 * status and mismatches by reason, one line each, every reason of CHECK_REASONS in the table's order
 * (architecture.md "Shadow check").
 */
import type { CheckSummary } from '../bulk/shadow-summary.ts';
import { CHECK_REASONS, type CheckReason } from '../domain/readings.ts';
import { formatInt } from './progress.ts';

export function formatCheckSummary(summary: CheckSummary): string {
  const rows: [string, number][] = [
    ['checked', summary.checked],
    ['  match', summary.match],
    ['  mismatch', summary.mismatch],
    ['not_checked', summary.not_checked],
  ];
  // Every reason of the table in its order (a job recorded before a reason existed counts 0 for it).
  const byReason = summary.by_reason as Partial<Record<CheckReason, number>>;
  for (const reason of CHECK_REASONS) rows.push([`  mismatch: ${reason}`, byReason[reason] ?? 0]);
  const width = Math.max(...rows.map(([label]) => label.length));
  const numbers = rows.map(([, n]) => formatInt(n));
  const numberWidth = Math.max(...numbers.map((n) => n.length));
  const lines = rows.map(([label], i) => `sor:   ${label.padEnd(width)}  ${numbers[i]!.padStart(numberWidth)}`);
  const verdict =
    summary.mismatch === 0
      ? 'sor: shadow check: every checked student matches the rules\n'
      : `sor: shadow check: ${formatInt(summary.mismatch)} student(s) differ from the rules ` +
        '(check_status=mismatch; see check_detail and check_reason)\n';
  return `sor: shadow check (students):\n${lines.join('\n')}\n${verdict}`;
}

/** True when the summary holds a mismatch: the run exits 2, as for error rows. */
export function hasMismatch(summary: CheckSummary | undefined | null): boolean {
  return summary !== undefined && summary !== null && summary.mismatch > 0;
}
