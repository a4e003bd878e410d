/**
 * Statutory annual Direct Loan limits for award year 2026-27 (rules.md §2.1), kept as ONE auditable table.
 *
 * Every row carries its citation and effective date. When a new award year changes a value, add rows for the
 * new year rather than editing figures in code: nothing outside this file contains a loan-limit dollar figure.
 *
 * Legal basis common to every row: HEA §455(a) as amended by Pub. L. 119-21 §81001 (July 4, 2025), and the
 * RISE final rule, 91 FR 23768 (May 1, 2026), effective July 1, 2026. The graduate and professional figures cite
 * HEA §455(a)(4) and the rule's amendatory text at 91 FR 23883, not 34 CFR 685.203(b)(2)(iv), whose amendment the
 * eCFR notes "could not be completed" (rules.md §0).
 */

import type { DegreeLevel, DependencyStatus, GradeLevel } from './types.ts';

export const AWARD_YEAR = '2026-27';
export const EFFECTIVE_DATE = '2026-07-01';

/**
 * Which undergraduates a row applies to. `independent_or_plus_denied` covers independent students and dependent
 * students whose parent was denied a Parent PLUS loan (they borrow at the independent combined limit).
 */
export type DependencyClass = 'dependent' | 'independent_or_plus_denied' | 'any';

/** `cost_of_attendance`: Grad PLUS up to cost of attendance (net of other aid); `none`: no Grad PLUS. */
export type GradPlusRule = 'none' | 'cost_of_attendance';

export interface StatutoryLimitRow {
  readonly id: string;
  readonly degree: DegreeLevel;
  readonly dependency: DependencyClass;
  /** Undergraduate grade level; null for graduate and professional rows (grade level does not apply). */
  readonly grade: GradeLevel | null;
  /** Graduate/professional interim (legacy) exception; null for undergraduate rows (does not apply). */
  readonly legacy: boolean | null;
  /** Annual Direct Subsidized maximum, whole dollars as a decimal string. */
  readonly subsidizedMax: string;
  /** Annual combined Direct Subsidized + Unsubsidized maximum, whole dollars as a decimal string. */
  readonly combinedMax: string;
  readonly gradPlus: GradPlusRule;
  readonly awardYear: string;
  readonly effective: string;
  readonly citation: string;
}

const UNDERGRAD_CITATION =
  'HEA §455(a) as amended by Pub. L. 119-21 §81001 (undergraduate limits of HEA §428(b)(1)(A) and §428H(d)); ' +
  '34 CFR 685.203(a) (subsidized) and 685.203(c) (combined subsidized + unsubsidized)';
const UNDERGRAD_INDEPENDENT_CITATION =
  UNDERGRAD_CITATION +
  '; additional unsubsidized amount for independent undergraduates and for dependent undergraduates whose ' +
  'parents cannot obtain a Parent PLUS loan';
// The $20,500 / $50,000 graduate and professional limits: the final rule's amendment of 34 CFR 685.203(b)(2)(iv)
// "could not be completed" in the eCFR, so the statute and the Federal Register page are cited, not that paragraph.
const GRADUATE_CITATION =
  'HEA §455(a)(4) (20 U.S.C. 1087e(a)(4)) as amended by Pub. L. 119-21 §81001 (graduate $20,500 annual); the ' +
  "RISE final rule's amendatory text at 91 FR 23883 (91 FR 23768, effective 2026-07-01); 34 CFR 685.200(b)(2) " +
  '(Grad PLUS ends for new borrowers)';
const PROFESSIONAL_CITATION =
  'HEA §455(a)(4) (20 U.S.C. 1087e(a)(4)) as amended by Pub. L. 119-21 §81001 (professional $50,000 annual); ' +
  "the RISE final rule's amendatory text at 91 FR 23883 (91 FR 23768, effective 2026-07-01); 34 CFR " +
  '685.200(b)(2) (Grad PLUS ends for new borrowers)';
const LEGACY_CITATION =
  'HEA §455(a)(4) (20 U.S.C. 1087e(a)(4)) as amended by Pub. L. 119-21 §81001 (interim exception for borrowers ' +
  'with a loan for the same program before July 1, 2026; $20,500 annual); 91 FR 23883; 34 CFR 685.200(b)(2) ' +
  '(Grad PLUS for legacy borrowers, sized after the reduction up to cost of attendance minus other aid per 34 ' +
  'CFR 685.203(j)(1))';

