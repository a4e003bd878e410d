/**
 * The domain against its previous implementation, kept as an oracle: test/domain/support/legacy/ is src/domain as
 * it was before the exact scaled-integer decimal type (commit 604e8bd, decimal.js at precision 60 on every path),
 * unchanged but for one eslint directive that has no rule to silence outside src/domain.
 *
 * 100,000 seeded random requests (1–4 terms, credits with up to 6 decimals up to 1,000, actual final credits,
 * prior disbursements, cost of attendance, total limit, final period, graduate and professional, legacy,
 * plus_denied, two award years) must give deep-equal results (-0 and 0 told apart) from calculate(), from
 * calculate() under each reading of the shadow check (in turn), from the figures the shadow check compares (for
 * every other round of the readings) and, for a sample, from calculateWithTrace(); a thrown error must be the same.
 *
 * Rule set 2026-27.3 changed the answers on purpose in three places, so the oracle only covers the requests the
 * revision leaves alone: no undergraduate final period (§2.3 now prorates differently; a graduate's ignored flag is
 * still generated), no health professions program or months (§2.1) and the default school policy (§10); the readings
 * compared are the old reasons' (the four new reasons have no old counterpart), each mapped onto today's Readings
 * with the new readings at the service's values. A request whose answer carries one of the new §7 sentences (a $0
 * Grad PLUS explained, 2026-27.3) is left out and counted: the old engine had no such sentence.
 */

import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bench/support/random-file.ts';
import { calculate } from '../../src/domain/calculate.ts';
import { StudentFigures } from '../../src/domain/figures.ts';
import { type LimitTable, STATUTORY_LIMIT_TABLE, awardYear } from '../../src/domain/limits.ts';
import { REASON_READINGS, type Readings, SERVICE_READINGS, readingsWith } from '../../src/domain/readings.ts';
import * as W from '../../src/domain/warnings.ts';
import { calculateWithTrace } from '../../src/domain/trace.ts';
import { DEFAULT_POLICY } from '../../src/domain/policy.ts';
import type { CalculationInput, TermInput } from '../../src/domain/types.ts';
import { calculate as oldCalculate } from './support/legacy/calculate.ts';
import { StudentFigures as OldStudentFigures } from './support/legacy/figures.ts';
import {
  REASON_READINGS as OLD_REASON_READINGS,
  type Readings as OldReadings,
  SERVICE_READINGS as OLD_SERVICE_READINGS,
} from './support/legacy/readings.ts';
import { calculateWithTrace as oldCalculateWithTrace } from './support/legacy/trace.ts';
import { scaled } from './support/arbitraries.ts';

/** The shipped award year and a fictitious 2027-28 with other limits, some with cents. */
const TABLE: LimitTable = [
  ...STATUTORY_LIMIT_TABLE,
  awardYear(
    '2027-28',
    STATUTORY_LIMIT_TABLE[0]!.rows.map((r) => {
      if (r.id === 'ug-dep-1')
        return { ...r, subsidizedMax: '3700.50', combinedMax: '5800.25', effective: '2027-07-01' };
      if (r.id === 'grad') return { ...r, combinedMax: '21000', effective: '2027-07-01' };
      return r;
    }),
  ),
];
const AWARD_YEARS = TABLE.map((y) => y.awardYear);
/**
 * Each reading the old shadow check used, with the legacy module's own object for it (it compares by identity):
 * today's readings of the same reasons (the new readings at the service's values).
 */
const OLD_READINGS: OldReadings[] = [OLD_SERVICE_READINGS, ...Object.values(OLD_REASON_READINGS).flat()];
const READINGS: Readings[] = [
  SERVICE_READINGS,
  ...(Object.keys(OLD_REASON_READINGS) as (keyof typeof OLD_REASON_READINGS)[]).flatMap((r) => REASON_READINGS[r]),
];
const READING_NAMES = READINGS.map((r) => JSON.stringify(r));

const random = mulberry32(20_261_124);
const int = (max: number) => Math.floor(random() * (max + 1));
const chance = (p: number) => random() < p;
const pick = <T>(items: readonly T[]): T => items[int(items.length - 1)]!;

