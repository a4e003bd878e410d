/** A job resource as `sor jobs status` prints it for a person (`--json` prints the resource itself). */
import { formatInt } from './progress.ts';
import type { JobView } from './service-client.ts';

/** Error groups shown at most (the resource has them all; --json shows them). */
const GROUPS_SHOWN = 5;

function when(label: string, at: string | null | undefined): string | undefined {
  return at === undefined || at === null ? undefined : `${label} ${at}`;
}

export function describeJob(job: JobView): string {
  const lines: string[] = [`job ${job.id}: ${job.status}`];
  const p = job.progress;
  const total = p.students_total;
  const pct =
    total === null || total === 0 ? '' : ` (${Math.floor((100 * Math.min(p.students_done, total)) / total)}%)`;
  lines.push(
    `  students: ${formatInt(p.students_done)}${total === null ? '' : ` of ${formatInt(total)}`} done${pct}` +
      (job.counts?.students_with_errors != null && job.counts.students_ok != null
        ? `, ${formatInt(job.counts.students_ok)} ok, ${formatInt(job.counts.students_with_errors)} with errors`
        : ''),
  );
  const errorRows = job.counts?.error_rows ?? p.error_rows ?? 0;
  lines.push(`  rows: ${formatInt(job.counts?.rows ?? p.rows_done ?? 0)}, ${formatInt(errorRows)} error rows`);
  const times = [
    when('created', job.created_at),
    when('started', job.started_at),
    when('finished', job.finished_at),
    when('kept until', job.expires_at),
  ].filter((t) => t !== undefined);
  if (times.length > 0) lines.push(`  ${times.join(', ')}`);
  if (job.rule_set !== undefined && job.rule_set !== null)
    lines.push(`  rule set ${job.rule_set}, ${job.format ?? 'csv'} result`);
  if (job.error !== null && job.error !== undefined)
    lines.push(`  ${job.status === 'cancelled' ? 'note' : 'error'}: ${job.error.message}`);
  const groups = job.error_groups ?? [];
  if (groups.length > 0) {
    lines.push('  errors (rows, first lines):');
    for (const g of groups.slice(0, GROUPS_SHOWN)) {
      lines.push(
        `    ${g.field === '' ? '' : `${g.field}: `}${g.message} (${formatInt(g.rows)}; lines ${g.first_lines.join(', ')})`,
      );
    }
    if (groups.length > GROUPS_SHOWN)
      lines.push(`    … and ${groups.length - GROUPS_SHOWN} more (--json shows them all)`);
  }
  if (job.status === 'completed') {
    lines.push(`  download: sor jobs download ${job.id} --out results.${job.format ?? 'csv'}`);
    if (errorRows > 0 && job.links?.errors_csv)
      lines.push(`  error rows only: sor jobs download ${job.id} --errors-only --out errors.csv`);
  } else if (job.status === 'queued' || job.status === 'running') {
    lines.push(`  cancel: sor jobs cancel ${job.id}`);
  }
  return `${lines.join('\n')}\n`;
}
