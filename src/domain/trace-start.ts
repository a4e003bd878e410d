/**
 * Worksheet steps for the student-level part of a calculation: the credits of the year (§3), the statutory row
 * (§2.1), the final-period proration (§2.3), the starting amounts and each cap (§2.2), the percentage and the
 * annual amounts (§3), Grad PLUS (§2.2 item 3). Built from calculate()'s workings; the caps are walked again with
 * the same functions bases.ts uses, so each cap shows its amounts before and after.
 */

import { fitUnderCap } from './bases.ts';
import type { CalculationWorkings } from './calculate.ts';
import { CITATIONS } from './citations.ts';
import { type Dec, HUNDRED, TWO, ZERO, dec, isPositive, minDec, sumDec } from './decimal.ts';
import { DEFAULT_POLICY as POLICY_DEFAULTS, type PolicyOptionName, policyText } from './policy.ts';
import type { Scenario, ScenarioBases } from './recalculation.ts';
import {
  type StepScalar,
  type TraceStep,
  LOAN_FIELDS,
  figure,
  num,
  numOrNull,
  quotient,
  sumText,
} from './trace-step.ts';
import type { CapAmounts } from './warnings-bases.ts';

function creditSteps(w: CalculationWorkings): TraceStep[] {
  const steps: TraceStep[] = [];
  for (const t of w.terms) {
    const i = t.index;
    steps.push({
      id: `term[${i}].credits`,
      section: '§3',
      title: `Credits of ${t.label}`,
      citation: CITATIONS.reduction.citation,
      formula:
        t.actual === null
          ? `credits(t) = credits_enrolled (no actual_final_credits) = ${figure(t.credits)}`
          : `credits(t) = actual_final_credits when present = ${figure(t.actual)} (credits_enrolled ${figure(t.enrolled)})`,
      inputs: {
        label: t.label,
        credits_enrolled: num(t.enrolled),
        actual_final_credits: t.actual === null ? null : num(t.actual),
        full_time_credits: num(t.fullTime),
      },
      output: {
        [`terms[${i}].credits_enrolled`]: num(t.enrolled),
        [`terms[${i}].full_time_credits`]: num(t.fullTime),
      },
    });
  }
  const fullTime = w.terms.map((t) => t.fullTime);
  steps.push({
    id: 'annual_ft_credits',
    section: '§3',
    title: 'Full-time credits of the academic year',
    citation: CITATIONS.reduction.citation,
    formula: `annual_ft_credits = Σ full_time_credits = ${sumText(fullTime)} = ${figure(w.annualFtCredits)}`,
    inputs: { full_time_credits: fullTime.map(num) },
    output: { annual_ft_credits: num(w.annualFtCredits) },
  });
  return steps;
}

function limitStep(w: CalculationWorkings): TraceStep {
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

function finalPeriodStep(w: CalculationWorkings): TraceStep | null {
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
        },
      };
    }
  }
}

/** "; school policy proration_fraction=decimal_rounded (rules.md §10)" when one of `options` is not the default. */
export function policyNote(w: CalculationWorkings, options: readonly PolicyOptionName[]): string {
  const changed = options.filter((o) => w.input.policy[o] !== POLICY_DEFAULTS[o]);
  if (changed.length === 0) return '';
  return ` (school policy ${changed.map((o) => `${o}=${w.input.policy[o]}`).join(', ')}, rules.md §10)`;
}

/** §10: the school policy in force, when it is not the default (the worksheet lists every option). */
function policyStep(w: CalculationWorkings): TraceStep | null {
  const text = policyText(w.input.policy);
  if (text === '') return null;
  return {
    id: 'policy',
    section: '§10',
    title: 'School policy in force',
    citation: CITATIONS.schoolPolicy.citation,
    formula: `options not at their default: ${text}; every other option at its default (${policyText(w.input.policy, 'all')})`,
    inputs: Object.fromEntries(Object.entries(w.input.policy)),
    output: {},
  };
}

