/**
 * The fields of a CalculationRequest as the form shows them. Each input's `name` is the API field path
 * (`dependency_status`, `terms[1].credits_enrolled`), so an API field error finds its input by name, and the
 * help text under each field is the field's description in the OpenAPI document. The health professions programs
 * and the months come from the service's own table (service-tables.js, written from the domain at build time).
 */
import { ACADEMIC_YEAR_MONTHS, HEALTH_PROFESSIONS } from './service-tables.js';

export type FieldKind = 'select' | 'decimal' | 'checkbox' | 'text';

export interface FieldDef {
  /** The request field (for a term field, the name within the term). */
  key: string;
  label: string;
  kind: FieldKind;
  /** Select options: [value, label]; the value '' leaves the field out of the request. */
  options?: readonly (readonly [string, string])[];
  /** A select whose values are whole numbers in the request (academic_year_terms). */
  integer?: boolean;
  /** Values come from the OpenAPI enum of the field, after these fixed options. */
  enumFromApi?: boolean;
  required?: boolean;
  /** A hint under the label (units, examples). */
  hint?: string;
  /**
   * Meaningful only for a legacy graduate or professional student (the service ignores it with a warning for
   * anyone else): the form says so beside a value it would ignore, and keeps the value.
   */
  legacyOnly?: boolean;
}

const dollars = (n: number): string => `$${n.toLocaleString('en-US')}`;

/** `osteopathic_medicine` → "Osteopathic medicine". */
export function programName(program: string): string {
  const words = program.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const PROGRAM_OPTIONS = HEALTH_PROFESSIONS.map(
  (p) => [p.program, `${programName(p.program)} — table ${p.table}, +${dollars(p.nineMonths)} for 9 months`] as const,
);

const MONTH_OPTIONS: (readonly [string, string])[] = [];
for (let m = ACADEMIC_YEAR_MONTHS.min; m <= ACADEMIC_YEAR_MONTHS.max; m++) MONTH_OPTIONS.push([String(m), `${m}`]);

export const STUDENT_FIELDS: readonly FieldDef[] = [
  {
    key: 'dependency_status',
    label: 'Dependency status',
    kind: 'select',
    required: true,
    options: [
      ['dependent', 'Dependent'],
      ['independent', 'Independent'],
    ],
  },
  {
    key: 'degree_level',
    label: 'Degree level',
    kind: 'select',
    options: [
      ['undergraduate', 'Undergraduate'],
      ['graduate', 'Graduate'],
      ['professional', 'Professional'],
    ],
  },
  {
    key: 'grade_level',
    label: 'Grade level',
    kind: 'select',
    options: [
      ['', '(none: graduate or professional)'],
      ['first_year', 'First year'],
      ['second_year', 'Second year'],
      ['third_year_and_beyond', 'Third year and beyond'],
    ],
  },
  {
    key: 'academic_year_terms',
    label: 'Terms in the academic year',
    kind: 'select',
    integer: true,
    options: [
      ['', '(the terms below are the whole year)'],
      ['2', '2'],
      ['3', '3'],
      ['4', '4'],
    ],
  },
  { key: 'subsidized_amount', label: 'Subsidized eligibility', kind: 'decimal', hint: 'dollars' },
  { key: 'total_limit', label: 'Institutional total limit', kind: 'decimal', hint: 'dollars' },
  { key: 'cost_of_attendance', label: 'Cost of attendance', kind: 'decimal', hint: 'dollars, net of other aid' },
  { key: 'is_legacy_borrower', label: 'Legacy borrower (interim exception)', kind: 'checkbox' },
  { key: 'plus_denied', label: 'PLUS loan denied', kind: 'checkbox' },
  {
    key: 'health_professions_program',
    label: 'Health professions program',
    kind: 'select',
    legacyOnly: true,
    hint: 'legacy graduate or professional only',
    options: [['', '(none)'], ...PROGRAM_OPTIONS],
  },
  {
    key: 'academic_year_months',
    label: 'Months in the academic year',
    kind: 'select',
    integer: true,
    legacyOnly: true,
    hint: 'for the health professions increase',
    options: [['', `(not given: ${ACADEMIC_YEAR_MONTHS.default})`], ...MONTH_OPTIONS],
  },
  { key: 'final_period_of_program', label: 'Final period of an undergraduate program', kind: 'checkbox' },
  { key: 'academic_year_credits', label: 'Credits in the academic year', kind: 'decimal', hint: 'credits' },
  {
    key: 'award_year',
    label: 'Award year',
    kind: 'select',
    enumFromApi: true,
    options: [['', '(the current award year)']],
  },
];

export const TERM_FIELDS: readonly FieldDef[] = [
  { key: 'label', label: 'Term name', kind: 'text', required: true, hint: 'e.g. Fall' },
  { key: 'full_time_credits', label: 'Full-time credits', kind: 'decimal', required: true, hint: 'credits' },
  { key: 'credits_enrolled', label: 'Credits enrolled', kind: 'decimal', required: true, hint: 'credits' },
  { key: 'actual_final_credits', label: 'Final credits, if known', kind: 'decimal', hint: 'credits' },
  { key: 'prior_disbursement_sub', label: 'Subsidized already paid', kind: 'decimal', hint: 'dollars' },
  { key: 'prior_disbursement_unsub', label: 'Unsubsidized already paid', kind: 'decimal', hint: 'dollars' },
  { key: 'prior_disbursement_grad_plus', label: 'Grad PLUS already paid', kind: 'decimal', hint: 'dollars' },
];

export const MAX_TERMS = 4;

export const termPath = (index: number, key: string): string => `terms[${index}].${key}`;
