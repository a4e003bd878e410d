/**
 * The worksheet's summary (the `summary` of the JSON worksheet, page 1 of the PDF) on the page: who and which year,
 * the rule set and the school policy, the percentage with its arithmetic ((6 + 9) ÷ 24 = 62.5% → 63%), each annual
 * amount as base × percentage = amount with its citation, the schedule per term under both options (the school's
 * option marked), the adjustments and the warnings. Its texts are the service's, already in the office's words;
 * citations are printed without the section sign (words.ts).
 */
import { formatDollars, h, inert } from './dom.ts';
import type { Disbursement } from './policy.ts';
import { LOANS, type LoanAmounts } from './result-types.ts';
import type { WorksheetSummary } from './summary-types.ts';
import { citationWords, inWords } from './words.ts';

function facts(s: WorksheetSummary): HTMLElement {
  const who = [s.student?.name, s.student?.id].filter((v): v is string => typeof v === 'string' && v !== '');
  const changed = s.policy.filter((p) => !p.is_default);
  const row = (name: string, ...value: (Node | string)[]) => h('div', {}, h('dt', {}, name), h('dd', {}, ...value));
  return h(
    'dl',
    { class: 'sheet-facts' },
    row(
      'Student',
      who.length
        ? inert(who.join(' · '))
        : h('span', { class: 'not-given' }, 'not given: add a name and ID above to print them on the file copy'),
    ),
    row('Award year', s.award_year),
    row('Rule set', s.rule_set),
    row(
      'School policy',
      changed.length === 0
        ? 'service defaults'
        : h('span', {}, ...changed.flatMap((p, i) => [i ? ' ' : '', inert(inWords(p.text))])),
    ),
  );
}

function percentage(s: WorksheetSummary): HTMLElement {
  const p = s.percentage;
  return h(
    'section',
    { class: 'sheet-part' },
    h('h3', {}, 'Percentage'),
    h('p', { class: 'arithmetic', 'data-field': 'summary.percentage' }, inert(p.arithmetic)),
    h('p', {}, inert(inWords(p.text))),
    p.limits.length
      ? h(
          'ul',
          { class: 'limits' },
          ...p.limits.map((l) => h('li', {}, `${l.label}: `, h('span', { class: 'arithmetic' }, inert(l.arithmetic)))),
        )
      : null,
    h('p', { class: 'cite' }, h('cite', {}, citationWords(p.citation))),
  );
}

function annual(s: WorksheetSummary): HTMLElement {
  return h(
    'section',
    { class: 'sheet-part' },
    h('h3', {}, 'Annual amounts'),
    h(
      'table',
      { class: 'sheet-annual' },
      h('caption', { class: 'vh' }, 'Annual amounts: starting amount times the percentage'),
      h(
        'thead',
        {},
        h('tr', {}, ...['Loan', 'Calculation', 'Amount', 'Source'].map((t) => h('th', { scope: 'col' }, t))),
      ),
      h(
        'tbody',
        {},
        ...s.annual.map((a) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, a.label),
            h(
              'td',
              {},
              h('span', { class: 'arithmetic' }, inert(a.arithmetic)),
              h('span', { class: 'basis' }, inert(inWords(a.basis))),
            ),
            h('td', { class: 'num', 'data-field': `summary.annual.${a.loan}` }, formatDollars(a.amount)),
            h('td', { class: 'cite' }, citationWords(a.citation)),
          ),
        ),
      ),
    ),
  );
}

function schedule(s: WorksheetSummary, school: Disbursement): HTMLElement {
  const both = s.totals.proportional !== null;
  const chosen = school === 'proportional' && both ? 'proportional' : 'equal';
  const options = both ? (['equal', 'proportional'] as const) : (['equal'] as const);
  const cells = (amounts: LoanAmounts | null, option: string) =>
    amounts === null
      ? [h('td', { colspan: LOANS.length, class: 'not-offered' }, 'not offered')]
      : LOANS.map(([loan]) =>
          h('td', { class: `num${option === chosen ? ' chosen' : ''}` }, formatDollars(amounts[loan])),
        );
  const notes = s.schedule.filter((t) => t.note !== '');
  return h(
    'section',
    { class: 'sheet-part' },
    h('h3', {}, 'Schedule'),
    h('p', {}, inert(inWords(s.options))),
    h(
      'div',
      { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Schedule per term' },
      h(
        'table',
        { class: 'sheet-schedule' },
        h('caption', {}, 'Each term under ', both ? 'both options' : 'the equal option (proportional not offered)'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('td', { colspan: 2 }),
            ...options.map((o) =>
              h(
                'th',
                { scope: 'colgroup', colspan: LOANS.length, class: o === chosen ? 'chosen' : undefined },
                o === 'equal' ? 'Equal' : 'Proportional',
                o === chosen ? h('span', { class: 'badge' }, 'your school') : null,
              ),
            ),
          ),
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Term'),
            h('th', { scope: 'col' }, 'Enrollment'),
            ...options.flatMap(() => LOANS.map(([, name]) => h('th', { scope: 'col', class: 'num' }, name))),
          ),
        ),
        h(
          'tbody',
          {},
          ...s.schedule.map((t) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, inert(t.label)),
              h('td', {}, inert(`${t.status}, ${t.credits}`)),
              ...options.flatMap((o) => cells(t[o], o)),
            ),
          ),
        ),
        h(
          'tfoot',
          {},
          h('tr', {}, h('th', { scope: 'row', colspan: 2 }, 'Total'), ...options.flatMap((o) => cells(s.totals[o], o))),
        ),
      ),
    ),
    notes.length
      ? h('ul', { class: 'term-notes' }, ...notes.map((t) => h('li', {}, inert(`${t.label}: ${inWords(t.note)}`))))
      : null,
  );
}

function list(title: string, items: readonly string[], empty: string): HTMLElement {
  return h(
    'section',
    { class: 'sheet-part' },
    h('h3', {}, title),
    items.length ? h('ul', {}, ...items.map((text) => h('li', {}, inert(inWords(text))))) : h('p', {}, empty),
  );
}

/** The summary's parts, in the order page 1 of the worksheet prints them. */
export function summaryView(s: WorksheetSummary, school: Disbursement): HTMLElement[] {
  return [
    h(
      'div',
      { class: 'sheet-summary', id: 'worksheet-summary' },
      facts(s),
      percentage(s),
      annual(s),
      schedule(s, school),
    ),
    h(
      'div',
      { class: 'sheet-notes' },
      list('Adjustments', s.adjustments, 'No adjustments: no term’s credits changed.'),
      list('Warnings', s.warnings, 'No warnings.'),
    ),
  ];
}