/** A canonical decimal string of at most `max` with up to `places` decimals (places often 0). */
function decimal(max: number, places: number): string {
  const p = chance(0.5) ? 0 : int(places);
  return scaled(Math.min(int(max * 10 ** p), max * 10 ** p), p);
}

function credits(fullTime: number): string {
  const r = random();
  if (r < 0.05) return '0';
  if (r < 0.1) return String(fullTime);
  if (r < 0.15) return decimal(1000, 6);
  return decimal(Math.ceil(fullTime * 1.3), 6);
}

function money(): string {
  const r = random();
  if (r < 0.1) return '0';
  if (r < 0.15) return '100000000';
  if (r < 0.6) return String(int(20_000));
  if (r < 0.9) return decimal(100_000, 2);
  return decimal(100_000_000, 6);
}

function prior(): string | null {
  const r = random();
  if (r < 0.6) return null;
  if (r < 0.7) return '0';
  if (r < 0.75) return '0.5';
  return chance(0.8) ? String(int(5000)) : money();
}

function term(i: number): TermInput {
  const fullTime = chance(0.7) ? pick([12, 12, 12, 9, 6, 15, 24]) : Math.max(1, int(30));
  const fullTimeText = chance(0.9) ? String(fullTime) : decimal(1000, 6).replace(/^0$/, '1');
  return {
    label: pick(['Fall', 'Winter', 'Spring', 'Summer', `Q${i + 1}`]),
    full_time_credits: fullTimeText,
    credits_enrolled: credits(fullTime),
    actual_final_credits: chance(0.3) ? credits(fullTime) : null,
    prior_disbursement_sub: prior(),
    prior_disbursement_unsub: prior(),
    prior_disbursement_grad_plus: prior(),
  };
}

function request(): CalculationInput {
  const n = 1 + int(3);
  const degree = pick(['undergraduate', 'undergraduate', 'graduate', 'professional'] as const);
  // 2026-27.3 changed §2.3: only a graduate or professional student's (ignored) final-period flag is generated.
  const finalPeriod = degree !== 'undergraduate' && chance(0.15);
  const academicYearCredits = finalPeriod ? decimal(60, 6) : chance(0.05) ? '24' : null;
  return {
    dependency_status: pick(['dependent', 'independent'] as const),
    degree_level: degree,
    grade_level:
      degree === 'undergraduate' || chance(0.2)
        ? pick(['first_year', 'second_year', 'third_year_and_beyond'] as const)
        : null,
    academic_year_terms: chance(0.5) ? null : Math.min(4, n + int(2)),
    cost_of_attendance: chance(0.5) ? null : money(),
    is_legacy_borrower: chance(0.5),
    plus_denied: chance(0.2),
    subsidized_amount: chance(0.15) ? null : money(),
    total_limit: chance(0.6) ? null : money().replace(/^0$/, '1'),
    final_period_of_program: finalPeriod,
    academic_year_credits: academicYearCredits === '0' ? '1' : academicYearCredits,
    health_professions_program: null,
    academic_year_months: null,
    policy: DEFAULT_POLICY,
    award_year: pick(AWARD_YEARS),
    terms: Array.from({ length: n }, (_, i) => term(i)),
  };
}

/** The §7 sentences 2026-27.3 added for a default request: a legacy borrower's $0 Grad PLUS explained. */
function hasNewSentence(result: unknown): boolean {
  const warnings = (result as { warnings?: unknown }).warnings;
  return (
    Array.isArray(warnings) &&
    warnings.some((w) => typeof w === 'string' && w.startsWith('Grad PLUS is $0 because') && !OLD_GRAD_PLUS_ZERO.has(w))
  );
}

/** The "Grad PLUS is $0 because" sentences the old engine already had (plus_denied, no cost of attendance, closed). */
const OLD_GRAD_PLUS_ZERO: ReadonlySet<string> = new Set([
  W.gradPlusDenied(),
  W.gradPlusNeedsCostOfAttendance(),
  W.gradPlusClosedToNewBorrowers(),
]);

