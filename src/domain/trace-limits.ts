/**
 * Worksheet steps of the limits a student starts from: the statutory row (§2.1), the health professions increase
 * (§2.1) and the final-period proration of the limits (§2.3). Built from calculate()'s workings.
 */

import type { CalculationWorkings } from './calculate.ts';
import { CITATIONS } from './citations.ts';
import { isPositive, TWO } from './decimal.ts';
import { dec } from './decimal-read.ts';
import { policyNote } from './trace-policy.ts';
import { figure, num, numOrNull, quotient, sumText, type TraceStep } from './trace-step.ts';

export function limitStep(w: CalculationWorkings): TraceStep {
  const row = w.start.limit;
  const who = row.degree === 'undergraduate' ? `undergraduate, ${row.dependency}, ${row.grade}` : row.degree;
  const plus = row.gradPlus === 'none' ? 'no Grad PLUS' : 'Grad PLUS up to cost of attendance';
  return {
    id: 'base.limit',
    section: '§2.1',
    title: 'Statutory annual limits',
    citation: row.citation,
    formula:
      `limit row ${row.id} (${who}${row.legacy === true ? ', legacy borrower' : ''}; award year ${row.awardYear}, ` +
      `effective ${row.effective}): S_max = ${row.subsidizedMax}, C_max = ${row.combinedMax}, ${plus}`,
    inputs: {
      award_year: w.input.award_year,
      degree_level: w.input.degree_level,
      dependency_status: w.input.dependency_status,
      grade_level: w.input.grade_level,
      plus_denied: w.input.plus_denied,
      is_legacy_borrower: w.input.is_legacy_borrower,
    },
    output: {},
  };
}

