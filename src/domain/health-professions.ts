/**
 * Increased Direct Unsubsidized amounts for health professions programs (rules.md §2.1, revision 2026-27.3), as
 * ONE auditable table beside the statutory limits (src/domain/limits.ts). Prior law let graduate and professional
 * students in these programs borrow an additional Unsubsidized amount on top of the $20,500; the interim exception
 * keeps prior-law limits for legacy borrowers, so for them C_max = 20,500 + the additional amount. Everyone else
 * has no increase (it ended for borrowers without the interim exception and never applied to undergraduates).
 *
 * The additional amount for an academic year of 9 months is the 9-month column, for 12 months the 12-month
 * column, and for 10 or 11 months the 9-month amount ÷ 9 × months, rounded half up to whole dollars (dentistry,
 * 11 months: 20,000 ÷ 9 × 11 = 24,444). Foreign schools may not award the increase; the service cannot know.
 */

import { type Dec } from './decimal.ts';
import { dec, decInt } from './decimal-read.ts';
import { type HealthProfessionsProgram } from './health-professions-programs.ts';
import { type Reference, awardYearStart } from './limits.ts';
import { roundHalfUpDiv } from './rounding.ts';

const HANDBOOK_CH4: Reference = {
  title: 'FSA Handbook 2025-26, Vol. 8 ch. 4 ("Annual and Aggregate Loan Limits"), tables 3A and 3B',
  href: 'https://fsapartners.ed.gov/knowledge-center/fsa-handbook/2025-2026/vol8',
};
const FAQ_GPSLL_Q5: Reference = {
  title: 'FSA Loan Limits FAQ (2026-05-20), GPSLL-Q5',
  href: 'https://fsapartners.ed.gov/knowledge-center/topics/one-big-beautiful-bill-act-implementation',
};

export interface HealthProfessionsRow {
  readonly program: string;
  /** The Handbook table the program is listed in. */
  readonly table: '3A' | '3B';
  /** Additional Unsubsidized amount for a 9-month academic year, whole dollars as a decimal string. */
  readonly nineMonths: string;
  /** Additional Unsubsidized amount for a 12-month academic year. */
  readonly twelveMonths: string;
  /** The date the amounts apply from under the interim exception (the 2026-27 award year). */
  readonly effective: string;
  readonly citation: string;
  readonly references: readonly Reference[];
}

const CITATION_3A =
  'FSA Handbook 2025-26 Vol. 8 ch. 4, table 3A (additional Unsubsidized: $20,000 for 9 months, $26,667 for 12); ' +
  'kept for legacy borrowers by the interim exception (FSA Loan Limits FAQ 2026-05-20, GPSLL-Q5)';
const CITATION_3B =
  'FSA Handbook 2025-26 Vol. 8 ch. 4, table 3B (additional Unsubsidized: $12,500 for 9 months, $16,667 for 12); ' +
  'kept for legacy borrowers by the interim exception (FSA Loan Limits FAQ 2026-05-20, GPSLL-Q5)';

function row3A(program: string): HealthProfessionsRow {
  return Object.freeze({
    program,
    table: '3A',
    nineMonths: '20000',
    twelveMonths: '26667',
    effective: '2026-07-01',
    citation: CITATION_3A,
    references: [HANDBOOK_CH4, FAQ_GPSLL_Q5],
  });
}

function row3B(program: string): HealthProfessionsRow {
  return Object.freeze({
    program,
    table: '3B',
    nineMonths: '12500',
    twelveMonths: '16667',
    effective: '2026-07-01',
    citation: CITATION_3B,
    references: [HANDBOOK_CH4, FAQ_GPSLL_Q5],
  });
}

export { HEALTH_PROFESSIONS_PROGRAMS, type HealthProfessionsProgram } from './health-professions-programs.ts';

/** The table: one row per program, table 3A then 3B, in the order of rules.md §2.1. */
export const HEALTH_PROFESSIONS_TABLE: Readonly<Record<HealthProfessionsProgram, HealthProfessionsRow>> = Object.freeze(
  {
    medicine: row3A('medicine'),
    osteopathic_medicine: row3A('osteopathic_medicine'),
    dentistry: row3A('dentistry'),
    veterinary_medicine: row3A('veterinary_medicine'),
    optometry: row3A('optometry'),
    podiatric_medicine: row3A('podiatric_medicine'),
    naturopathic_medicine: row3A('naturopathic_medicine'),
    public_health: row3B('public_health'),
    chiropractic: row3B('chiropractic'),
    clinical_psychology: row3B('clinical_psychology'),
    health_administration: row3B('health_administration'),
  },
);

/** Months an academic year may cover for the increase (rules.md §2.1): 9 to 12; null means 9. */
export const ACADEMIC_YEAR_MONTHS_MIN = 9;
export const ACADEMIC_YEAR_MONTHS_MAX = 12;
export const ACADEMIC_YEAR_MONTHS_DEFAULT = 9;

export function isHealthProfessionsProgram(value: unknown): value is HealthProfessionsProgram {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(HEALTH_PROFESSIONS_TABLE, value);
}

/** The increase a legacy graduate/professional student's C_max gains (rules.md §2.1). */
export interface HealthProfessionsIncrease {
  readonly row: HealthProfessionsRow;
  /** The months of the academic year used (null in the request means 9). */
  readonly months: number;
  /** The additional Unsubsidized amount, whole dollars. */
  readonly additional: Dec;
  /** How the amount was found: "the 9-month amount" or "20000 ÷ 9 × 11 = 24444.44…, rounded half up". */
  readonly how: string;
}

const increases = new Map<string, HealthProfessionsIncrease | null>();

/**
 * The additional amount for a program and months in an award year: the 9-month column for 9 months, the 12-month
 * column for 12, the 9-month amount ÷ 9 × months rounded half up for 10 or 11. Null when the row is not yet in
 * force in that award year (its `effective` date is after the award year's July 1). Cached per key.
 */
export function healthProfessionsIncrease(
  program: HealthProfessionsProgram,
  months: number | null,
  awardYear: string,
): HealthProfessionsIncrease | null {
  const m = months ?? ACADEMIC_YEAR_MONTHS_DEFAULT;
  const key = `${program}|${m}|${awardYear}`;
  const cached = increases.get(key);
  if (cached !== undefined) return cached;
  const row = HEALTH_PROFESSIONS_TABLE[program];
  const start = awardYearStart(awardYear);
  let increase: HealthProfessionsIncrease | null = null;
  if (start !== null && row.effective <= start) {
    if (m <= ACADEMIC_YEAR_MONTHS_MIN) {
      increase = Object.freeze({ row, months: m, additional: dec(row.nineMonths), how: 'the 9-month amount' });
    } else if (m >= ACADEMIC_YEAR_MONTHS_MAX) {
      increase = Object.freeze({ row, months: m, additional: dec(row.twelveMonths), how: 'the 12-month amount' });
    } else {
      const nine = dec(row.nineMonths);
      const additional = roundHalfUpDiv(nine.times(decInt(m)), decInt(ACADEMIC_YEAR_MONTHS_MIN));
      increase = Object.freeze({
        row,
        months: m,
        additional,
        how: `the 9-month amount ÷ 9 × ${m} = ${row.nineMonths} ÷ 9 × ${m}, rounded half up`,
      });
    }
  }
  increases.set(key, increase);
  return increase;
}
