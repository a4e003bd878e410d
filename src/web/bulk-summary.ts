/**
 * A finished file's results, as the job resource gives them (the service counts them while the job runs; the page
 * computes none of them): students and rows, how many were reduced, the totals per loan type under each option,
 * the students by annual percentage as a chart, the errors grouped by problem with their count and first lines
 * ("96 rows: credits_enrolled is missing — lines 142, 208, 239 …"), the shadow check (check-chart.ts) and the
 * downloads: the results as CSV and NDJSON, and the error report. Column names are the file's own (`code.column`).
 */
import { fill, formatDollars, formatNumber, h, inert } from './dom.ts';
import { renderCheckSummary } from './check-chart.ts';
import { choicesWords, cleanChoices } from './policy.ts';
import { LOANS } from './result-types.ts';
import type { ErrorGroup, Job } from './job-types.ts';

/** How many of the first lines a group lists before "…". */
const LINES_SHOWN = 5;

/** "96 rows: credits_enrolled is missing — lines 142, 208, 239 …" */
export function errorGroupView(group: ErrorGroup): HTMLElement {
  const lines = group.first_lines.slice(0, LINES_SHOWN);
  const more = group.rows > lines.length ? ' …' : '';
  const message = group.message === 'is required' ? 'is missing' : group.message;
  // A problem of a column names it as the file does; one of the whole row (`row`) names none.
  const column = group.field !== '' && group.field !== 'row';
  return h(
    'li',
    { 'data-field': `error_groups.${group.field}` },
    h('strong', {}, `${formatNumber(group.rows)} ${group.rows === 1 ? 'row' : 'rows'}:`),
    ' ',
    column ? h('code', { class: 'column' }, inert(group.field)) : null,
    column ? ' ' : '',
    inert(message),
    lines.length
      ? ` — ${lines.length === 1 && !more ? 'line' : 'lines'} ${lines.map(formatNumber).join(', ')}${more}`
      : '',
  );
}

function countsLine(job: Job): HTMLElement {
  const c = job.counts!;
  const n = (field: string, value: number | null) =>
    h('span', { 'data-field': `counts.${field}` }, formatNumber(value));
  return h(
    'p',
    { class: 'counts' },
    n('students', c.students),
    ' students in ',
    n('rows', c.rows),
    ' rows: ',
    n('rows_ok', c.rows_ok),
    ' rows calculated, ',
    n('error_rows', c.error_rows),
    ' rows with errors',
    (c.students_with_errors ?? 0) > 0
      ? h(
          'span',
          {},
          ' (',
          n('students_with_errors', c.students_with_errors),
          c.students_with_errors === 1 ? ' student' : ' students',
          ' not calculated: every row of a student with an error is left out)',
        )
      : '',
    '.',
  );
}

/** The totals per loan type under each option, in dollars. */
function totalsTable(job: Job): HTMLElement {
  const t = job.summary!.totals;
  return h(
    'table',
    { class: 'totals' },
    h('caption', {}, 'Totals for the file, in dollars'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Loan'),
        h('th', { scope: 'col', class: 'num' }, 'Equal'),
        h('th', { scope: 'col', class: 'num' }, 'Proportional (where offered)'),
      ),
    ),
    h(
      'tbody',
      {},
      ...LOANS.map(([loan, name]) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, name),
          h(
            'td',
            { class: 'num', 'data-field': `summary.totals.equal.${loan}`, 'data-label': 'Equal' },
            formatDollars(t.equal[loan]),
          ),
          h(
            'td',
            {
              class: 'num',
              'data-field': `summary.totals.proportional.${loan}`,
              'data-label': 'Proportional (where offered)',
            },
            formatDollars(t.proportional[loan]),
          ),
        ),
      ),
    ),
  );
}

/** The students by annual percentage: a bar per range, each with its count in text. */
function distribution(job: Job): HTMLElement {
  const buckets = job.summary!.reduced_annual_pct;
  const most = Math.max(1, ...buckets.map((b) => b.students));
  return h(
    'figure',
    { class: 'distribution' },
    h('figcaption', {}, 'Students by annual percentage (100% is not reduced)'),
    h(
      'ul',
      { class: 'bars' },
      ...buckets.map((b) => {
        const label = b.from === b.to ? `${b.from}%` : `${b.from}–${b.to}%`;
        const bar = h('span', { class: 'bar' });
        bar.style.inlineSize = `${(100 * b.students) / most}%`;
        return h(
          'li',
          { 'data-field': `summary.reduced_annual_pct.${b.from}` },
          h('span', { class: 'bar-label' }, b.from === 100 ? `${label} (not reduced)` : label),
          h('span', { class: 'bar-track', 'aria-hidden': 'true' }, bar),
          h('span', { class: 'bar-count' }, `${formatNumber(b.students)} ${b.students === 1 ? 'student' : 'students'}`),
        );
      }),
    ),
  );
}

/** The policy the job ran with, in words. */
function policyLine(job: Job): HTMLElement {
  const used = choicesWords(cleanChoices(job.policy ?? {}));
  return used === ''
    ? h('p', { class: 'policy-used', 'data-field': 'policy' }, 'School policy: service defaults.')
    : h(
        'p',
        { class: 'policy-notice', 'data-field': 'policy' },
        h('strong', {}, 'School policy: '),
        `${used}. These figures follow the school’s choices, not the service’s default reading.`,
      );
}

/**
 * Shows a completed job's results in `target` and its shadow check in `checkTarget`. `download(url, name)` saves one
 * of the job's files; `fileName` is the file the officer sent (the downloads are named after it).
 */
export function renderJobResults(
  target: HTMLElement,
  checkTarget: HTMLElement,
  job: Job,
  fileName: string,
  download: (url: string, name: string) => void,
): void {
  const base = fileName.replace(/\.[^.]*$/, '') || 'results';
  const button = (url: string | null | undefined, name: string, label: string) => {
    if (url === undefined || url === null) return null;
    const b = h('button', { type: 'button' }, label);
    b.addEventListener('click', () => download(url, name));
    return b;
  };
  const groups = job.error_groups ?? [];
  const errorRows = job.counts?.error_rows ?? 0;
  const s = job.summary;
  fill(
    target,
    h('h3', { id: 'bulk-summary-heading', tabindex: -1 }, 'Results of ', inert(fileName)),
    job.counts ? countsLine(job) : null,
    policyLine(job),
    h(
      'p',
      { class: 'downloads' },
      button(job.links?.result_csv, `${base}.results.csv`, 'Download the results (.csv)'),
      button(job.links?.result_ndjson, `${base}.results.ndjson`, 'Download one line per student (.ndjson)'),
      errorRows > 0 ? button(job.links?.errors_csv, `${base}.errors.csv`, 'Download the error report (.csv)') : null,
    ),
    s ? h('h4', {}, 'Summary') : null,
    s
      ? h(
          'p',
          {},
          h('span', { 'data-field': 'summary.students_reduced' }, formatNumber(s.students_reduced)),
          ' students reduced, ',
          h('span', { 'data-field': 'summary.students_not_reduced' }, formatNumber(s.students_not_reduced)),
          ' not reduced.',
        )
      : null,
    s ? h('div', { class: 'summary-parts' }, totalsTable(job), distribution(job)) : null,
    h('h4', {}, 'Rows with errors'),
    groups.length
      ? h('ul', { class: 'error-groups' }, ...groups.map(errorGroupView))
      : h('p', {}, 'No rows with errors.'),
  );
  renderCheckSummary(checkTarget, job.counts?.check ?? null);
}
