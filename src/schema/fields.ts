/**
 * The table of request fields: every field of CalculationRequest and Term, once, in the request's own order (the
 * order of `CalculationInput`'s keys). Everything that spells the fields derives from it: the zod schema and its
 * OpenAPI descriptions (request-schema.ts), the fast validator (request-fast-path.ts), the bulk CSV layout and its
 * cell spellings (src/bulk/csv-layout.ts), the bulk OpenAPI column table, the worksheet's term rows and the page's
 * form (through service-tables.js, written by scripts/build-web.ts). The `page` column holds the page's words for a
 * field (label, help, what an error asks for), kept in page-words.ts so this table stays readable.
 *
 * Plain data: no zod here, so the page build and the CSV layout read it without the schema machinery.
 */
import type { CalculationInput, TermInput } from '../domain/types.ts';
import type { PolicyChoices } from '../domain/policy.ts';
import {
  ACADEMIC_YEAR_MONTHS_DEFAULT,
  ACADEMIC_YEAR_MONTHS_MAX,
  ACADEMIC_YEAR_MONTHS_MIN,
  HEALTH_PROFESSIONS_PROGRAMS,
  HEALTH_PROFESSIONS_TABLE,
} from '../domain/health-professions.ts';
import { supportedAwardYears } from '../domain/limits.ts';
import { CREDITS, CREDITS_POSITIVE, MONEY, MONEY_POSITIVE } from './decimal.ts';
import type { Presence, RequestField } from './field-types.ts';
import { PAGE_WORDS } from './page-words.ts';

export type { FieldType, PageField, Presence, RequestField } from './field-types.ts';
import { MAX_LABEL_LENGTH, MAX_TERMS, MIN_LABEL_LENGTH } from './request-limits.ts';

export const DEPENDENCY_STATUSES = ['dependent', 'independent'] as const;
export const DEGREE_LEVELS = ['undergraduate', 'graduate', 'professional'] as const;
export const GRADE_LEVELS = ['first_year', 'second_year', 'third_year_and_beyond'] as const;

const oneOf = (values: readonly string[]) => values.join(', ');

function healthProfessionsDescription(): string {
  const amounts = (table: '3A' | '3B') => {
    const rows = HEALTH_PROFESSIONS_PROGRAMS.filter((p) => HEALTH_PROFESSIONS_TABLE[p].table === table);
    const row = HEALTH_PROFESSIONS_TABLE[rows[0]!];
    const dollars = (v: string) => `$${Number(v).toLocaleString('en-US')}`;
    return `${rows.join(', ')} (table ${table}: ${dollars(row.nineMonths)} for 9 months, ${dollars(row.twelveMonths)} for 12)`;
  };
  return (
    'Health professions program of a legacy (interim exception) graduate or professional student, which keeps ' +
    'the prior-law additional Unsubsidized amount on top of the legacy combined limit (rules.md §2.1; FSA Handbook 2025-26 ' +
    `vol. 8 ch. 4): ${amounts('3A')}; ${amounts('3B')}. Ignored with a warning for anyone else (validated all ` +
    'the same). Null or absent: none.'
  );
}

const nullDefault = { presence: 'default', default: null, nullable: true } as const;

