/**
 * The shadow check's summary (the job status's `check_summary`, when the service has the shadow check): students
 * by status and a bar chart of mismatches by reason. Nothing is shown when the status has no summary. The chart
 * is a list of labelled bars (each with its count in text), so it reads the same to a screen reader. The bars
 * follow the service's order of reasons (the job status lists every reason in the table's order, zeros
 * included), each with its readable name (reason-names.ts) and its token; hovering a bar gives what the reason
 * means, in the domain's words (src/domain/check-reasons.ts, through service-tables.js).
 */
import { fill, formatNumber, h, inert } from './dom.ts';
import { reasonName } from './reason-names.ts';
import { CHECK_REASON_TEXT } from './service-tables.js';

type Counts = Record<string, number>;

const STATUSES = ['match', 'mismatch', 'not_checked'];

function counts(value: unknown): Counts | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Counts = {};
  for (const [key, n] of Object.entries(value)) if (typeof n === 'number') out[key] = n;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Reads the summary as {statuses, reasons}: the service's `{checked, match, mismatch, not_checked, by_reason}`
 * (`checked` is their sum and is not a bar), or a flat object of counts.
 */
export function readCheckSummary(summary: unknown): { statuses: Counts; reasons: Counts } | undefined {
  if (summary === null || typeof summary !== 'object') return undefined;
  const s = summary as Record<string, unknown>;
  const flat = counts(s) ?? {};
  const statuses =
    counts(s['by_status']) ??
    counts(s['statuses']) ??
    Object.fromEntries(Object.entries(flat).filter(([k]) => STATUSES.includes(k)));
  const reasons =
    counts(s['by_reason']) ??
    counts(s['reasons']) ??
    Object.fromEntries(Object.entries(flat).filter(([k]) => !STATUSES.includes(k) && k !== 'total' && k !== 'checked'));
  if (Object.keys(statuses).length === 0 && Object.keys(reasons).length === 0) return undefined;
  return { statuses, reasons };
}

export function renderCheckSummary(target: HTMLElement, summary: unknown): void {
  const read = readCheckSummary(summary);
  if (read === undefined) {
    target.hidden = true;
    target.replaceChildren();
    return;
  }
  // In the service's order of reasons (the table of the shadow check), zeros included.
  const reasons = Object.entries(read.reasons);
  const most = Math.max(1, ...reasons.map(([, n]) => n));
  const bars = reasons.map(([reason, n]) => {
    const bar = h('span', { class: 'bar' });
    bar.style.inlineSize = `${(100 * n) / most}%`;
    return h(
      'li',
      {
        'data-field': `check_summary.${reason}`,
        title: CHECK_REASON_TEXT[reason]
          ? `The school's figures equal ours computed with ${CHECK_REASON_TEXT[reason]}`
          : undefined,
      },
      h('span', { class: 'bar-label' }, inert(reasonName(reason)), ' ', h('code', {}, inert(reason))),
      h('span', { class: 'bar-track' }, bar),
      h('span', { class: 'bar-count' }, formatNumber(n)),
    );
  });
  fill(
    target,
    h('h3', {}, 'Shadow check'),
    h(
      'p',
      {},
      Object.entries(read.statuses)
        .map(([status, n]) => `${formatNumber(n)} ${status.replaceAll('_', ' ')}`)
        .join(', ') || 'No students checked.',
    ),
    reasons.length ? h('ul', { class: 'bars', 'aria-label': 'Students by reason' }, ...bars) : null,
  );
  target.hidden = false;
}
