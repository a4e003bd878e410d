/**
 * The words of the worksheet's summary (summary.ts), in an aid office's vocabulary: enrollment statuses, loan
 * names, the school-policy options and their values, the request's fields, and `officeWords()`, which rewrites a
 * warning sentence of the result (warnings*.ts, written for the API and the CSV, where they name request fields
 * such as `total_limit`) in those words. Every table is typed against the domain's own names, so a new field,
 * option, value or status that has no words yet fails to compile.
 */

import type { Dec } from './decimal.ts';
import { HEALTH_PROFESSIONS_PROGRAMS } from './health-professions-programs.ts';
import { POLICY_OPTIONS, type PolicyOptionName, type SchoolPolicy } from './policy.ts';
import type { CalculationInput, EnrollmentStatus, TermInput } from './types.ts';
import { formatDollars } from './warning-text.ts';

/** The loans of a disbursement option, as the result names them. */
export type SummaryLoan = 'subsidized' | 'unsubsidized' | 'grad_plus';

export const LOAN_LABELS: Readonly<Record<SummaryLoan, string>> = {
  subsidized: 'Direct Subsidized',
  unsubsidized: 'Direct Unsubsidized',
  grad_plus: 'Grad PLUS',
};

export const STATUS_WORDS: Readonly<Record<EnrollmentStatus, string>> = {
  full_time: 'Full time',
  three_quarter_time: 'Three-quarter time',
  half_time: 'Half time',
  less_than_half_time: 'Less than half time',
  not_enrolled: 'Not enrolled',
};

type PolicyValues = {
  [N in PolicyOptionName]: Extract<(typeof POLICY_OPTIONS)[number], { name: N }>['values'][number];
};

/** Each school-policy option's name, and what each of its values means, in words (rules.md §10). */
export const POLICY_WORDS: {
  readonly [N in PolicyOptionName]: {
    readonly label: string;
    readonly values: Readonly<Record<PolicyValues[N], string>>;
  };
} = {
  proration_fraction: {
    label: 'Final-period proration fraction',
    values: {
      exact: 'the exact fraction',
      decimal_rounded: 'a 2-decimal figure, rounded',
      decimal_truncated: 'a 2-decimal figure, truncated',
    },
  },
  remainder_placement: {
    label: 'Leftover dollars of a split',
    values: {
      largest_remainder: 'to the largest remainders (ties to the earlier term)',
      last_term: 'all on the last term',
    },
  },
  single_term_basis: {
    label: 'One-term loan period',
    values: {
      full_annual: 'on the full annual amount',
      half_annual: 'on half the annual amount',
    },
  },
  below_half_time_credits: {
    label: 'Credits of terms below half time',
    values: {
      counted: 'counted in the year’s percentage',
      excluded: 'left out of the year’s percentage',
    },
  },
  grad_plus_gap: {
    label: 'Grad PLUS gap',
    values: {
      after_reduction: 'cost of attendance minus the reduced loans',
      before_reduction: 'cost of attendance minus the loans before the reduction',
    },
  },
};

/** What a policy value means, in words. */
export function policyValueWords<N extends PolicyOptionName>(option: N, value: SchoolPolicy[N]): string {
  return (POLICY_WORDS[option].values as Readonly<Record<string, string>>)[value]!;
}

type FieldName = Exclude<keyof CalculationInput, 'terms' | 'policy'> | Exclude<keyof TermInput, 'label'>;

/** Each request field, as an aid office calls it (used to rewrite the result's warnings). */
export const FIELD_WORDS: Readonly<Record<FieldName, string>> = {
  dependency_status: 'dependency status',
  degree_level: 'degree level',
  grade_level: 'grade level',
  academic_year_terms: 'number of terms in the academic year',
  cost_of_attendance: 'cost of attendance',
  is_legacy_borrower: 'legacy borrower status',
  plus_denied: 'PLUS denial',
  subsidized_amount: 'subsidized eligibility',
  total_limit: 'institutional program limit',
  final_period_of_program: 'final-period setting',
  academic_year_credits: 'number of credits in the academic year',
  health_professions_program: 'health professions program',
  academic_year_months: 'number of months in the academic year',
  award_year: 'award year',
  full_time_credits: 'full-time credits',
  credits_enrolled: 'enrolled credits',
  actual_final_credits: 'final credits',
  prior_disbursement_sub: 'subsidized amount already paid',
  prior_disbursement_unsub: 'unsubsidized amount already paid',
  prior_disbursement_grad_plus: 'Grad PLUS amount already paid',
};

const FIELD_NAMES = Object.keys(FIELD_WORDS).sort((a, b) => b.length - a.length);
const OPTION_NAMES = POLICY_OPTIONS.map((o) => o.name);

/** "(school policy below_half_time_credits=excluded)" after a sentence that already says what the option does. */
const POLICY_NOTE = /\(school policy [a-z_]+=[a-z_]+\)/g;
/** "final_period_of_program is false". */
const FLAG_OFF = /\bfinal_period_of_program is false\b/g;
/** `option=value` of a policy option (as the result's warnings write the school policy). */
const POLICY_PAIR = new RegExp(`\\b(${OPTION_NAMES.join('|')})=([a-z_]+)\\b`, 'g');
/** `(total_limit, 34 CFR …)`: a field named in a parenthesis right after the words that already say it. */
const PAREN_FIELD = new RegExp(`\\((?:${FIELD_NAMES.join('|')}), `, 'g');
/** A field name, with the article before it when there is one. */
const FIELD = new RegExp(`(\\b[Tt]he )?\\b(${FIELD_NAMES.join('|')})\\b`, 'g');
/** A health professions program as the API spells it: `naturopathic_medicine`. */
const PROGRAM = new RegExp(`\\b(${HEALTH_PROFESSIONS_PROGRAMS.join('|')})\\b`, 'g');
/** A value of the API in quotes, `"third_year_and_beyond"`. */
const QUOTED_VALUE = /"([a-z]+(?:_[a-z]+)+)"/g;

/**
 * A sentence of the result (a warning, an adjustment's explanation) in the office's words: each request field
 * by its name in words ("the institutional program limit"), each school-policy option by what it says, quoted API
 * values with spaces. The figures and the rest of the sentence are unchanged.
 */
export function officeWords(sentence: string): string {
  let text = sentence
    .replace(POLICY_NOTE, '(the school’s policy)')
    .replace(FLAG_OFF, 'the loan period is not marked as the final period of the program');
  text = text.replace(POLICY_PAIR, (whole: string, option: string, value: string) => {
    const words = POLICY_WORDS[option as PolicyOptionName] as { label: string; values: Record<string, string> };
    const meaning = words.values[value];
    return meaning === undefined ? whole : `${words.label.toLowerCase()} (${meaning})`;
  });
  text = text.replace(PAREN_FIELD, '(');
  text = text.replace(QUOTED_VALUE, (_whole, value: string) => `"${value.replaceAll('_', ' ')}"`);
  text = text.replace(PROGRAM, (program: string) => program.replaceAll('_', ' '));
  text = text.replace(FIELD, (_whole, article: string | undefined, field: string) => {
    const words = FIELD_WORDS[field as FieldName];
    return `${article ?? 'the '}${words}`;
  });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** $1,840 (whole dollars with thousands separators; cents when there are some). */
export function dollars(amount: Dec): string {
  return formatDollars(amount);
}

/** "6", "10.5": credits as written. */
export function credits(value: Dec): string {
  return value.toFixed();
}

/** "a, b and c" */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}
