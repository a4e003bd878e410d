/**
 * The shadow check's summary as the CLI prints it at the end of `sor bulk` (local or --server): students by check
 * status and mismatches by reason, one line each, reasons in the table's order (architecture.md "Shadow check").
 */
import type { CheckSummary } from '../bulk/shadow-summary.ts';
import { formatInt } from './progress.ts';

export function formatCheckSummary(summary: CheckSummary): string {
  const rows: [string, number][] = [
    ['checked', summary.checked],
    ['  match', summary.match],
    ['  mismatch', summary.mismatch],
    ['not_checked', summary.not_checked],
  ];
  for (const [reason, count] of Object.entries(summary.by_reason)) rows.push([`  mismatch: ${reason}`, count]);
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