/** The fields of one term, in Term's order. */
export const TERM_FIELDS = [
  {
    name: 'label',
    level: 'term',
    type: { kind: 'label' },
    presence: 'required',
    nullable: false,
    column: 'term_label',
    description:
      `Names the term (echoed in the result): ${MIN_LABEL_LENGTH} to ${MAX_LABEL_LENGTH} characters ` +
      '(rules.md §8, revision 2026-27.3).',
    page: PAGE_WORDS.label,
  },
  {
    name: 'full_time_credits',
    level: 'term',
    type: { kind: 'decimal', rule: CREDITS_POSITIVE },
    presence: 'required',
    nullable: false,
    column: 'full_time_credits',
    description: 'Credits that make this term full time for the program (e.g. 12 for a semester).',
    page: PAGE_WORDS.full_time_credits,
  },
  {
    name: 'credits_enrolled',
    level: 'term',
    type: { kind: 'decimal', rule: CREDITS },
    presence: 'required',
    nullable: false,
    column: 'credits_enrolled',
    description: 'Credits the student is enrolled in for the term (fractional credits such as 7.5 are normal).',
    page: PAGE_WORDS.credits_enrolled,
  },
  {
    name: 'actual_final_credits',
    level: 'term',
    type: { kind: 'decimal', rule: CREDITS },
    ...nullDefault,
    column: 'actual_final_credits',
    description:
      'Credits known at the end of the term; when present they replace credits_enrolled in every calculation ' +
      '(they do not close the term).',
    page: PAGE_WORDS.actual_final_credits,
  },
  {
    name: 'prior_disbursement_sub',
    level: 'term',
    type: { kind: 'decimal', rule: MONEY },
    ...nullDefault,
    column: 'prior_disbursement_sub',
    description:
      'Direct Subsidized dollars already disbursed for this term; any prior disbursement > 0 closes the term.',
    page: PAGE_WORDS.prior_disbursement_sub,
  },
  {
    name: 'prior_disbursement_unsub',
    level: 'term',
    type: { kind: 'decimal', rule: MONEY },
    ...nullDefault,
    column: 'prior_disbursement_unsub',
    description: 'Direct Unsubsidized dollars already disbursed for this term.',
    page: PAGE_WORDS.prior_disbursement_unsub,
  },
  {
    name: 'prior_disbursement_grad_plus',
    level: 'term',
    type: { kind: 'decimal', rule: MONEY },
    ...nullDefault,
    column: 'prior_disbursement_grad_plus',
    description: 'Grad PLUS dollars already disbursed for this term.',
    page: PAGE_WORDS.prior_disbursement_grad_plus,
  },
] as const satisfies readonly (RequestField & { name: keyof TermInput })[];

