/**
 * The result's terms as one table: each term's enrollment and share of the year, its amounts under the equal and
 * the proportional option side by side (the option the school disburses by marked in words and tint), the change
 * its final credits made, and its notes in a row under it; the totals at the end. Grad PLUS and change columns appear only when the
 * result has such dollars. On a phone each row reads as a card (page.css): every cell carries its own label
 * (`data-label`), so no figure needs sideways scrolling. Each value cell has `data-field` with its path in the result.
 */
import { formatDollars, h, inert } from './dom.ts';
import type { Disbursement } from './policy.ts';
import {
  ADJUSTMENT_FIELD,
  LOANS,
  hasAdjustments,
  hasGradPlus,
  type CalculationResult,
  type LoanAmounts,
  type Loan,
} from './result-types.ts';
import { inWords, statusWords } from './words.ts';

type Option = 'equal' | 'proportional';
const OPTION_NAMES: Readonly<Record<Option, string>> = { equal: 'Equal', proportional: 'Proportional' };

/** The option whose columns are highlighted: the school's, unless proportional is not offered to this student. */
export function shownOption(r: CalculationResult, school: Disbursement): Option {
  return school === 'proportional' && r.show_both_options ? 'proportional' : 'equal';
}

function money(field: string, value: number, label: string, extra = ''): HTMLTableCellElement {
  return h('td', { class: `num ${extra}`.trim(), 'data-field': field, 'data-label': label }, formatDollars(value));
}

function optionCells(
  path: string,
  option: LoanAmounts | null,
  name: Option,
  loans: readonly (readonly [Loan, string])[],
  chosen: boolean,
): HTMLTableCellElement[] {
  const label = `${OPTION_NAMES[name]}${chosen ? ' (your school)' : ''}`;
  if (option === null) {
    return [
      h('td', { colspan: loans.length, 'data-field': path, class: 'not-offered', 'data-label': label }, 'not offered'),
    ];
  }
  return loans.map(([loan, loanName]) =>
    money(`${path}.${loan}`, option[loan], `${label} · ${loanName}`, chosen ? 'chosen' : ''),
  );
}

export function termsTable(r: CalculationResult, school: Disbursement): HTMLElement {
  const loans = hasGradPlus(r) ? LOANS : LOANS.filter(([loan]) => loan !== 'grad_plus');
  const changes = hasAdjustments(r);
  const chosen = shownOption(r, school);
  const options: Option[] = ['equal', 'proportional'];
  const groupHead = h(
    'tr',
    { class: 'groups' },
    h('td', { colspan: 3 }),
    ...options.map((o) =>
      h(
        'th',
        { scope: 'colgroup', colspan: loans.length, class: o === chosen ? 'chosen' : undefined },
        OPTION_NAMES[o],
        o === chosen ? h('span', { class: 'badge' }, 'your school') : null,
      ),
    ),
    changes ? h('th', { scope: 'colgroup', colspan: loans.length }, 'Change from final credits') : null,
  );
  const loanHeads = (o: Option | null) =>
    loans.map(([, name]) => h('th', { scope: 'col', class: o === chosen ? 'chosen num' : 'num' }, name));
  const head = h(
    'tr',
    {},
    h('th', { scope: 'col' }, 'Term'),
    h('th', { scope: 'col' }, 'Enrollment'),
    h('th', { scope: 'col', class: 'num' }, 'Share of the year'),
    ...options.flatMap((o) => loanHeads(o)),
    ...(changes ? loanHeads(null) : []),
  );
  const columns = 3 + loans.length * (changes ? 3 : 2);
  const rows = r.terms.flatMap((t, i) => {
    const p = `terms[${i}]`;
    const notes = [t.warning, t.adjustment_explanation].filter((s) => s !== '');
    // A term's notes sit in a row of their own under it, across the table: sentences need the width.
    const noteRow =
      notes.length || t.final_term_overdisbursement
        ? h(
            'tr',
            { class: 'term-notes' },
            h(
              'td',
              { colspan: columns, class: 'notes', 'data-label': 'Notes' },
              ...notes.map((n) => h('p', {}, inert(inWords(n)))),
              t.final_term_overdisbursement
                ? h('p', { 'data-field': `${p}.final_term_overdisbursement` }, 'Over-disbursed: see the warnings.')
                : null,
            ),
          )
        : null;
    const row = h(
      'tr',
      {},
      h('th', { scope: 'row', 'data-field': `${p}.label` }, inert(t.label)),
      h(
        'td',
        { 'data-label': 'Enrollment' },
        h(
          'span',
          {},
          h('span', { 'data-field': `${p}.enrollment_status` }, statusWords(t.enrollment_status)),
          ', ',
          h('span', { 'data-field': `${p}.enrollment_intensity_pct` }, `${t.enrollment_intensity_pct}%`),
        ),
      ),
      h(
        'td',
        { class: 'num', 'data-field': `${p}.disbursement_pct`, 'data-label': 'Share of the year' },
        `${t.disbursement_pct}%`,
      ),
      ...options.flatMap((o) => optionCells(`${p}.${o}`, t[o], o, loans, o === chosen)),
      ...(changes
        ? loans.map(([loan, name]) =>
            money(`${p}.${ADJUSTMENT_FIELD[loan]}`, t[ADJUSTMENT_FIELD[loan]] as number, `Change · ${name}`),
          )
        : []),
    );
    return noteRow ? [row, noteRow] : [row];
  });
  const total = h(
    'tr',
    { class: 'total' },
    h('th', { scope: 'row', colspan: 3 }, 'Total for the year'),
    ...optionCells('total_equal', r.total_equal, 'equal', loans, chosen === 'equal'),
    ...(r.show_both_options
      ? optionCells('total_proportional', r.total_proportional, 'proportional', loans, chosen === 'proportional')
      : [
          h(
            'td',
            {
              colspan: loans.length,
              class: 'not-offered',
              'data-label': 'Proportional',
              'data-field': 'total_proportional',
            },
            'not offered (equal applies)',
          ),
        ]),
    changes ? h('td', { colspan: loans.length }) : null,
  );
  return h(
    'div',
    { class: 'terms-result' },
    h(
      'table',
      { class: 'terms' },
      h('caption', {}, 'Each term, in dollars: equal and proportional side by side'),
      h('thead', {}, groupHead, head),
      h('tbody', {}, ...rows),
      h('tfoot', {}, total),
    ),
  );
}
