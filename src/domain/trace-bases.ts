/**
 * Worksheet steps of the starting amounts (§2.2) and each cap on them, walked again with the same functions
 * bases.ts uses, in the same order, so that each cap shows its amounts before and after.
 */

import { fitUnderCap } from './bases.ts';
import type { CalculationWorkings } from './calculate.ts';
import { CITATIONS } from './citations.ts';
import { type Dec, minDec, ZERO } from './decimal.ts';
import { dec } from './decimal-read.ts';
import { figure, num, numOrNull, type TraceStep } from './trace-step.ts';
import type { CapAmounts } from './warnings-bases.ts';

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
export function baseSteps(w: CalculationWorkings): TraceStep[] {
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
