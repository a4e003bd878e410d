/**
 * Starting amounts per loan type, before the reduction (rules.md §2.2), in this order:
 *
 * 1. sub_base = min(subsidized_amount, statutory subsidized max); 0 for graduate and professional students;
 * 2. unsub_base = combined max − sub_base (unused subsidized eligibility shifts to unsubsidized);
 * 3. grad_plus_base = max(0, cost_of_attendance − sub_base − unsub_base) for legacy graduate/professional
 *    borrowers without plus_denied; otherwise 0;
 * 4. total_limit (institutional program limit, 34 CFR 685.203(m)(2)) caps sub + unsub + Grad PLUS, lowering
 *    Grad PLUS, then unsubsidized, then subsidized;
 * 5. cost_of_attendance (net of other aid, 34 CFR 685.203(j)(1)) caps the same sum in the same order.
 *
 * Each cap that binds adds a warning naming the cap and the amounts. Bases keep any cents of the inputs; only
 * the reduced annual amounts are rounded (rules.md §3).
 */

import { type Dec, ZERO, dec, isPositive, maxDec, minDec } from './decimal.ts';
import { type StatutoryLimitRow, lookupStatutoryLimit } from './limits.ts';
import type { CalculationInput } from './types.ts';
import * as W from './warnings.ts';

export interface StartingAmounts {
  sub: Dec;
  unsub: Dec;
  gradPlus: Dec;
  /** The statutory row the amounts were drawn from (for audit and explanations). */
  limit: StatutoryLimitRow;
  warnings: string[];
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
 * Lowers the three amounts until their sum fits under `cap`: Grad PLUS first, then unsubsidized, then
 * subsidized. Returns null when the sum already fits (the cap does not bind).
 */
export function fitUnderCap(amounts: W.CapAmounts, cap: Dec): W.CapAmounts | null {
  const total = amounts.sub.plus(amounts.unsub).plus(amounts.gradPlus);
  if (!total.gt(cap)) return null;
  let excess = total.minus(cap);
  const cutGradPlus = minDec(amounts.gradPlus, excess);
  excess = excess.minus(cutGradPlus);
  const cutUnsub = minDec(amounts.unsub, excess);
  excess = excess.minus(cutUnsub);
  const cutSub = minDec(amounts.sub, excess);
  return {
    sub: amounts.sub.minus(cutSub),
    unsub: amounts.unsub.minus(cutUnsub),
    gradPlus: amounts.gradPlus.minus(cutGradPlus),
  };
}

function total(a: W.CapAmounts): Dec {
  return a.sub.plus(a.unsub).plus(a.gradPlus);
}

export function startingAmounts(input: CalculationInput): StartingAmounts {
  const warnings: string[] = [];
  const undergrad = input.degree_level === 'undergraduate';

  if (!undergrad && input.grade_level !== null) {
    warnings.push(W.gradeLevelIgnored(input.grade_level, input.degree_level));
  }
  if (undergrad && input.is_legacy_borrower) warnings.push(W.legacyIgnoredForUndergraduate());

  const limit = lookupStatutoryLimit({
    degree: input.degree_level,
    dependency: input.dependency_status,
    plusDenied: input.plus_denied,
    grade: undergrad ? input.grade_level : null,
    legacy: !undergrad && input.is_legacy_borrower,
  });
  const { subsidizedMax, combinedMax } = parsedLimit(limit);
  const requestedSub = dec(input.subsidized_amount);

  // 1. subsidized
  let sub: Dec;
  if (undergrad) {
    sub = minDec(requestedSub, subsidizedMax);
    if (requestedSub.gt(subsidizedMax)) {
      // grade_level is present for every undergraduate (lookupStatutoryLimit enforces it).
      warnings.push(W.subsidizedMaximumCap(requestedSub, subsidizedMax, input.grade_level!));
    }
  } else {
    sub = ZERO;
    if (isPositive(requestedSub)) warnings.push(W.subsidizedIgnoredForGraduate(requestedSub, input.degree_level));
  }

  // 2. unsubsidized: the rest of the combined limit
  const unsub = combinedMax.minus(sub);

  // 3. Grad PLUS
  const costOfAttendance = input.cost_of_attendance === null ? null : dec(input.cost_of_attendance);
  let gradPlus = ZERO;
  if (!undergrad) {
    if (input.plus_denied) warnings.push(W.gradPlusDenied());
    if (limit.gradPlus === 'cost_of_attendance') {
      if (!input.plus_denied) {
        if (costOfAttendance === null) warnings.push(W.gradPlusNeedsCostOfAttendance());
        else gradPlus = maxDec(ZERO, costOfAttendance.minus(sub).minus(unsub));
      }
    } else if (costOfAttendance !== null) {
      warnings.push(W.gradPlusClosedToNewBorrowers());
    }
  }

  let amounts: W.CapAmounts = { sub, unsub, gradPlus };

  // 4. institution-set program limit
  if (input.total_limit !== null) {
    const cap = dec(input.total_limit);
    const fitted = fitUnderCap(amounts, cap);
    if (fitted !== null) {
      warnings.push(W.totalLimitCap(cap, amounts, total(amounts), fitted));
      amounts = fitted;
    }
  }

  // 5. cost of attendance minus other aid
  if (costOfAttendance !== null) {
    const fitted = fitUnderCap(amounts, costOfAttendance);
    if (fitted !== null) {
      warnings.push(W.costOfAttendanceCap(costOfAttendance, amounts, total(amounts), fitted));
      amounts = fitted;
    }
  }

  return { sub: amounts.sub, unsub: amounts.unsub, gradPlus: amounts.gradPlus, limit, warnings };
}
