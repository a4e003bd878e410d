/**
 * The shadow check's summary (the job's `counts.check`, when the file has the school's own figures): students by
 * status and a bar chart of mismatches by reason. Nothing is shown when the job has no check. The chart is a list of
 * labelled bars (each with its count in text), so it reads the same to a screen reader. The bars follow the
 * service's order of reasons (every reason in the table's order, zeros included), each with its readable name
 * (reason-names.ts), what it means in the domain's words (src/domain/check-reasons.ts, through service-tables.js)
 * and its API name as a small hint.
 */
import { fill, formatNumber, h, inert } from './dom.ts';
import { apiHint } from './form-controls.ts';
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

/** The students by status, in words: "12 match, 3 do not match, 1 not checked". */
const STATUS_WORDS: Readonly<Record<string, [string, string]>> = {
  match: ['matches', 'match'],
  mismatch: ['does not match', 'do not match'],
  not_checked: ['not checked', 'not checked'],
};

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
    const meaning = CHECK_REASON_TEXT[reason];
    return h(
      'li',
      { 'data-field': `check_summary.${reason}` },
      h(
        'span',
        { class: 'bar-label' },
        h('span', { class: 'reason-name' }, inert(reasonName(reason))),
        meaning
          ? h('span', { class: 'reason-meaning' }, `The school’s figures equal ours computed with ${meaning}.`)
          : null,
        apiHint(reason),
      ),
      h('span', { class: 'bar-track', 'aria-hidden': 'true' }, bar),
      h('span', { class: 'bar-count' }, `${formatNumber(n)} ${n === 1 ? 'student' : 'students'}`),
    );
  });
  const statuses = Object.entries(read.statuses).map(([status, n]) => {
    const [one, many] = STATUS_WORDS[status] ?? [status.replaceAll('_', ' '), status.replaceAll('_', ' ')];
    return `${formatNumber(n)} ${n === 1 ? `student ${one}` : `students ${many}`}`;
  });
  fill(
    target,
    h('h4', {}, 'Shadow check: the school’s own figures compared with ours'),
    h('p', {}, statuses.join(', ') || 'No students checked.', statuses.length ? '.' : ''),
    reasons.length
      ? h('p', { class: 'note' }, 'Where they differ, the reading of the rules that explains the school’s figures:')
      : null,
    reasons.length ? h('ul', { class: 'bars reasons', 'aria-label': 'Students by reason' }, ...bars) : null,
  );
  target.hidden = false;
}
