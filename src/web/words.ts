/**
 * Texts of the service (warnings, term notes, error messages, the policy's prose) in the aid office's words. The
 * service writes plain sentences, but some name a request field (`subsidized_amount was not provided…`), a value
 * (`grade_level "first_year"`), a policy choice (`below_half_time_credits=excluded`) or a rules section
 * (`rules.md §2.3`). On the page each field reads as its label on the form (“Subsidized eligibility”), a value as
 * the form's words, a choice as the policy section's words; nothing else in the sentence changes. Labels and values
 * come from the service's tables (service-tables.js), never a copy.
 */
import { POLICY_OPTIONS, REQUEST_FIELDS } from './service-tables.js';
import { choiceWords, optionOfValue, valueWords } from './policy-words.ts';

/** `first_year` → "First year". */
export function capitalWords(token: string): string {
  const words = token.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const FIELD_LABELS = new Map<string, string>(REQUEST_FIELDS.map((f) => [f.name, f.label]));
FIELD_LABELS.set('terms', 'Terms');
const OPTIONS = new Set(POLICY_OPTIONS.map((o) => o.name));

/** Enrollment statuses of a result (rules.md's `enrollment_status`), as the office says them. */
const STATUS_WORDS: Readonly<Record<string, string>> = {
  full_time: 'full time',
  three_quarter_time: 'three-quarter time',
  half_time: 'half time',
  less_than_half_time: 'less than half time',
  not_enrolled: 'not enrolled',
};

/** `three_quarter_time` → "three-quarter time". */
export function statusWords(status: string): string {
  return STATUS_WORDS[status] ?? status.replaceAll('_', ' ');
}

/** The label of a request field on the form (`credits_enrolled` → "Credits enrolled"). */
export function fieldLabel(name: string): string {
  return FIELD_LABELS.get(name) ?? capitalWords(name);
}

const TOKEN = /\b[a-z]+(?:_[a-z]+)+\b/g;

/** One text of the service in the office's words (see the module's comment); other text is kept as it is. */
export function inWords(text: string): string {
  return (
    text
      // A field path: `terms[1].credits_enrolled` → “Term 2: Credits enrolled”.
      .replace(/\bterms\[(\d+)\]\.([a-z_]+)/g, (_m, i: string, name: string) => {
        return `“Term ${Number(i) + 1}: ${fieldLabel(name)}”`;
      })
      // A policy choice: `below_half_time_credits=excluded` → “Credits of terms below half time: Left out of the year”.
      .replace(/\b([a-z]+(?:_[a-z]+)+)=([a-z]+(?:_[a-z]+)*)\b/g, (m, option: string, value: string) =>
        OPTIONS.has(option) ? `“${choiceWords(option, value)}”` : m,
      )
      // A yes/no field: `final_period_of_program is false` → “Final period of …” is not checked.
      .replace(/\b([a-z]+(?:_[a-z]+)+) is (true|false)\b/g, (m, name: string, value: string) =>
        FIELD_LABELS.has(name) ? `“${fieldLabel(name)}” is ${value === 'true' ? 'checked' : 'not checked'}` : m,
      )
      // A quoted value: `"first_year"` → “First year”.
      .replace(/"([a-z]+(?:_[a-z]+)+)"/g, (_m, value: string) => `“${capitalWords(value)}”`)
      // Any other token: a field's label or a policy value in quotes, a status or a value in words.
      .replace(TOKEN, (token) => {
        if (FIELD_LABELS.has(token)) return `“${fieldLabel(token)}”`;
        const option = optionOfValue(token);
        if (option !== undefined) return `“${valueWords(option, token)}”`;
        return STATUS_WORDS[token] ?? token.replaceAll('_', ' ');
      })
      // Rules sections: the office reads the regulation's citation, not the service's own rules document.
      .replace(/\s*\(rules\.md §[^)]*\)/g, '')
      .replace(/rules\.md §[\d.]+(?:(?:,| and) §[\d.]+)*/g, 'the rules')
      .replace(/§\s?/g, 'section ')
      .replace(/\bnull\b/g, 'empty')
  );
}

/** A legal citation as the page prints it: `HEA §455(a)` → "HEA section 455(a)". */
export function citationWords(citation: string): string {
  return inWords(citation);
}

/** The result's fields (and the parts of their paths) in words, for the worksheet's step outputs. */
const RESULT_WORDS: Readonly<Record<string, string>> = {
  annual_ft_credits: 'Full-time credits of the year',
  reduced_annual_pct: 'Annual percentage',
  annual_basic_eligibility_sub: 'Subsidized for the year',
  annual_basic_eligibility_unsub: 'Unsubsidized for the year',
  annual_basic_eligibility_grad_plus: 'Grad PLUS for the year',
  show_both_options: 'Both options offered',
  enrollment_status: 'Enrollment',
  enrollment_intensity_pct: 'Enrollment intensity',
  disbursement_pct: 'Share of the year',
  adjustment_sub: 'Change from final credits, Subsidized',
  adjustment_unsub: 'Change from final credits, Unsubsidized',
  adjustment_grad_plus: 'Change from final credits, Grad PLUS',
  adjustment_source_index: 'Change caused by term',
  adjustment_explanation: 'Change explained',
  final_term_overdisbursement: 'Over-disbursed after the final disbursement',
  warning: 'Note',
  equal: 'Equal',
  proportional: 'Proportional',
  total_equal: 'Total, equal',
  total_proportional: 'Total, proportional',
  subsidized: 'Subsidized',
  unsubsidized: 'Unsubsidized',
  grad_plus: 'Grad PLUS',
};

/** The fields whose values are dollars (the last part of a result path). */
const DOLLAR_PARTS = new Set([
  'subsidized',
  'unsubsidized',
  'grad_plus',
  'annual_basic_eligibility_sub',
  'annual_basic_eligibility_unsub',
  'annual_basic_eligibility_grad_plus',
  'adjustment_sub',
  'adjustment_unsub',
  'adjustment_grad_plus',
]);

/** True when the value at `path` of a result is in dollars (`terms[0].equal.subsidized`, `adjustment_sub`). */
export function isDollars(path: string): boolean {
  return DOLLAR_PARTS.has(path.split('.').at(-1) ?? '');
}

/**
 * A path of the result or the request in words: `terms[0].equal.subsidized` → "Fall: Equal, Subsidized",
 * `total_equal.grad_plus` → "Total, equal, Grad PLUS", `terms[1].credits_enrolled` → "Spring: Credits enrolled".
 */
export function pathWords(path: string, termName: (index: number) => string): string {
  const m = /^terms\[(\d+)\]\.(.+)$/.exec(path);
  const words = (m ? m[2]! : path)
    .split('.')
    .map((part) => RESULT_WORDS[part] ?? fieldLabel(part))
    .join(', ');
  return m ? `${termName(Number(m[1]))}: ${words}` : words;
}
