/**
 * The CalculationResult as tables: the year's figures, then one row per term with both distribution options
 * side by side, the adjustments and the notes, then the warnings. Every value cell carries `data-field` with
 * its JSON path in the result (`terms[0].proportional.subsidized`, `reduced_annual_pct`). Labels, notes and
 * warnings are shown inert (dom.ts `inert`: bidirectional controls isolated and visible). A school policy other
 * than the default is announced above the figures, so they are never read as the service's default reading.
 */
import { fill, h, formatNumber, inert } from './dom.ts';

interface Option {
  subsidized: number;
  unsubsidized: number;
  grad_plus: number;
}
interface TermResult {
  label: string;
  enrollment_status: string;
  enrollment_intensity_pct: number;
  disbursement_pct: number;
  equal: Option;
  proportional: Option | null;
  adjustment_sub: number;
  adjustment_unsub: number;
  adjustment_grad_plus: number;
  adjustment_explanation: string;
  final_term_overdisbursement: boolean;
  warning: string;
}
export interface CalculationResult {
  annual_ft_credits: number;
  reduced_annual_pct: number;
  annual_basic_eligibility_sub: number;
  annual_basic_eligibility_unsub: number;
  annual_basic_eligibility_grad_plus: number;
  show_both_options: boolean;
  terms: TermResult[];
  total_equal: Option;
  total_proportional: Option | null;
  warnings: string[];
}

const LOANS = [
  ['subsidized', 'Sub'],
  ['unsubsidized', 'Unsub'],
  ['grad_plus', 'Grad PLUS'],
] as const;
const ADJUSTMENTS = ['adjustment_sub', 'adjustment_unsub', 'adjustment_grad_plus'] as const;

const cell = (field: string, value: unknown, suffix = '') =>
  h('td', { 'data-field': field, class: typeof value === 'number' ? 'num' : undefined }, formatNumber(value) + suffix);

function optionCells(path: string, option: Option | null): HTMLTableCellElement[] {
  if (option === null) {
    return [h('td', { colspan: 3, 'data-field': path, class: 'not-offered' }, 'not offered')];
  }
  return LOANS.map(([key]) => cell(`${path}.${key}`, option[key]));
}

function yearTable(r: CalculationResult): HTMLTableElement {
  const row = (label: string, field: string, value: unknown, suffix = '') =>
    h('tr', {}, h('th', { scope: 'row' }, label), cell(field, value, suffix));
  return h(
    'table',
    { class: 'year' },
    h('caption', {}, 'The year'),
    h(
      'tbody',
      {},
      row('Annual full-time credits', 'annual_ft_credits', r.annual_ft_credits),
      row('Reduced annual percentage', 'reduced_annual_pct', r.reduced_annual_pct, '%'),
      row('Annual Subsidized', 'annual_basic_eligibility_sub', r.annual_basic_eligibility_sub),
      row('Annual Unsubsidized', 'annual_basic_eligibility_unsub', r.annual_basic_eligibility_unsub),
      row('Annual Grad PLUS', 'annual_basic_eligibility_grad_plus', r.annual_basic_eligibility_grad_plus),
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, 'Both options offered'),
        h('td', { 'data-field': 'show_both_options' }, r.show_both_options ? 'yes' : 'no (equal only)'),
      ),
    ),
  );
}