function row(
  id: string,
  degree: DegreeLevel,
  dependency: DependencyClass,
  grade: GradeLevel | null,
  legacy: boolean | null,
  subsidizedMax: string,
  combinedMax: string,
  gradPlus: GradPlusRule,
  citation: string,
): StatutoryLimitRow {
  return Object.freeze({
    id,
    degree,
    dependency,
    grade,
    legacy,
    subsidizedMax,
    combinedMax,
    gradPlus,
    awardYear: AWARD_YEAR,
    effective: EFFECTIVE_DATE,
    citation,
  });
}

/** The table of rules.md §2.1, one row per kind of student. */
export const STATUTORY_LIMITS: readonly StatutoryLimitRow[] = Object.freeze([
  row('ug-dep-1', 'undergraduate', 'dependent', 'first_year', null, '3500', '5500', 'none', UNDERGRAD_CITATION),
  row('ug-dep-2', 'undergraduate', 'dependent', 'second_year', null, '4500', '6500', 'none', UNDERGRAD_CITATION),
  row(
    'ug-dep-3',
    'undergraduate',
    'dependent',
    'third_year_and_beyond',
    null,
    '5500',
    '7500',
    'none',
    UNDERGRAD_CITATION,
  ),
  row(
    'ug-ind-1',
    'undergraduate',
    'independent_or_plus_denied',
    'first_year',
    null,
    '3500',
    '9500',
    'none',
    UNDERGRAD_INDEPENDENT_CITATION,
  ),
  row(
    'ug-ind-2',
    'undergraduate',
    'independent_or_plus_denied',
    'second_year',
    null,
    '4500',
    '10500',
    'none',
    UNDERGRAD_INDEPENDENT_CITATION,
  ),
  row(
    'ug-ind-3',
    'undergraduate',
    'independent_or_plus_denied',
    'third_year_and_beyond',
    null,
    '5500',
    '12500',
    'none',
    UNDERGRAD_INDEPENDENT_CITATION,
  ),
  row('grad', 'graduate', 'any', null, false, '0', '20500', 'none', GRADUATE_CITATION),
  row('prof', 'professional', 'any', null, false, '0', '50000', 'none', PROFESSIONAL_CITATION),
  row('grad-legacy', 'graduate', 'any', null, true, '0', '20500', 'cost_of_attendance', LEGACY_CITATION),
  row('prof-legacy', 'professional', 'any', null, true, '0', '20500', 'cost_of_attendance', LEGACY_CITATION),
]);

export interface LimitKey {
  degree: DegreeLevel;
  dependency: DependencyStatus;
  /** For undergraduates, a parent's Parent PLUS denial; ignored for graduate and professional students. */
  plusDenied: boolean;
  /** Required for undergraduates; ignored for graduate and professional students. */
  grade: GradeLevel | null;
  /** Ignored for undergraduates. */
  legacy: boolean;
}

/**
 * The row that applies to a student. Undergraduates are keyed by dependency (a dependent whose parent was
 * denied Parent PLUS uses the independent row) and grade; graduate and professional students by legacy status.
 * Throws only on a programming error (an undergraduate without a grade level, which the schema rejects).
 */
export function lookupStatutoryLimit(key: LimitKey): StatutoryLimitRow {
  const undergrad = key.degree === 'undergraduate';
  if (undergrad && key.grade === null) {
    throw new Error('lookupStatutoryLimit: an undergraduate needs a grade level (validated by the schema)');
  }
  const dependency: DependencyClass = !undergrad
    ? 'any'
    : key.dependency === 'independent' || key.plusDenied
      ? 'independent_or_plus_denied'
      : 'dependent';
  for (const r of STATUTORY_LIMITS) {
    if (r.degree !== key.degree || r.dependency !== dependency) continue;
    if (undergrad ? r.grade === key.grade : r.legacy === key.legacy) return r;
  }
  throw new Error(`lookupStatutoryLimit: no statutory limit row for ${JSON.stringify(key)}`);
}