/** The fields of CalculationRequest, in its order (terms among them: the array of TERM_FIELDS). */
export const STUDENT_FIELDS = [
  {
    name: 'dependency_status',
    level: 'student',
    type: { kind: 'enum', values: DEPENDENCY_STATUSES },
    presence: 'required',
    nullable: false,
    column: 'dependency_status',
    description: 'Dependency status for federal student aid.',
    page: PAGE_WORDS.dependency_status,
  },
  {
    name: 'terms',
    level: 'student',
    type: { kind: 'terms' },
    presence: 'required',
    nullable: false,
    column: '',
    description:
      `The terms of the loan period, in order: 1 to ${MAX_TERMS}, and no more than academic_year_terms ` +
      'when that is given (count errors are reported at path `terms`).',
  },
  {
    name: 'degree_level',
    level: 'student',
    type: { kind: 'enum', values: DEGREE_LEVELS },
    presence: 'default',
    default: 'undergraduate',
    nullable: false,
    column: 'degree_level',
    description: 'Degree level; null is not allowed (omit the field for the default).',
    page: PAGE_WORDS.degree_level,
  },
  {
    name: 'grade_level',
    level: 'student',
    type: { kind: 'enum', values: GRADE_LEVELS },
    ...nullDefault,
    column: 'grade_level',
    description:
      'Undergraduate grade level: required (non-null) for undergraduates; ignored with a warning for graduate ' +
      'and professional students.',
    page: PAGE_WORDS.grade_level,
  },
  {
    name: 'academic_year_terms',
    level: 'student',
    type: { kind: 'integer', min: 2, max: MAX_TERMS },
    ...nullDefault,
    column: 'academic_year_terms',
    description:
      'Terms in the school’s academic year for this loan (2 to 4; 3.0 is the JSON number 3). When the request ' +
      'holds fewer terms, the loan period is shorter than the academic year (warning). Null: the terms given ' +
      'are the whole academic year.',
    page: PAGE_WORDS.academic_year_terms,
  },
  {
    name: 'cost_of_attendance',
    level: 'student',
    type: { kind: 'decimal', rule: MONEY },
    ...nullDefault,
    column: 'cost_of_attendance',
    description:
      'Cost of attendance already net of other aid (34 CFR 685.203(j)); caps Subsidized + Unsubsidized for every ' +
      'student. For legacy graduate/professional borrowers Grad PLUS is sized from it after the reduction: ' +
      'cost_of_attendance minus the reduced Subsidized and Unsubsidized amounts, then reduced once.',
    page: PAGE_WORDS.cost_of_attendance,
  },
  {
    name: 'is_legacy_borrower',
    level: 'student',
    type: { kind: 'boolean' },
    presence: 'default',
    default: false,
    nullable: false,
    column: 'is_legacy_borrower',
    description:
      'Graduate/professional interim (legacy) exception: keeps Grad PLUS access. Ignored with a warning for ' +
      'undergraduates. Legacy borrowers are still reduced.',
    page: PAGE_WORDS.is_legacy_borrower,
  },
  {
    name: 'plus_denied',
    level: 'student',
    type: { kind: 'boolean' },
    presence: 'default',
    default: false,
    nullable: false,
    column: 'plus_denied',
    description:
      'Dependent undergraduate: the parent was denied a Parent PLUS loan (independent combined limit applies). ' +
      'Graduate/professional: the student’s own Grad PLUS was denied (Grad PLUS 0).',
    page: PAGE_WORDS.plus_denied,
  },
  {
    name: 'subsidized_amount',
    level: 'student',
    type: { kind: 'decimal', rule: MONEY },
    // Absent stays distinguishable from an explicit 0 (rules.md §7): the domain reads null as "not given".
    presence: 'absent-null',
    nullable: false,
    column: 'subsidized_amount',
    emptyCell:
      'no column or empty = left out: 0, with the warning that no subsidized eligibility was assumed for an ' +
      'undergraduate',
    description:
      'The student’s need-based Direct Subsidized eligibility before the reduction; capped at the statutory ' +
      'subsidized maximum. When left out it is 0 (no subsidized eligibility: the whole combined limit is ' +
      'unsubsidized) and an undergraduate’s result warns that no subsidized eligibility was assumed; send 0 ' +
      'for a student without need. Null is not allowed.',
    page: PAGE_WORDS.subsidized_amount,
  },
  {
    name: 'total_limit',
    level: 'student',
    type: { kind: 'decimal', rule: MONEY_POSITIVE },
    ...nullDefault,
    column: 'total_limit',
    description:
      'Institution-set program limit on Subsidized + Unsubsidized + Grad PLUS (34 CFR 685.203(m)(2)), or any ' +
      'lower limit the school applies; the starting point of the reduction when it binds. It caps Subsidized ' +
      '+ Unsubsidized, and Grad PLUS at what is left of it.',
    page: PAGE_WORDS.total_limit,
  },
  {
    name: 'final_period_of_program',
    level: 'student',
    type: { kind: 'boolean' },
    presence: 'default',
    default: false,
    nullable: false,
    column: 'final_period_of_program',
    description:
      'The loan period is the final period of an undergraduate program (rules.md §2.3). When it is also ' +
      'shorter than an academic year (Σ full_time_credits < academic_year_credits), the statutory limits are ' +
      'prorated by credits ÷ academic_year_credits (34 CFR 685.203(a)(4)–(6), (d)) and the ' +
      'less-than-full-time reduction is not applied on top (reduced_annual_pct 100). Otherwise the normal ' +
      'reduction applies, with a warning. Ignored with a warning for graduate and professional students. ' +
      'Not nullable.',
    page: PAGE_WORDS.final_period_of_program,
  },
  {
    name: 'academic_year_credits',
    level: 'student',
    type: { kind: 'decimal', rule: CREDITS_POSITIVE },
    ...nullDefault,
    column: 'academic_year_credits',
    emptyCell: 'empty = null; required when final_period_of_program is true for an undergraduate',
    description:
      'Credits in the school’s academic-year definition (e.g. 24 or 36), for final_period_of_program. Required ' +
      '(non-null) when final_period_of_program is true for an undergraduate; otherwise it may be null or ' +
      'left out (a value given is still validated).',
    page: PAGE_WORDS.academic_year_credits,
  },
  {
    name: 'health_professions_program',
    level: 'student',
    type: { kind: 'enum', values: HEALTH_PROFESSIONS_PROGRAMS },
    ...nullDefault,
    column: 'health_professions_program',
    emptyCell: `empty = null; one of: ${oneOf(HEALTH_PROFESSIONS_PROGRAMS)}`,
    description: healthProfessionsDescription(),
    page: PAGE_WORDS.health_professions_program,
  },
  {
    name: 'academic_year_months',
    level: 'student',
    type: { kind: 'integer', min: ACADEMIC_YEAR_MONTHS_MIN, max: ACADEMIC_YEAR_MONTHS_MAX },
    ...nullDefault,
    column: 'academic_year_months',
    emptyCell: `empty = null: ${ACADEMIC_YEAR_MONTHS_DEFAULT}`,
    description:
      `Months the health professions program's academic year covers (${ACADEMIC_YEAR_MONTHS_MIN} to ` +
      `${ACADEMIC_YEAR_MONTHS_MAX}; null or absent: 9). For 10 or 11 months the additional amount is the ` +
      '9-month amount ÷ 9 × months, rounded half up; 12 months takes the table’s 12-month amount ' +
      '(rules.md §2.1). Validated even where it is then ignored.',
    page: PAGE_WORDS.academic_year_months,
  },
  {
    name: 'policy',
    level: 'student',
    type: { kind: 'policy' },
    presence: 'default',
    nullable: false,
    column: '',
    description: 'School policy (rules.md §10): see SchoolPolicy.',
  },
  {
    name: 'award_year',
    level: 'student',
    type: { kind: 'award_year' },
    presence: 'default',
    nullable: false,
    column: 'award_year',
    emptyCell: `empty = the award year in force today; supported: ${supportedAwardYears().join(', ')}`,
    description: 'The award year the calculation is for (schema/award-year.ts holds its description).',
    page: PAGE_WORDS.award_year,
  },
] as const satisfies readonly (RequestField & { name: keyof CalculationInput })[];

