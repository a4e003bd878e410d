/**
 * The page's words for each request field (the `page` column of the field table, src/schema/fields.ts): the label,
 * the help under the field in the aid office's words with an example, and what an error beside the field asks
 * the officer to do. Written for the people at the counter, not for integrators: no null, JSON, rule sections or
 * field paths (the OpenAPI `description` of each row is the integrator's text). The page's form, its error
 * sentences and its worksheet labels all come from here, through service-tables.js (scripts/build-web.ts).
 */
import type { PageField } from './field-types.ts';

export const PAGE_WORDS = {
  label: {
    label: 'Term',
    help: 'The name printed on the result and the worksheet, e.g. Fall.',
    ask: 'enter a name for the term, such as Fall',
  },
  full_time_credits: {
    label: 'Full-time credits',
    help: 'Credits that make this term full time for the program, e.g. 12 for a semester.',
    ask: 'enter the credits that make the term full time, such as 12',
  },
  credits_enrolled: {
    label: 'Credits enrolled',
    help: 'Credits the student is enrolled in for the term; fractional credits such as 7.5 are fine.',
    ask: 'enter the credits the student is enrolled in',
  },
  actual_final_credits: {
    label: 'Final credits',
    hint: 'if known',
    help: 'Credits at the end of the term when they changed, e.g. 6 after dropping a class: they replace the credits enrolled.',
    ask: 'enter the final credits, or leave them empty',
  },
  prior_disbursement_sub: {
    label: 'Subsidized paid',
    help: 'Subsidized dollars already disbursed for this term, e.g. $502: a paid term keeps its payments.',
    ask: 'enter the subsidized dollars already paid, such as 502',
  },
  prior_disbursement_unsub: {
    label: 'Unsubsidized paid',
    help: 'Unsubsidized dollars already disbursed for this term.',
    ask: 'enter the unsubsidized dollars already paid',
  },
  prior_disbursement_grad_plus: {
    label: 'Grad PLUS paid',
    help: 'Grad PLUS dollars already disbursed for this term.',
    ask: 'enter the Grad PLUS dollars already paid',
  },
  dependency_status: {
    label: 'Dependency status',
    help: 'As on the student’s FAFSA. Independent students get the higher unsubsidized limits.',
    ask: 'choose the student’s dependency status',
  },
  degree_level: {
    label: 'Degree level',
    help: 'The program the loan is for.',
    ask: 'choose the degree level',
    choose: true,
  },
  grade_level: {
    label: 'Grade level',
    help: 'For an undergraduate: the grade level the annual limits follow.',
    ask: 'choose the grade level of the undergraduate',
    choose: true,
  },
  academic_year_terms: {
    label: 'Terms in the academic year',
    empty: 'The terms entered are the whole year',
    help: 'Only when the loan period is shorter than the school’s academic year: e.g. 2 for a Fall-only loan in a Fall–Spring year.',
    ask: 'choose how many terms make the academic year (2 to 4)',
    more: true,
  },
  cost_of_attendance: {
    label: 'Cost of attendance',
    hint: 'net of other aid',
    help: 'Caps Subsidized + Unsubsidized; for a legacy graduate student it also sizes Grad PLUS, e.g. $35,000.',
    ask: 'enter the cost of attendance in dollars, such as 35,000',
    more: true,
  },
  is_legacy_borrower: {
    label: 'Legacy borrower (interim exception)',
    help: 'A graduate or professional student who keeps Grad PLUS under the interim exception (still reduced).',
    ask: 'check or clear the legacy borrower box',
    more: true,
  },
  plus_denied: {
    label: 'PLUS loan denied',
    help: 'Dependent undergraduate: the parent was denied a Parent PLUS loan. Graduate: the student’s Grad PLUS was denied.',
    ask: 'check or clear the PLUS loan denied box',
    more: true,
  },
  subsidized_amount: {
    label: 'Subsidized eligibility',
    hint: 'need-based',
    help: 'The Direct Subsidized amount the student’s need allows before the reduction, e.g. $2,750; 0 without need.',
    ask: 'enter the subsidized eligibility in dollars, such as 2,750',
  },
  total_limit: {
    label: 'School’s loan limit',
    hint: 'if the school sets one',
    help: 'A limit the school sets on the student’s Direct Loans for the program, e.g. $6,000.',
    ask: 'enter the school’s limit in dollars, such as 6,000',
    more: true,
  },
  final_period_of_program: {
    label: 'Final period of an undergraduate program',
    help: 'The last loan period of the program, shorter than an academic year: the limits are prorated by credits.',
    ask: 'check or clear the final period box',
    more: true,
  },
  academic_year_credits: {
    label: 'Credits in the academic year',
    help: 'The school’s academic year in credits, e.g. 24 or 36: needed for a final period of a program.',
    ask: 'enter the credits in the school’s academic year, such as 24',
    more: true,
  },
  health_professions_program: {
    label: 'Health professions program',
    hint: 'legacy graduate or professional only',
    empty: 'None',
    help: 'A legacy student in one of these programs keeps an additional Unsubsidized amount.',
    ask: 'choose the health professions program, or None',
    legacyOnly: true,
    more: true,
  },
  academic_year_months: {
    label: 'Months in the academic year',
    hint: 'for the health professions increase',
    empty: 'Not given (9 months)',
    help: 'Months the program’s academic year covers, 9 to 12: 11 months raises the increase by 11 ÷ 9.',
    ask: 'choose the months in the academic year (9 to 12)',
    legacyOnly: true,
    more: true,
  },
  award_year: {
    label: 'Award year',
    empty: 'The current award year',
    help: 'The year the loan is for.',
    ask: 'choose an award year from the list',
    more: true,
  },
} as const satisfies Record<string, PageField>;
