/**
 * The CalculationResult as an aid officer reads it: the rule set and the school policy named once, the year's
 * figures (the percentage and the annual amounts, in dollars), each term under both options with the school's option
 * highlighted (result-terms.ts), then the warnings as a list in the office's words (words.ts). Every value carries
 * `data-field` with its path in the result (`terms[0].proportional.subsidized`, `reduced_annual_pct`). Labels, notes
 * and warnings are shown inert (dom.ts `inert`: bidirectional controls isolated and visible).
 */
import { fill, formatDollars, formatNumber, h, inert } from './dom.ts';
import type { Disbursement } from './policy.ts';
import { ANNUAL_FIELD, LOANS, hasGradPlus, type CalculationResult } from './result-types.ts';
import { shownOption, termsTable } from './result-terms.ts';
import { inWords } from './words.ts';

export type { CalculationResult } from './result-types.ts';

/** The answer's warning that names the school policy in force: the result names the policy once, above. */
const POLICY_WARNING = /^School policy in force: /;

/** The warnings a person reads under the result: the answer's, without the one naming the policy (said above). */
export function shownWarnings(r: CalculationResult): string[] {
  return r.warnings.filter((w) => !POLICY_WARNING.test(w));
}

/** The line naming the rule set and the school policy, once for the whole result. */
function metaLine(ruleSet: string | null, policyWords: string): HTMLElement {
  const policy =
    policyWords === ''
      ? h('span', { 'data-field': 'policy' }, 'School policy: service defaults.')
      : h(
          'span',
          { class: 'policy-notice', id: 'policy-notice', 'data-field': 'policy' },
          h('strong', {}, 'School policy: '),
          `${policyWords}. These figures follow the school’s choices, not the service’s default reading.`,
        );
  return h('p', { class: 'result-meta' }, ruleSet ? `Rule set ${ruleSet}. ` : '', policy);
}

function figure(label: string, field: string, value: string, note?: HTMLElement | string): HTMLElement {
  return h(
    'div',
    { class: 'figure' },
    h('span', { class: 'figure-label' }, label),
    h('span', { class: 'figure-value', 'data-field': field }, value),
    note ? h('span', { class: 'figure-note' }, note) : null,
  );
}

/** The year's figures: the percentage (with the year's full-time credits) and each annual amount. */
function yearFigures(r: CalculationResult): HTMLElement {
  const loans = hasGradPlus(r) ? LOANS : LOANS.filter(([loan]) => loan !== 'grad_plus');
  return h(
    'div',
    { class: 'figures', role: 'group', 'aria-label': 'The year' },
    figure(
      'Annual percentage',
      'reduced_annual_pct',
      `${r.reduced_annual_pct}%`,
      h(
        'span',
        {},
        'of full time, over ',
        h('span', { 'data-field': 'annual_ft_credits' }, formatNumber(r.annual_ft_credits)),
        ' full-time credits',
      ),
    ),
    ...loans.map(([loan, name]) =>
      figure(`${name} for the year`, ANNUAL_FIELD[loan], formatDollars(r[ANNUAL_FIELD[loan]]), 'after the reduction'),
    ),
  );
}

/** Which option the school disburses by, in words (the table marks it too). */
function optionLine(r: CalculationResult, school: Disbursement): HTMLElement {
  const shown = shownOption(r, school);
  const text =
    school === 'proportional' && shown === 'equal'
      ? 'Your school disburses proportionally, but proportional is not offered to this student: equal amounts apply.'
      : `Your school disburses by the ${shown} option, marked “your school” below.`;
  return h('p', { class: 'option-line', 'data-field': 'show_both_options' }, text);
}

/**
 * Shows `r`. `policyWords` names the non-default school policy the request carried, in words ('' for the service
 * defaults); `school` is the option the school disburses by.
 */
export function renderResult(
  target: HTMLElement,
  r: CalculationResult,
  ruleSet: string | null,
  policyWords: string,
  school: Disbursement,
): void {
  const warnings = r.warnings.map((w, i) => [w, i] as const).filter(([w]) => !POLICY_WARNING.test(w));
  fill(
    target,
    h('h2', { id: 'result-heading', tabindex: -1 }, 'Result'),
    metaLine(ruleSet, policyWords),
    yearFigures(r),
    optionLine(r, school),
    termsTable(r, school),
    h('h3', {}, 'Warnings'),
    warnings.length
      ? h(
          'ul',
          { class: 'warnings' },
          ...warnings.map(([w, i]) => h('li', { 'data-field': `warnings[${i}]` }, inert(inWords(w)))),
        )
      : h('p', {}, 'No warnings.'),
  );
}