export type StudentFieldName = (typeof STUDENT_FIELDS)[number]['name'];
export type TermFieldName = (typeof TERM_FIELDS)[number]['name'];

// Compile-time: the table names every key of the domain's input exactly (a field missing from either side fails).
type Missing<A, B> = Exclude<A, B> | Exclude<B, A>;
const studentNamesMatch: [Missing<StudentFieldName, keyof CalculationInput>] extends [never] ? true : never = true;
const termNamesMatch: [Missing<TermFieldName, keyof TermInput>] extends [never] ? true : never = true;
void studentNamesMatch;
void termNamesMatch;

/** Every row of the table, student level first, then term level. */
export const REQUEST_FIELDS: readonly RequestField[] = [...STUDENT_FIELDS, ...TERM_FIELDS];

/** What a request may send for a field of type T (before validation). */
type SentValue<T> = T extends { kind: 'decimal' }
  ? number | string
  : T extends { kind: 'enum'; values: readonly (infer V)[] }
    ? V
    : T extends { kind: 'integer' }
      ? number
      : T extends { kind: 'boolean' }
        ? boolean
        : T extends { kind: 'label' | 'award_year' }
          ? string
          : T extends { kind: 'terms' }
            ? TermRequestInput[]
            : T extends { kind: 'policy' }
              ? PolicyChoices
              : never;

type Sent<F extends { type: unknown; nullable: boolean }> =
  SentValue<F['type']> | (F['nullable'] extends true ? null : never);

/** The request body as a caller writes it, derived from the table: required fields required, the rest optional. */
type RequestInputOf<Fields extends readonly { name: string; presence: Presence; type: unknown; nullable: boolean }[]> =
  { [F in Fields[number] as F['presence'] extends 'required' ? F['name'] : never]: Sent<F> } & {
    [F in Fields[number] as F['presence'] extends 'required' ? never : F['name']]?: Sent<F>;
  };

export type TermRequestInput = RequestInputOf<typeof TERM_FIELDS>;
export type CalculationRequestInput = RequestInputOf<typeof STUDENT_FIELDS>;