/** §2.1: the health professions increase added to C_max, when it applies. */
function healthStep(w: CalculationWorkings): TraceStep | null {
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

function capStep(
  id: string,
  title: string,
  citation: string,
  name: string,
  cap: Dec,
  before: CapAmounts,
): { step: TraceStep; after: CapAmounts } {
  const fitted = fitUnderCap(before, cap);
  const total = before.sub.plus(before.unsub);
  const sum = `sub_base + unsub_base = ${figure(before.sub)} + ${figure(before.unsub)} = ${figure(total)}`;
  const formula =
    fitted === null
      ? `${sum} ≤ ${name} ${figure(cap)}: the cap does not bind`
      : `${sum} > ${name} ${figure(cap)}: lower unsubsidized first, then subsidized → sub_base ` +
        `${figure(fitted.sub)}, unsub_base ${figure(fitted.unsub)}`;
  const after = fitted ?? before;
  return {
    step: {
      id,
      section: '§2.2',
      title,
      citation,
      formula,
      inputs: { [name]: num(cap), sub_base: num(before.sub), unsub_base: num(before.unsub) },
      output: {},
    },
    after,
  };
}

/** The starting amounts of §2.2 with each cap, in the order bases.ts applies them. */
function baseSteps(w: CalculationWorkings): TraceStep[] {
  const steps: TraceStep[] = [];
  const { input, start } = w;
  const row = start.limit;
  const undergrad = input.degree_level === 'undergraduate';
  const sMax = start.subsidizedMax;
  const cMax = start.combinedMax;
  const [sName, cName] = start.proration === null ? ['S_max', 'C_max'] : ["S'max", "C'max"];
  const requested = input.subsidized_amount === null ? ZERO : dec(input.subsidized_amount);
  const sub = undergrad ? minDec(requested, sMax) : ZERO;
  steps.push({
    id: 'base.sub',
    section: '§2.2',
    title: 'Subsidized starting amount',
    citation: row.citation,
    formula: undergrad
      ? `sub_base = min(subsidized_amount, ${sName}) = min(${figure(requested)}` +
        `${input.subsidized_amount === null ? ' (not given: no subsidized eligibility assumed)' : ''}, ` +
        `${figure(sMax)}) = ${figure(sub)}`
      : `sub_base = 0 (no subsidized loans for ${input.degree_level} students)`,
    inputs: { subsidized_amount: numOrNull(input.subsidized_amount), subsidized_max: num(sMax) },
    output: {},
  });
  const unsub = cMax.minus(sub);
  steps.push({
    id: 'base.unsub',
    section: '§2.2',
    title: 'Unsubsidized starting amount',
    citation: row.citation,
    formula: `unsub_base = ${cName} − sub_base = ${figure(cMax)} − ${figure(sub)} = ${figure(unsub)}`,
    inputs: { combined_max: num(cMax), sub_base: num(sub) },
    output: {},
  });
  let amounts: CapAmounts = { sub, unsub };
  // The caps in the calculation's order (§2.2 items 1–2): the program limit, then cost of attendance.
  const caps = [
    ['total_limit', 'Institutional program limit', CITATIONS.programLimit.citation, input.total_limit],
    [
      'cost_of_attendance',
      'Cost of attendance minus other aid',
      CITATIONS.costOfAttendance.citation,
      input.cost_of_attendance,
    ],
  ] as const;
  for (const [name, title, citation, value] of caps) {
    if (value === null) continue;
    const cap = capStep(`cap.${name}`, title, citation, name, dec(value), amounts);
    steps.push(cap.step);
    amounts = cap.after;
  }
  if (!amounts.sub.eq(start.sub) || !amounts.unsub.eq(start.unsub)) {
    throw new Error('trace: the starting amounts walked again differ from the calculation’s');
  }
  return steps;
}

/** The percentage of a scenario (§3), or of the baseline (§6) with `prefix` "baseline.". */
export function percentageStep(w: CalculationWorkings, scenario: Scenario, prefix: string): TraceStep {
  const credits = scenario.credits;
  const total = sumDec(credits);
  const output: Record<string, StepScalar> = prefix === '' ? { reduced_annual_pct: num(scenario.percent) } : {};
  const inputs = { credits: credits.map(num), annual_ft_credits: num(w.annualFtCredits) };
  if (scenario.bases.fixedPercent !== null) {
    return {
      id: `${prefix}percentage`,
      section: '§2.3',
      title: 'Academic-year percentage (final period: no reduction)',
      citation: CITATIONS.finalPeriod.citation,
      formula: `reduced_annual_pct = ${figure(scenario.percent)}: the final-period proration replaces the reduction`,
      inputs,
      output,
    };
  }
  const belowHalf = w.terms.some((t, i) => credits[i]!.times(2).lt(t.fullTime) && !credits[i]!.isZero());
  const excluded = belowHalf && w.readings.belowHalfTimeCredits === 'excluded';
  const counted = excluded ? credits.filter((_, i) => scenario.eligible[i]) : credits;
  const exact = (excluded ? sumDec(counted) : total).times(HUNDRED);
  const sum = counted.length === 0 ? '0' : sumText(counted);
  return {
    id: `${prefix}percentage`,
    section: prefix === '' ? '§3' : '§6',
    title: prefix === '' ? 'Academic-year percentage' : 'Baseline percentage (credits_enrolled)',
    citation: excluded
      ? CITATIONS.schoolPolicy.citation
      : (belowHalf ? CITATIONS.belowHalfTimeCounted : CITATIONS.reduction).citation,
    formula:
      `reduced_annual_pct = min(100, round_half_up(100 × Σ credits(t) ÷ annual_ft_credits)) = min(100, ` +
      `round_half_up(100 × (${sum}) ÷ ${figure(w.annualFtCredits)})) = min(100, round_half_up(` +
      `${quotient(exact, w.annualFtCredits)})) = ${figure(scenario.percent)}` +
      (excluded
        ? `; the credits of terms below half time are left out of Σ credits(t)${policyNote(w, ['below_half_time_credits'])}`
        : ''),
    inputs,
    output,
  };
}

function annualStep(loan: 'sub' | 'unsub', base: Dec, scenario: Scenario, prefix: string, citation: string): TraceStep {
  const annual = scenario.annual[loan === 'sub' ? 0 : 1];
  const p = figure(scenario.percent);
  const field = LOAN_FIELDS[loan].annual;
  if (scenario.bases.halfAnnual === true && !base.isZero()) {
    return {
      id: `${prefix}annual.${loan}`,
      section: prefix === '' ? '§3' : '§6',
      title: `Annual ${loan === 'sub' ? 'subsidized' : 'unsubsidized'} amount${prefix === '' ? '' : ' (baseline)'}`,
      citation: CITATIONS.schoolPolicy.citation,
      formula:
        `one-term loan period on half the annual amount (school policy single_term_basis=half_annual, rules.md §10): ` +
        `${field} = round_half_up(${loan}_base × pct ÷ 200) = round_half_up(${figure(base)} × ${p} ÷ 200) = ` +
        `round_half_up(${quotient(base.times(scenario.percent), HUNDRED.times(TWO))}) = ${figure(annual)}`,
      inputs: { [`${loan}_base`]: num(base), reduced_annual_pct: num(scenario.percent) },
      output: prefix === '' ? { [field]: num(annual) } : {},
    };
  }
  return {
    id: `${prefix}annual.${loan}`,
    section: prefix === '' ? '§3' : '§6',
    title: `Annual ${loan === 'sub' ? 'subsidized' : 'unsubsidized'} amount${prefix === '' ? '' : ' (baseline)'}`,
    citation,
    formula: base.isZero()
      ? `${field} = round_half_up(${loan}_base × pct ÷ 100) = 0 (${loan}_base is 0)`
      : `${field} = round_half_up(${loan}_base × pct ÷ 100) = round_half_up(${figure(base)} × ${p} ÷ 100) = ` +
        `round_half_up(${quotient(base.times(scenario.percent), HUNDRED)}) = ${figure(annual)}`,
    inputs: { [`${loan}_base`]: num(base), reduced_annual_pct: num(scenario.percent) },
    output: prefix === '' ? { [field]: num(annual) } : {},
  };
}

function noGradPlusReason(w: CalculationWorkings): string {
  const { input } = w;
  if (input.degree_level === 'undergraduate') return 'Grad PLUS is for graduate and professional students';
  if (input.plus_denied) return 'the student’s Grad PLUS application was denied (plus_denied)';
  if (w.start.limit.gradPlus === 'none')
    return 'Grad PLUS is closed to borrowers without the interim (legacy) exception';
  return 'Grad PLUS is sized from cost_of_attendance, which is not given';
}

/** Grad PLUS after the reduction of the other two loans (§2.2 item 3, then §3). */
function gradPlusSteps(w: CalculationWorkings, scenario: Scenario, prefix: string): TraceStep[] {
  const field = LOAN_FIELDS.grad_plus.annual;
  const output = (value: Dec) => (prefix === '' ? { [field]: num(value) } : {});
  const sizing = scenario.bases.gradPlus;
  const amount = scenario.gradPlus;
  if (sizing === null || amount === null) {
    return [
      {
        id: `${prefix}annual.grad_plus`,
        section: '§2.2',
        title: `Annual Grad PLUS amount${prefix === '' ? '' : ' (baseline)'}`,
        citation: w.start.limit.citation,
        formula: `${field} = 0: ${noGradPlusReason(w)}`,
        inputs: { degree_level: w.input.degree_level, is_legacy_borrower: w.input.is_legacy_borrower },
        output: output(ZERO),
      },
    ];
  }
  const before = w.readings.gradPlusBase === 'before_reduction';
  const [annualSub, annualUnsub] = before ? [scenario.bases.sub, scenario.bases.unsub] : scenario.annual;
  const ceiling =
    sizing.ceiling === null
      ? ''
      : `; capped by total_limit − sub_base − unsub_base = ${figure(sizing.ceiling)} → ${figure(amount.base)}`;
  const steps: TraceStep[] = [
    {
      id: `${prefix}grad_plus.base`,
      section: '§2.2',
      title: before
        ? 'Grad PLUS base: cost of attendance minus the starting loans'
        : 'Grad PLUS base: cost of attendance minus the reduced loans',
      citation: before ? CITATIONS.schoolPolicy.citation : CITATIONS.gradPlus.citation,
      formula:
        (before
          ? `grad_plus_base = max(0, cost_of_attendance − sub_base − unsub_base)${policyNote(w, ['grad_plus_gap'])} = max(0, `
          : `grad_plus_base = max(0, cost_of_attendance − annual sub − annual unsub) = max(0, `) +
        `${figure(sizing.costOfAttendance)} − ${figure(annualSub)} − ${figure(annualUnsub)}) = ${figure(amount.gap)}${ceiling}`,
      inputs: {
        cost_of_attendance: num(sizing.costOfAttendance),
        total_limit: sizing.totalLimit === null ? null : num(sizing.totalLimit),
      },
      output: {},
    },
  ];
  steps.push({
    id: `${prefix}annual.grad_plus`,
    section: prefix === '' ? '§3' : '§6',
    title: `Annual Grad PLUS amount${prefix === '' ? '' : ' (baseline)'}`,
    citation: CITATIONS.reduction.citation,
    formula: amount.base.isZero()
      ? `${field} = 0 (grad_plus_base is 0)`
      : `${field} = min(round_half_up(grad_plus_base × pct ÷ 100), floor(grad_plus_base)) = ` +
        `min(round_half_up(${figure(amount.base)} × ${figure(scenario.percent)} ÷ 100), ${figure(amount.base.floor())}) = ` +
        `${figure(amount.annual)}`,
    inputs: { grad_plus_base: num(amount.base), reduced_annual_pct: num(scenario.percent) },
    output: output(amount.annual),
  });
  return steps;
}

/** The annual amounts of a scenario: sub, unsub, Grad PLUS. */
export function annualSteps(w: CalculationWorkings, scenario: Scenario, prefix: string): TraceStep[] {
  const bases: ScenarioBases = scenario.bases;
  const citation = CITATIONS.reduction.citation;
  return [
    annualStep('sub', bases.sub, scenario, prefix, citation),
    annualStep('unsub', bases.unsub, scenario, prefix, citation),
    ...gradPlusSteps(w, scenario, prefix),
  ];
}

/** §3 credits, §2 starting amounts and caps, §3 percentage and annual amounts of the revision. */
export function startSteps(w: CalculationWorkings): TraceStep[] {
  const steps: TraceStep[] = [];
  const policy = policyStep(w);
  if (policy !== null) steps.push(policy);
  steps.push(...creditSteps(w));
  steps.push(limitStep(w));
  const health = healthStep(w);
  if (health !== null) steps.push(health);
  const fp = finalPeriodStep(w);
  if (fp !== null) steps.push(fp);
  steps.push(...baseSteps(w));
  steps.push(percentageStep(w, w.revision, ''));
  steps.push(...annualSteps(w, w.revision, ''));
  return steps;
}
