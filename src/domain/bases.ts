/**
 * Starting amounts per loan type, before the reduction (rules.md §2.2), in this order:
 *
 * 0. (§2.1) for a legacy graduate or professional student in a health professions program, C_max gains the
 *    program's additional unsubsidized amount (src/domain/health-professions.ts); (§2.3) for the final period of
 *    an undergraduate program shorter than an academic year, the statutory limits are first prorated
 *    (src/domain/final-period.ts);
 * 1. sub_base = min(subsidized_amount, statutory subsidized max); 0 for graduate and professional students;
 * 2. unsub_base = combined max − sub_base (unused subsidized eligibility shifts to unsubsidized);
 * 4. total_limit (institutional program limit, 34 CFR 685.203(m)(2)) caps sub + unsub, lowering unsubsidized,
 *    then subsidized;
 * 5. cost_of_attendance (net of other aid, 34 CFR 685.203(j)(1)) caps the same sum in the same order.
 * 3. Grad PLUS (legacy graduate/professional borrowers without plus_denied) is sized *after* the reduction of
 *    the other two (src/domain/grad-plus.ts): this module only says whether it is in play, from which cost of
 *    attendance, and under which total_limit ceiling (total_limit − sub_base − unsub_base).
 *
 * Each cap that binds adds a warning naming the cap and the amounts. Bases keep any cents of the inputs; only
 * the reduced annual amounts are rounded (rules.md §3).
 */

import { type Dec, ZERO, isPositive, maxDec, minDec } from './decimal.ts';
import { dec } from './decimal-read.ts';
import { type PeriodTerm, type ProratedLimits, type ProrationReadings, proratedLimits } from './final-period.ts';
import type { GradPlusSizing } from './grad-plus.ts';
import { type HealthProfessionsIncrease, healthProfessionsIncrease } from './health-professions.ts';
import { type LimitTable, STATUTORY_LIMIT_TABLE, type StatutoryLimitRow, lookupStatutoryLimit } from './limits.ts';
import type { CalculationInput } from './types.ts';
import * as W from './warnings-bases.ts';

export interface StartingAmounts {
  sub: Dec;
  unsub: Dec;
  /** How Grad PLUS is sized after the reduction; null when the student has no Grad PLUS. */
  gradPlus: GradPlusSizing | null;
  /** The statutory row the amounts were drawn from (for audit and explanations). */
  limit: StatutoryLimitRow;
  /** The §2.1 health professions increase added to C_max, when it applies. */
  healthProfessions: HealthProfessionsIncrease | null;
  /** The §2.3 prorated limits, when the final-period proration applies. */
  proration: ProratedLimits | null;
  /** The limits the bases were drawn from: the row's, with the §2.1 increase and the §2.3 proration applied. */
  subsidizedMax: Dec;
  combinedMax: Dec;
  warnings: string[];
}

/** §2.3: prorate the statutory limits by the period's credits at origination over the academic year's credits. */
export interface FinalPeriodProration {
  terms: readonly PeriodTerm[];
  academicYearCredits: Dec;
  readings: ProrationReadings;
}

interface ParsedLimit {
  subsidizedMax: Dec;
  combinedMax: Dec;
}

const parsedLimits = new Map<StatutoryLimitRow, ParsedLimit>();

function parsedLimit(row: StatutoryLimitRow): ParsedLimit {
  let parsed = parsedLimits.get(row);
  if (parsed === undefined) {
    parsed = { subsidizedMax: dec(row.subsidizedMax), combinedMax: dec(row.combinedMax) };
    parsedLimits.set(row, parsed);
  }
  return parsed;
}

/**
 * Lowers sub + unsub until their sum fits under `cap`: unsubsidized first, then subsidized. Returns null when
 * the sum already fits (the cap does not bind).
 */
export function fitUnderCap(amounts: W.CapAmounts, cap: Dec): W.CapAmounts | null {
  const total = amounts.sub.plus(amounts.unsub);
  if (!total.gt(cap)) return null;
  let excess = total.minus(cap);
  const cutUnsub = minDec(amounts.unsub, excess);
  excess = excess.minus(cutUnsub);
  const cutSub = minDec(amounts.sub, excess);
  return { sub: amounts.sub.minus(cutSub), unsub: amounts.unsub.minus(cutUnsub) };
}

