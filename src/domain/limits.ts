/**
 * Statutory annual Direct Loan limits (rules.md §2.1) as dated parameters, kept as ONE auditable table (the model
 * is PolicyEngine's parameters: each value dated, each with a reference title and link, looked up by date).
 *
 * The table holds award years; each award year starts on July 1 and lists one row per kind of student. Every row
 * carries the date its figures took effect, its citation and its references (title and link). A new award year
 * is one data change: append an `awardYear(...)` entry to STATUTORY_LIMIT_TABLE (docs/readings-and-policy.md, "Award years"). Nothing
 * outside this file contains a loan-limit dollar figure: the OpenAPI prose and the warnings read them from here.
 *
 * Legal basis common to every row: HEA §455(a) as amended by Pub. L. 119-21 §81001 (July 4, 2025), and the
 * RISE final rule, 91 FR 23768 (May 1, 2026), effective July 1, 2026. The graduate and professional figures cite
 * HEA §455(a)(4) and the rule's amendatory text at 91 FR 23883, not 34 CFR 685.203(b)(2)(iv), whose amendment the
 * eCFR notes "could not be completed" (rules.md §0).
 */

import type { Reference } from './reference.ts';
import type { DegreeLevel, DependencyStatus, GradeLevel } from './types.ts';

/**
 * Which undergraduates a row applies to. `independent_or_plus_denied` covers independent students and dependent
 * students whose parent was denied a Parent PLUS loan (they borrow at the independent combined limit).
 */
export type DependencyClass = 'dependent' | 'independent_or_plus_denied' | 'any';

/** `cost_of_attendance`: Grad PLUS up to cost of attendance (net of other aid); `none`: no Grad PLUS. */
export type GradPlusRule = 'none' | 'cost_of_attendance';

export type { Reference } from './reference.ts';

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
  /** The award year the row belongs to ("2026-27"). */
  readonly awardYear: string;
  /** The date (YYYY-MM-DD) the row's figures took effect; not after the start of its award year. */
  readonly effective: string;
  /** The citation as written in the rule data (rules.md §0). */
  readonly citation: string;
  /** The citation's sources with links, in the order cited. */
  readonly references: readonly Reference[];
}

/** One award year of the table: its id, its first day (July 1) and one row per kind of student. */
export interface AwardYearLimits {
  /** "2026-27": the award year from July 1, 2026 to June 30, 2027. */
  readonly awardYear: string;
  /** The first day of the award year, YYYY-MM-DD (July 1). */
  readonly start: string;
  readonly rows: readonly StatutoryLimitRow[];
}

/** The whole table: award years in ascending order. */
export type LimitTable = readonly AwardYearLimits[];

// ---------------------------------------------------------------------------------------------- references

const REF = {
  hea455: {
    title: 'HEA §455(a), 20 U.S.C. 1087e(a)',
    href: 'https://www.law.cornell.edu/uscode/text/20/1087e',
  },
  plaw119_21: {
    title: 'Pub. L. 119-21 §81001 (July 4, 2025)',
    href: 'https://www.govinfo.gov/app/details/PLAW-119publ21',
  },
  hea428: {
    title: 'HEA §428(b)(1)(A), 20 U.S.C. 1078(b)(1)(A)',
    href: 'https://www.law.cornell.edu/uscode/text/20/1078',
  },
  hea428H: {
    title: 'HEA §428H(d), 20 U.S.C. 1078-8(d)',
    href: 'https://www.law.cornell.edu/uscode/text/20/1078-8',
  },
  cfr685_203: {
    title: '34 CFR 685.203',
    href: 'https://www.ecfr.gov/current/title-34/subtitle-B/chapter-VI/part-685/subpart-B/section-685.203',
  },
  cfr685_200: {
    title: '34 CFR 685.200(b)(2)',
    href: 'https://www.ecfr.gov/current/title-34/subtitle-B/chapter-VI/part-685/subpart-B/section-685.200',
  },
  fr23768: {
    title: 'RISE final rule, 91 FR 23768 (May 1, 2026), effective July 1, 2026',
    href: 'https://www.federalregister.gov/citation/91-FR-23768',
  },
  fr23883: {
    title: "The RISE final rule's amendatory text, 91 FR 23883",
    href: 'https://www.federalregister.gov/citation/91-FR-23883',
  },
} as const satisfies Record<string, Reference>;