/**
 * The old engine said a below-half-time term's credits "still count" under every reading; under the excluded one
 * they do not, and the sentence now says so (2026-27.3). Under that reading, the old wording is put back before
 * the comparison, so everything else is still held to the old engine.
 */
const EXCLUDED_TAIL =
  'its credits are left out of the academic-year percentage (school policy below_half_time_credits=excluded).';
function withOldBelowHalfTimeWording(result: unknown): unknown {
  const fix = (text: string) =>
    text
      .replaceAll(
        `and receives no disbursement; ${EXCLUDED_TAIL}`,
        'and receives no disbursement, but its credits still count toward the academic-year percentage.',
      )
      .replaceAll(`and ${EXCLUDED_TAIL}`, 'and its credits still count toward the academic-year percentage.');
  if (typeof result !== 'object' || result === null || !('warnings' in result)) return result;
  const r = structuredClone(result) as { warnings: string[]; terms: { warning: string }[] };
  r.warnings = r.warnings.map(fix);
  for (const t of r.terms) t.warning = fix(t.warning);
  return r;
}

/** The value of run(), or the message of what it threw. */
function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (e) {
    return { threw: (e as Error).message };
  }
}

function agree(what: string, input: CalculationInput, ours: unknown, theirs: unknown): void {
  if (!isDeepStrictEqual(ours, theirs)) {
    expect({ what, input, result: ours }).toStrictEqual({ what, input, result: theirs });
  }
}

const REQUESTS = 100_000;
const TRACE_EVERY = 25;

describe('the domain against its previous decimal.js implementation (test/domain/support/legacy)', () => {
  it(`${REQUESTS.toLocaleString('en-US')} seeded random requests: calculate(), every reading, figures, traces`, () => {
    // today's readings of the old reasons are the old readings plus the new ones at the service's values
    expect(READINGS).toStrictEqual(OLD_READINGS.map((r) => readingsWith(r)));
    let computed = 0;
    let newSentence = 0;
    for (let k = 0; k < REQUESTS; k++) {
      const input = request();
      const ours = outcome(() => calculate(input, TABLE));
      if (hasNewSentence(ours)) {
        newSentence++;
        continue;
      }
      agree(
        'calculate',
        input,
        ours,
        outcome(() => oldCalculate(input, TABLE)),
      );
      if (typeof ours === 'object' && ours !== null && 'threw' in ours) continue;
      computed++;
      const r = k % READINGS.length;
      const [readings, oldReadings] = [READINGS[r]!, OLD_READINGS[r]!];
      const under = outcome(() => calculate(input, TABLE, readings));
      const oursUnder = readings.belowHalfTimeCredits === 'excluded' ? withOldBelowHalfTimeWording(under) : under;
      if (!hasNewSentence(oursUnder)) {
        agree(
          `calculate under ${READING_NAMES[r]!}`,
          input,
          oursUnder,
          outcome(() => oldCalculate(input, TABLE, oldReadings)),
        );
      }
      // the shadow check's figures for every other round of the readings
      if (Math.floor(k / READINGS.length) % 2 === 1) continue;
      const student = new StudentFigures(input, TABLE);
      const oldStudent = new OldStudentFigures(input, TABLE);
      agree(
        `figures under ${READING_NAMES[r]!}`,
        input,
        outcome(() => student.under(readings)),
        outcome(() => oldStudent.under(oldReadings)),
      );
      if (readings !== SERVICE_READINGS) {
        agree(
          `annualsUnder ${READING_NAMES[r]!}`,
          input,
          outcome(() => student.annualsUnder(readings)),
          outcome(() => oldStudent.annualsUnder(oldReadings)),
        );
      }
      if (k % TRACE_EVERY === 0) {
        agree(
          'calculateWithTrace',
          input,
          outcome(() => calculateWithTrace(input, TABLE)),
          outcome(() => oldCalculateWithTrace(input, TABLE)),
        );
      }
    }
    // the generator makes valid requests: nearly all are computed, not refused, and few carry a new sentence
    expect(newSentence).toBeLessThan(REQUESTS * 0.05);
    expect(computed).toBeGreaterThan(REQUESTS * 0.9);
  }, 120_000);
});