export function startingAmounts(
  input: CalculationInput,
  finalPeriod: FinalPeriodProration | null = null,
  table: LimitTable = STATUTORY_LIMIT_TABLE,
): StartingAmounts {
  const warnings: string[] = [];
  const undergrad = input.degree_level === 'undergraduate';

  if (!undergrad && input.grade_level !== null) {
    warnings.push(W.gradeLevelIgnored(input.grade_level, input.degree_level));
  }
  if (undergrad && input.is_legacy_borrower) warnings.push(W.legacyIgnoredForUndergraduate());

  const limit = lookupStatutoryLimit(
    {
      awardYear: input.award_year,
      degree: input.degree_level,
      dependency: input.dependency_status,
      plusDenied: input.plus_denied,
      grade: undergrad ? input.grade_level : null,
      legacy: !undergrad && input.is_legacy_borrower,
    },
    table,
  );
  let { subsidizedMax, combinedMax } = parsedLimit(limit);

  // 0. §2.1 health professions: legacy graduate/professional students keep prior law's increase
  let healthProfessions: HealthProfessionsIncrease | null = null;
  if (input.health_professions_program !== null || input.academic_year_months !== null) {
    const program = input.health_professions_program;
    const why = undergrad
      ? 'undergraduate'
      : !input.is_legacy_borrower
        ? 'not_legacy'
        : program === null
          ? 'no_program'
          : null;
    if (why === null) {
      healthProfessions = healthProfessionsIncrease(program!, input.academic_year_months, input.award_year);
      if (healthProfessions === null) {
        warnings.push(W.healthProfessionsIgnored('not_in_force', input.degree_level, input.award_year));
      } else {
        combinedMax = combinedMax.plus(healthProfessions.additional);
        warnings.push(
          W.healthProfessionsIncrease(
            healthProfessions.row.program,
            healthProfessions.months,
            healthProfessions.additional,
            healthProfessions.how,
            combinedMax,
            healthProfessions.row.table,
          ),
        );
      }
    } else warnings.push(W.healthProfessionsIgnored(why, input.degree_level, input.award_year));
  }

  // 0. §2.3 final period: prorated statutory limits (undergraduates only; the caller decides it applies)
  let proration: ProratedLimits | null = null;
  if (finalPeriod !== null && undergrad) {
    proration = proratedLimits(
      subsidizedMax,
      combinedMax,
      finalPeriod.terms,
      finalPeriod.academicYearCredits,
      finalPeriod.readings,
    );
    subsidizedMax = proration.subsidizedMax;
    combinedMax = proration.combinedMax;
  }

  // 1. subsidized
  const requestedSub = input.subsidized_amount === null ? ZERO : dec(input.subsidized_amount);
  let sub: Dec;
  if (undergrad) {
    if (input.subsidized_amount === null) warnings.push(W.noSubsidizedEligibilityAssumed(combinedMax));
    sub = minDec(requestedSub, subsidizedMax);
    if (requestedSub.gt(subsidizedMax)) {
      // grade_level is present for every undergraduate (lookupStatutoryLimit enforces it).
      warnings.push(
        proration === null
          ? W.subsidizedMaximumCap(requestedSub, subsidizedMax, input.grade_level!)
          : W.subsidizedProratedMaximumCap(requestedSub, subsidizedMax),
      );
    }
  } else {
    sub = ZERO;
    if (isPositive(requestedSub)) warnings.push(W.subsidizedIgnoredForGraduate(requestedSub, input.degree_level));
  }

  // 2. unsubsidized: the rest of the combined limit
  let amounts: W.CapAmounts = { sub, unsub: combinedMax.minus(sub) };

  // 4. institution-set program limit, on sub + unsub
  const totalLimit = input.total_limit === null ? null : dec(input.total_limit);
  if (totalLimit !== null) {
    const fitted = fitUnderCap(amounts, totalLimit);
    if (fitted !== null) {
      warnings.push(W.totalLimitCap(totalLimit, amounts, fitted));
      amounts = fitted;
    }
  }

  // 5. cost of attendance minus other aid, on sub + unsub
  const costOfAttendance = input.cost_of_attendance === null ? null : dec(input.cost_of_attendance);
  if (costOfAttendance !== null) {
    const fitted = fitUnderCap(amounts, costOfAttendance);
    if (fitted !== null) {
      warnings.push(W.costOfAttendanceCap(costOfAttendance, amounts, fitted));
      amounts = fitted;
    }
  }

  // 3. Grad PLUS: whether it is in play; it is sized after the reduction (grad-plus.ts)
  let gradPlus: GradPlusSizing | null = null;
  if (!undergrad) {
    if (input.plus_denied) warnings.push(W.gradPlusDenied());
    if (limit.gradPlus === 'cost_of_attendance') {
      if (!input.plus_denied) {
        if (costOfAttendance === null) warnings.push(W.gradPlusNeedsCostOfAttendance());
        else {
          const ceiling = totalLimit === null ? null : maxDec(ZERO, totalLimit.minus(amounts.sub).minus(amounts.unsub));
          gradPlus = { costOfAttendance, ceiling, totalLimit };
        }
      }
    } else if (costOfAttendance !== null) {
      warnings.push(W.gradPlusClosedToNewBorrowers());
    }
  }

  return {
    sub: amounts.sub,
    unsub: amounts.unsub,
    gradPlus,
    limit,
    healthProfessions,
    proration,
    subsidizedMax,
    combinedMax,
    warnings,
  };
}