const UNDERGRAD_CITATION =
  'HEA §455(a) as amended by Pub. L. 119-21 §81001 (undergraduate limits of HEA §428(b)(1)(A) and §428H(d)); ' +
  '34 CFR 685.203(a) (subsidized) and 685.203(c) (combined subsidized + unsubsidized)';
const UNDERGRAD_INDEPENDENT_CITATION =
  UNDERGRAD_CITATION +
  '; additional unsubsidized amount for independent undergraduates and for dependent undergraduates whose ' +
  'parents cannot obtain a Parent PLUS loan';
const UNDERGRAD_REFERENCES: readonly Reference[] = [
  REF.hea455,
  REF.plaw119_21,
  REF.hea428,
  REF.hea428H,
  REF.cfr685_203,
];
// The graduate and professional limits: the final rule's amendment of 34 CFR 685.203(b)(2)(iv) "could not be
// completed" in the eCFR, so the statute and the Federal Register page are cited, not that paragraph.
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

/** A citation as written and its sources with links. */
interface Cited {
  readonly citation: string;
  readonly references: readonly Reference[];
}

const UNDERGRAD: Cited = { citation: UNDERGRAD_CITATION, references: UNDERGRAD_REFERENCES };
const UNDERGRAD_INDEPENDENT: Cited = { citation: UNDERGRAD_INDEPENDENT_CITATION, references: UNDERGRAD_REFERENCES };
const GRADUATE: Cited = {
  citation: GRADUATE_CITATION,
  references: [REF.hea455, REF.plaw119_21, REF.fr23883, REF.fr23768, REF.cfr685_200],
};
const PROFESSIONAL: Cited = { citation: PROFESSIONAL_CITATION, references: GRADUATE.references };
const LEGACY: Cited = {
  citation: LEGACY_CITATION,
  references: [REF.hea455, REF.plaw119_21, REF.fr23883, REF.cfr685_200, REF.cfr685_203],
};

type RowSpec = Omit<StatutoryLimitRow, 'awardYear'>;

function row(
  id: string,
  degree: DegreeLevel,
  dependency: DependencyClass,
  grade: GradeLevel | null,
  legacy: boolean | null,
  subsidizedMax: string,
  combinedMax: string,
  gradPlus: GradPlusRule,
  effective: string,
  cited: Cited,
): RowSpec {
  const { citation, references } = cited;
  return {
    id,
    degree,
    dependency,
    grade,
    legacy,
    subsidizedMax,
    combinedMax,
    gradPlus,
    effective,
    citation,
    references,
  };
}

/** One award year of the table ("2026-27" starts on 2026-07-01); every row is stamped with the award year. */
export function awardYear(id: string, rows: readonly RowSpec[]): AwardYearLimits {
  const start = awardYearStart(id);
  if (start === null) throw new Error(`awardYear: "${id}" is not an award year such as 2026-27`);
  return Object.freeze({
    awardYear: id,
    start,
    rows: Object.freeze(
      rows.map((r) => Object.freeze({ ...r, awardYear: id, references: Object.freeze([...r.references]) })),
    ),
  });
}

const AWARD_YEAR_ID = /^(\d{4})-(\d{2})$/;

/** "2026-27" → "2026-07-01"; null when the text is not an award year (the second year must follow the first). */
export function awardYearStart(id: string): string | null {
  const m = AWARD_YEAR_ID.exec(id);
  if (m === null) return null;
  const first = Number(m[1]);
  return (first + 1) % 100 === Number(m[2]) ? `${m[1]}-07-01` : null;
}

// ---------------------------------------------------------------------------------------------- the table