function termsTable(r: CalculationResult): HTMLElement {
  const groupHead = h(
    'tr',
    {},
    h('td', { colspan: 4 }),
    h('th', { scope: 'colgroup', colspan: 3 }, 'Equal'),
    h('th', { scope: 'colgroup', colspan: 3 }, 'Proportional'),
    h('th', { scope: 'colgroup', colspan: 3 }, 'Adjustment'),
    h('td', {}),
  );
  const loanHeads = () => LOANS.map(([, label]) => h('th', { scope: 'col' }, label));
  const head = h(
    'tr',
    {},
    h('th', { scope: 'col' }, 'Term'),
    h('th', { scope: 'col' }, 'Status'),
    h('th', { scope: 'col' }, 'Intensity'),
    h('th', { scope: 'col' }, 'Share'),
    ...loanHeads(),
    ...loanHeads(),
    ...loanHeads(),
    h('th', { scope: 'col' }, 'Notes'),
  );
  const rows = r.terms.map((t, i) => {
    const p = `terms[${i}]`;
    const notes = [t.warning, t.adjustment_explanation].filter((s) => s !== '');
    return h(
      'tr',
      {},
      h('th', { scope: 'row', 'data-field': `${p}.label` }, inert(t.label)),
      h('td', { 'data-field': `${p}.enrollment_status` }, t.enrollment_status.replaceAll('_', ' ')),
      cell(`${p}.enrollment_intensity_pct`, t.enrollment_intensity_pct, '%'),
      cell(`${p}.disbursement_pct`, t.disbursement_pct, '%'),
      ...optionCells(`${p}.equal`, t.equal),
      ...optionCells(`${p}.proportional`, t.proportional),
      ...ADJUSTMENTS.map((key) => cell(`${p}.${key}`, t[key])),
      h(
        'td',
        { class: 'notes' },
        ...notes.map((n) => h('p', {}, inert(n))),
        t.final_term_overdisbursement
          ? h('p', { 'data-field': `${p}.final_term_overdisbursement` }, 'Over-disbursed: see the warnings.')
          : null,
      ),
    );
  });
  const total = h(
    'tr',
    { class: 'total' },
    h('th', { scope: 'row', colspan: 4 }, 'Total'),
    ...optionCells('total_equal', r.total_equal),
    ...optionCells('total_proportional', r.total_proportional).map((c) => {
      if (!r.show_both_options) {
        c.classList.add('equal-only');
        c.title = 'Proportional disbursement is not offered to this student (see the warnings).';
      }
      return c;
    }),
    h('td', { colspan: 4 }),
  );
  return h(
    'div',
    { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Per-term amounts' },
    h(
      'table',
      { class: 'terms' },
      h('caption', {}, 'Per term: both options side by side (dollars)'),
      h('thead', {}, groupHead, head),
      h('tbody', {}, ...rows),
      h('tfoot', {}, total),
    ),
  );
}

/** The answer's warning that names the school policy in force (rules.md §10). */
const POLICY_WARNING = /^School policy in force: /;

/**
 * The notice of a non-default school policy: the answer's own warning when it has one, else the options the page
 * sent (`sent`, `proration_fraction=decimal_rounded`); null when neither.
 */
function policyNotice(r: CalculationResult, sent: string): HTMLElement | null {
  const warning = r.warnings.find((w) => POLICY_WARNING.test(w));
  if (warning === undefined && sent === '') return null;
  return h(
    'p',
    { class: 'policy-notice', id: 'policy-notice' },
    h('strong', {}, 'School policy: '),
    warning !== undefined ? inert(warning.replace(POLICY_WARNING, '')) : `${sent} (sent with the request).`,
    ' These figures follow the school’s choices, not the service’s default reading.',
  );
}

/** Shows `r`; `policySent` names the non-default policy options the request carried ('' for none). */
export function renderResult(target: HTMLElement, r: CalculationResult, ruleSet: string | null, policySent = ''): void {
  const warnings = r.warnings.length
    ? h('ul', { class: 'warnings' }, ...r.warnings.map((w, i) => h('li', { 'data-field': `warnings[${i}]` }, inert(w))))
    : h('p', {}, 'No warnings.');
  fill(
    target,
    h('h2', { id: 'result-heading', tabindex: -1 }, 'Result'),
    ruleSet ? h('p', { class: 'rule-set' }, 'Rule set ', h('code', {}, ruleSet)) : null,
    policyNotice(r, policySent),
    yearTable(r),
    termsTable(r),
    h('h3', {}, 'Warnings'),
    warnings,
  );
}
