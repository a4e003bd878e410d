/**
 * The figures of a calculation without its prose: the year's percentage and each term's amounts under both options,
 * as calculate() would give them (the same modules, in the same order: §2 starting amounts, §3–§6 the revision,
 * §5 the options) but without warnings, adjustments or the §6 baseline. The shadow check computes a student under
 * several readings of the rules (src/domain/readings.ts) and only compares these figures; a test checks that they
 * are calculate()'s for every example under every reading.
 */

import { startingAmounts } from './bases.ts';
import { HUNDRED } from './decimal.ts';
import { finalPeriodCase } from './final-period.ts';
import { type LimitTable, STATUTORY_LIMIT_TABLE } from './limits.ts';
import { toDisbursementOption, toJsonNumber } from './output.ts';
import { annualFullTimeCredits } from './percentage.ts';
import { type Readings, SERVICE_READINGS } from './readings.ts';
import {
  type PerLoan,
  collectPayments,
  evaluateScenario,
  optionsOffered,
  proportionalSchedule,
  readTerm,
  termsUnder,
} from './recalculation.ts';
import type { CalculationInput, DisbursementOption } from './types.ts';
import type { Dec } from './decimal.ts';

export interface Figures {
  /** CalculationResult.reduced_annual_pct. */
  reduced_annual_pct: number;
  /** Each term's equal option. */
  equal: DisbursementOption[];
  /** Each term's proportional option; null when it is not offered (show_both_options false). */
  proportional: DisbursementOption[] | null;
}

function options(schedule: PerLoan<Dec[]>): DisbursementOption[] {
  return schedule[0].map((_, i) => toDisbursementOption(schedule[0][i]!, schedule[1][i]!, schedule[2][i]!));
}

/** calculate(input, table, readings)'s percentage and term amounts. */
export function figuresUnder(
  input: CalculationInput,
  readings: Readings = SERVICE_READINGS,
  table: LimitTable = STATUTORY_LIMIT_TABLE,
): Figures {
  const terms = termsUnder(input.terms.map(readTerm), readings);
  if (terms.length === 0) throw new Error('figuresUnder: at least one term is required (validated by the schema)');
  const annualFtCredits = annualFullTimeCredits(terms.map((t) => t.fullTime));
  const finalPeriod = finalPeriodCase(input, annualFtCredits);
  const credits = terms.map((t) => t.credits);
  const start = startingAmounts(
    input,
    finalPeriod.kind === 'prorate' ? { credits, academicYearCredits: finalPeriod.academicYearCredits } : null,
    table,
  );
  const bases = {
    sub: start.sub,
    unsub: start.unsub,
    gradPlus: start.gradPlus,
    fixedPercent: start.proration === null ? null : HUNDRED,
    readings,
  };
  const payments = collectPayments(terms);
  const revision = evaluateScenario(terms, credits, annualFtCredits, bases, payments);
  const { showBoth } = optionsOffered(revision);
  return {
    reduced_annual_pct: toJsonNumber(revision.percent),
    equal: options(revision.equal),
    proportional: showBoth ? options(proportionalSchedule(revision, payments)) : null,
  };
}