export function finalPeriodStep(w: CalculationWorkings): TraceStep | null {
  const fp = w.finalPeriod;
  const base = {
    id: 'final_period',
    section: '§2.3',
    title: 'Final period of an undergraduate program',
    citation: CITATIONS.finalPeriod.citation,
    inputs: {
      final_period_of_program: w.input.final_period_of_program,
      academic_year_credits: numOrNull(w.input.academic_year_credits),
    },
    output: {},
  };
  switch (fp.kind) {
    case 'none':
      return null;
    case 'ignored_not_undergraduate':
      return {
        ...base,
        formula: `final_period_of_program is an undergraduate rule: ignored for a ${w.input.degree_level} student`,
      };
    case 'not_shorter':
      return {
        ...base,
        formula:
          `Σ full_time_credits ${figure(w.annualFtCredits)} ≥ academic_year_credits ${figure(fp.academicYearCredits)}: ` +
          'the period is not shorter than an academic year, so no proration; the reduction applies',
      };
    case 'prorate': {
      const p = w.start.proration!;
      const y = figure(fp.academicYearCredits);
      const period = w.terms.filter((t) => isPositive(t.enrolled));
      const counted = p.countedTerms.map((i) => w.terms[i]!);
      const left = p.belowHalfTimeTerms.map((i) => w.terms[i]!);
      const parts = [
        `period = the terms with credits_enrolled > 0: ${period.map((t) => t.label).join(', ')}; Σ their ` +
          `full_time_credits ${figure(fp.periodFullTime)} < academic_year_credits ${y}: shorter than an academic year`,
        `P = Σ credits_enrolled of the period's terms at least half time (credits_enrolled ≥ full_time_credits ÷ 2)` +
          ` = ${counted.length === 0 ? '0' : `${sumText(counted.map((t) => t.enrolled))} = ${figure(p.credits)}`}` +
          (left.length === 0
            ? ''
            : ` (left out, below half time: ${left.map((t) => `${t.label} ${figure(t.enrolled)} < ${quotient(t.fullTime, TWO)}`).join(', ')})`),
      ];
      const c = figure(p.credits);
      const policy = policyNote(w, ['proration_fraction']);
      let times: string;
      if (p.capped) {
        parts.push(`fraction = min(1, P ÷ academic_year_credits) = min(1, ${c} ÷ ${y}) = 1`);
        times = ' × 1';
      } else if (p.decimal === null) {
        parts.push(`fraction = P ÷ academic_year_credits = ${c} ÷ ${y} (exact)`);
        times = ` × ${c} ÷ ${y}`;
      } else {
        const how = p.method === 'decimal_rounded' ? 'rounded half up' : 'truncated';
        parts.push(
          `fraction = P ÷ academic_year_credits = ${c} ÷ ${y} = ${quotient(p.credits, fp.academicYearCredits)}, as a ` +
            `2-decimal figure ${how} = ${figure(p.decimal)}${policy}`,
        );
        times = ` × ${figure(p.decimal)}`;
      }
      const row = w.start.limit;
      const sMax = dec(row.subsidizedMax);
      const cMax = w.start.healthProfessions === null ? dec(row.combinedMax) : p.combinedMax; // never both
      parts.push(
        `S'max = round_half_up(S_max × fraction) = round_half_up(${figure(sMax)}${times}) = ${figure(p.subsidizedMax)}`,
      );
      if (p.limits === 'parts_rounded') {
        parts.push(
          `C'max = S'max + round_half_up((C_max − S_max) × fraction) = ${figure(p.subsidizedMax)} + round_half_up(` +
            `${figure(cMax.minus(sMax))}${times}) = ${figure(p.subsidizedMax)} + ${figure(p.unsubsidizedOnly)} = ` +
            `${figure(p.combinedMax)} (the unsubsidized-only part prorated separately)`,
        );
      } else {
        parts.push(
          `C'max = round_half_up(C_max × fraction) = round_half_up(${figure(cMax)}${times}) = ${figure(p.combinedMax)}`,
        );
      }
      const changed = w.terms.filter((t) => t.changed);
      parts.push(
        changed.length === 0
          ? 'fixed at origination (credits_enrolled); no reduction on top'
          : `fixed at origination (credits_enrolled): the final credits of ${changed.map((t) => t.label).join(', ')} ` +
              'do not re-prorate; no reduction on top',
      );
      return {
        ...base,
        citation: CITATIONS.proration.citation,
        formula: parts.join('; '),
        inputs: {
          ...base.inputs,
          credits_enrolled: w.terms.map((t) => num(t.enrolled)),
          full_time_credits: w.terms.map((t) => num(t.fullTime)),
          credits: num(p.credits),
          proration_fraction: p.method,
          // The figures the worksheet's summary states: the fraction applied (1 when capped, the 2-decimal figure
          // of a decimal policy, null for the exact fraction) and the limits before and after.
          fraction: p.capped ? 1 : p.decimal === null ? null : num(p.decimal),
          subsidized_max: num(sMax),
          combined_max: num(cMax),
          prorated_subsidized_max: num(p.subsidizedMax),
          prorated_combined_max: num(p.combinedMax),
        },
      };
    }
  }
}

/** §2.1: the health professions increase added to C_max, when it applies. */
export function healthStep(w: CalculationWorkings): TraceStep | null {
  const h = w.start.healthProfessions;
  if (h === null) return null;
  const c = dec(w.start.limit.combinedMax);
  return {
    id: 'base.health_professions',
    section: '§2.1',
    title: 'Increased unsubsidized amount for health professions',
    citation: h.row.citation,
    formula:
      `${h.row.program} (table ${h.row.table}), ${h.months}-month academic year: additional amount = ${h.how} = ` +
      `${figure(h.additional)}; C_max = ${figure(c)} + ${figure(h.additional)} = ${figure(c.plus(h.additional))} ` +
      `(9 months ${h.row.nineMonths}, 12 months ${h.row.twelveMonths}; effective ${h.row.effective})`,
    inputs: {
      health_professions_program: w.input.health_professions_program,
      academic_year_months: w.input.academic_year_months,
    },
    output: {},
  };
}
