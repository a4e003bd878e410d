/**
 * The figures of a calculation without its prose: the year's percentage and each term's amounts under both options,
 * as calculate() would give them (the same modules, in the same order: §2 starting amounts, §3–§6 the revision,
 * §5 the options) but without warnings, adjustments or the §6 baseline. The shadow check computes a student under
 * several readings of the rules (src/domain/readings.ts) and only compares these figures; a test checks that they
 * are calculate()'s for every example under every reading.
 */

import type { StartingAmounts } from './bases.ts';
import { scenarioBases, startFor } from './calculate.ts';
import { type FinalPeriodCase, finalPeriodCase } from './final-period.ts';
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
  type ScenarioBases,
  type TermFacts,
  annualsUnder,
  readTerm,
  termsUnder,
  yearUnder,
} from './recalculation.ts';
import { termStanding } from './terms.ts';
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

/**
 * One student's figures under several readings: what does not depend on the reading (the terms as read, the
 * starting amounts of §2, the §2.3 case) is worked out once; `under(readings)` then runs §3–§6 for one reading.
 * `proportional: false` leaves the proportional option out (null) when the caller does not need it.
 */
export class StudentFigures {
  readonly #input: CalculationInput;
  readonly #table: LimitTable;
  readonly #terms: TermFacts[];
  readonly #annualFtCredits: Dec;
  readonly #credits: Dec[];
  readonly #finalPeriod: FinalPeriodCase;
  /** The starting amounts without the §2.3 proration (they do not depend on the readings then). */
  #start: StartingAmounts | null = null;
  /** Under the §2.3 proration, the starting amounts per proration reading (`fraction|limits`). */
  #prorated: Map<string, StartingAmounts> | null = null;

  constructor(input: CalculationInput, table: LimitTable = STATUTORY_LIMIT_TABLE) {
    this.#input = input;
    this.#table = table;
    this.#terms = input.terms.map(readTerm);
    if (this.#terms.length === 0) throw new Error('figures: at least one term is required (validated by the schema)');
    this.#annualFtCredits = annualFullTimeCredits(this.#terms.map((t) => t.fullTime));
    this.#finalPeriod = finalPeriodCase(input, this.#terms);
    this.#credits = this.#terms.map((t) => t.credits);
    if (this.#finalPeriod.kind !== 'prorate') {
      this.#start = startFor(input, this.#finalPeriod, this.#terms, SERVICE_READINGS, table);
    }
  }

  /** calculate()'s starting amounts under `readings` (only the §2.3 proration depends on them). */
  #startUnder(readings: Readings): StartingAmounts {
    if (this.#start !== null) return this.#start;
    const key = `${readings.prorationFraction}|${readings.prorationLimits}`;
    this.#prorated ??= new Map();
    let start = this.#prorated.get(key);
    if (start === undefined) {
      start = startFor(this.#input, this.#finalPeriod, this.#terms, readings, this.#table);
      this.#prorated.set(key, start);
    }
    return start;
  }

  #bases(readings: Readings): ScenarioBases {
    return scenarioBases(this.#startUnder(readings), readings, this.#terms.length);
  }

  /**
   * The year's percentage and the reduced annual amounts under readings other than the service's, without the
   * terms' amounts; `allOpen`: no term is closed under these readings, so each loan's term amounts (either
   * option) add up to its annual amount whenever some term is eligible (`anyEligible`).
   */
  annualsUnder(readings: Readings): { percent: number; annual: number[]; allOpen: boolean; anyEligible: boolean } {
    const terms = termsUnder(this.#terms, readings);
    const bases = this.#bases(readings);
    const year = yearUnder(terms, this.#credits, this.#annualFtCredits, bases, readings);
    const { annual } = annualsUnder(bases, year, readings);
    return {
      percent: toJsonNumber(year.percent),
      annual: annual.map(toJsonNumber),
      allOpen: terms.every((t) => !t.closed),
      anyEligible: terms.some((t, i) => termStanding(this.#credits[i]!, t.fullTime).eligible),
    };
  }

  under(readings: Readings = SERVICE_READINGS, proportional = true): Figures {
    const terms = termsUnder(this.#terms, readings);
    const bases = this.#bases(readings);
    const payments = collectPayments(terms);
    const revision = evaluateScenario(terms, this.#credits, this.#annualFtCredits, bases, payments);
    const { showBoth } = optionsOffered(revision);
    return {
      reduced_annual_pct: toJsonNumber(revision.percent),
      equal: options(revision.equal),
      proportional: showBoth && proportional ? options(proportionalSchedule(revision, payments)) : null,
    };
  }
}

/** calculate(input, table, readings)'s percentage and term amounts. */
export function figuresUnder(
  input: CalculationInput,
  readings: Readings = SERVICE_READINGS,
  table: LimitTable = STATUTORY_LIMIT_TABLE,
): Figures {
  return new StudentFigures(input, table).under(readings);
}