/** The award years this service holds limits for (rules.md §2.1), ascending. Append a new year here. */
export const STATUTORY_LIMIT_TABLE: LimitTable = Object.freeze([
  awardYear('2026-27', [
    row('ug-dep-1', 'undergraduate', 'dependent', 'first_year', null, '3500', '5500', 'none', '2026-07-01', UNDERGRAD),
    row('ug-dep-2', 'undergraduate', 'dependent', 'second_year', null, '4500', '6500', 'none', '2026-07-01', UNDERGRAD),
    row(
      'ug-dep-3',
      'undergraduate',
      'dependent',
      'third_year_and_beyond',
      null,
      '5500',
      '7500',
      'none',
      '2026-07-01',
      UNDERGRAD,
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
      '2026-07-01',
      UNDERGRAD_INDEPENDENT,
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
      '2026-07-01',
      UNDERGRAD_INDEPENDENT,
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
      '2026-07-01',
      UNDERGRAD_INDEPENDENT,
    ),
    row('grad', 'graduate', 'any', null, false, '0', '20500', 'none', '2026-07-01', GRADUATE),
    row('prof', 'professional', 'any', null, false, '0', '50000', 'none', '2026-07-01', PROFESSIONAL),
    row('grad-legacy', 'graduate', 'any', null, true, '0', '20500', 'cost_of_attendance', '2026-07-01', LEGACY),
    row('prof-legacy', 'professional', 'any', null, true, '0', '20500', 'cost_of_attendance', '2026-07-01', LEGACY),
  ]),
]);

/** Every row of every award year of the shipped table. */
export const STATUTORY_LIMITS: readonly StatutoryLimitRow[] = Object.freeze(
  STATUTORY_LIMIT_TABLE.flatMap((y) => y.rows),
);

// ---------------------------------------------------------------------------------------------- lookups

/** The award years a table holds, ascending ("2026-27", …). */
export function supportedAwardYears(table: LimitTable = STATUTORY_LIMIT_TABLE): string[] {
  return table.map((y) => y.awardYear);
}

/** The award year's part of the table, or undefined when the table does not hold it. */
export function findAwardYear(
  awardYear: string,
  table: LimitTable = STATUTORY_LIMIT_TABLE,
): AwardYearLimits | undefined {
  // Indexed loops here and in lookupStatutoryLimit: for…of over these frozen arrays allocated an iterator result
  // per step (a few per student of a bulk file).
  for (let i = 0; i < table.length; i++) if (table[i]!.awardYear === awardYear) return table[i];
  return undefined;
}

/**
 * The award year in force on `date` (YYYY-MM-DD): the newest of the table whose start (July 1) is not after the
 * date; the table's first award year when the date is before all of them. Pure: the caller supplies the date
 * (the schema takes today's UTC date at the door).
 */
export function awardYearOn(date: string, table: LimitTable = STATUTORY_LIMIT_TABLE): string {
  let found = table[0];
  if (found === undefined) throw new Error('awardYearOn: the limit table is empty');
  for (const y of table) if (y.start <= date) found = y;
  return found.awardYear;
}

export interface LimitKey {
  /** The award year the calculation is for; it must be in the table (validated by the schema). */
  awardYear: string;
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
 * The row that applies to a student in an award year. Undergraduates are keyed by dependency (a dependent whose
 * parent was denied Parent PLUS uses the independent row) and grade; graduate and professional students by
 * legacy status. Throws only on a programming error (an award year the table does not hold, or an undergraduate
 * without a grade level: the schema rejects both).
 */
export function lookupStatutoryLimit(key: LimitKey, table: LimitTable = STATUTORY_LIMIT_TABLE): StatutoryLimitRow {
  const year = findAwardYear(key.awardYear, table);
  if (year === undefined) {
    throw new Error(
      `lookupStatutoryLimit: no limits for award year ${JSON.stringify(key.awardYear)} (validated by the schema)`,
    );
  }
  const undergrad = key.degree === 'undergraduate';
  if (undergrad && key.grade === null) {
    throw new Error('lookupStatutoryLimit: an undergraduate needs a grade level (validated by the schema)');
  }
  const dependency: DependencyClass = !undergrad
    ? 'any'
    : key.dependency === 'independent' || key.plusDenied
      ? 'independent_or_plus_denied'
      : 'dependent';
  const rows = year.rows;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (r.degree !== key.degree || r.dependency !== dependency) continue;
    if (undergrad ? r.grade === key.grade : r.legacy === key.legacy) return r;
  }
  throw new Error(`lookupStatutoryLimit: no statutory limit row for ${JSON.stringify(key)}`);
}
