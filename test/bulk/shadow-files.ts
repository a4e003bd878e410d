/**
 * Shadow-check files built from the published examples (examples.json): for each reason of the table, a student
 * whose school figures are produced by that reading, computed HERE by hand from the rules (rules.md §1, §3, §5, §6
 * and architecture.md "Shadow check") and the examples' published figures — never by the engine. Each case says
 * which reason must come back.
 */
import { EXAMPLES, EXAMPLES_HEADER, POLICY_EXAMPLES, type Example } from './examples.ts';

export const SIS_HEADER = `${EXAMPLES_HEADER},sis_option,sis_reduced_annual_pct,sis_sub,sis_unsub,sis_grad_plus`;

type Money = number | string | null;
export interface SchoolTerm {
  sub?: Money;
  unsub?: Money;
  grad_plus?: Money;
}
export interface SchoolFigures {
  option?: string;
  pct?: number | string;
  terms: SchoolTerm[];
}
export interface ShadowCase {
  id: string;
  request: Example['request'];
  school: SchoolFigures;
  status: 'match' | 'mismatch' | 'not_checked';
  reason: string;
  /** Why the school's figures are what they are (the hand arithmetic). */
  why: string;
}

/** A worked example by id, those printed under a school policy included. */
export function example(id: string): Example {
  const ex = EXAMPLES.find((e) => e.id === id) ?? POLICY_EXAMPLES.find((e) => e.id === id);
  if (ex === undefined) throw new Error(`no example ${id}`);
  return ex;
}

/** An example's request with some terms' fields replaced. */
function withTerms(id: string, changes: Record<number, Record<string, unknown>>): Example['request'] {
  const request = structuredClone(example(id).request);
  for (const [i, change] of Object.entries(changes)) Object.assign(request.terms[Number(i)]!, change);
  return request;
}

const fsa1 = example('FSA-1').expected; // 63%: sub 2205, unsub 1260; equal 1103/1102, 630/630; proportional 882/1323, 504/756
const fsa4 = example('FSA-4').expected; // 83%: sub 1660; Fall closed at 502; Spring, Summer 579 each
const gp = example('REF-GP-AFTER-REDUCTION').expected; // 78%: unsub 15990 (7995 each); Grad PLUS 14828 (7414 each)

/** floor(a ÷ b) for whole dollars. */
const floorDiv = (a: number, b: number) => Math.floor(a / b);

export const SHADOW_CASES: ShadowCase[] = [
  {
    id: 'MATCH-FSA-1',
    request: example('FSA-1').request,
    school: {
      pct: fsa1.reduced_annual_pct,
      terms: fsa1.terms.map((t) => ({ sub: t.equal.subsidized, unsub: t.equal.unsubsidized })),
    },
    status: 'match',
    reason: '',
    why: 'the published figures of FSA-1 (equal option)',
  },
  {
    id: 'MATCH-FSA-3-PROPORTIONAL',
    request: example('FSA-3').request,
    school: {
      option: 'proportional',
      pct: '92.0',
      terms: example('FSA-3').expected.terms.map((t) => ({ sub: `${t.proportional!.subsidized}.00` })),
    },
    status: 'match',
    reason: '',
    why: 'the published proportional figures of FSA-3, written with decimals (92.0, 502.00)',
  },
  {
    id: 'NOT-CHECKED',
    request: example('FSA-6').request,
    school: { option: 'proportional', terms: [{}, {}] },
    status: 'not_checked',
    reason: '',
    why: 'every sis figure cell empty (sis_option alone is not a figure)',
  },
  {
    id: 'OPTION',
    request: example('FSA-1').request,
    school: {
      option: 'equal',
      terms: fsa1.terms.map((t) => ({ sub: t.proportional!.subsidized, unsub: t.proportional!.unsubsidized })),
    },
    status: 'mismatch',
    reason: 'option_mismatch',
    why: 'the school says equal but sends the published proportional split 882/1323, 504/756',
  },
  {
    id: 'REMAINDER',
    request: example('FSA-1').request,
    school: {
      // 2205 / 2: each term floor(1102.5) = 1102, the leftover dollar on the last term; 1260 / 2 = 630 exactly.
      terms: [
        { sub: floorDiv(2205, 2), unsub: 630 },
        { sub: 2205 - floorDiv(2205, 2), unsub: 630 },
      ],
    },
    status: 'mismatch',
    reason: 'remainder_placement',
    why: 'annual 2,205 split 1,102 + 1,103 (leftover on the last term) instead of 1,103 + 1,102',
  },
  {
    id: 'BELOW-HALF',
    // FSA-3 with Fall at 5 of 12 credits (below half time).
    request: withTerms('FSA-3', { 0: { credits_enrolled: 5 } }),
    school: {
      // Excluded: (12 + 12) / 36 = 66.67% → 67% of 2,000 = 1,340; Fall ineligible, 1,340 / 2 = 670 each.
      // (The rules count Fall: 29 / 36 = 80.56% → 81% → 1,620 → 810 each.)
      pct: 67,
      terms: [{ sub: 0 }, { sub: 1340 / 2 }, { sub: 1340 / 2 }],
    },
    status: 'mismatch',
    reason: 'below_half_time_excluded',
    why: 'the below-half-time Fall credits left out of the year: 24/36 → 67% → 670 + 670',
  },
  {
    id: 'UNROUNDED',
    request: example('FSA-1').request,
    school: {
      // 15 / 24 = 62.5% unrounded: 3,500 × 0.625 = 2,187.5 → 2,188 → 1,094 + 1,094; 2,000 × 0.625 = 1,250 → 625 + 625.
      pct: '62.5',
      terms: [
        { sub: 1094, unsub: 625 },
        { sub: 1094, unsub: 625 },
      ],
    },
    status: 'mismatch',
    reason: 'percent_not_rounded',
    why: 'the unrounded 62.5% instead of 63%',
  },
  {
    id: 'ROUNDED-DOWN',
    request: example('FSA-3').request,
    school: {
      // 33 / 36 = 91.67% rounded down to 91%: 2,000 × 0.91 = 1,820 → 1,820 / 3 = 606.67: 607 + 607 + 606.
      pct: 91,
      terms: [{ sub: 607 }, { sub: 607 }, { sub: 606 }],
    },
    status: 'mismatch',
    reason: 'percent_not_rounded',
    why: 'the percentage rounded down: 91% instead of 92%',
  },
  {
    id: 'FLOAT',
    // FSA-1's student with a need-based subsidized amount of 2,250 (total_limit isolates Sub, as FSA-2 and FSA-3
    // do) and Fall at 7.5 credits: 16.5 / 24 = 68.75% → 69%.
    request: { ...withTerms('FSA-1', { 0: { credits_enrolled: 7.5 } }), subsidized_amount: 2250, total_limit: 2250 },
    school: {
      // The rules: 2,250 × 69 ÷ 100 = 1,552.5 → 1,553 → 777 + 776. A system in binary doubles computes
      // 2,250 × 0.69 = 1,552.4999999999998 → 1,552 → 776 + 776.
      pct: 69,
      terms: [{ sub: floorDiv(Math.round(2250 * 0.69), 2) }, { sub: Math.round(2250 * 0.69) / 2 }],
    },
    status: 'mismatch',
    reason: 'binary_float',
    why: '2,250 × 0.69 in binary floating point is 1,552.4999999999998 → 1,552 instead of 1,553',
  },
  {
    id: 'GP-BEFORE',
    request: example('REF-GP-AFTER-REDUCTION').request,
    school: {
      // The gap before the reduction: 35,000 − 20,500 = 14,500 × 78% = 11,310 → 5,655 + 5,655 (the published old
      // reading); unsubsidized as published.
      pct: gp.reduced_annual_pct,
      terms: gp.terms.map((t) => ({ unsub: t.equal.unsubsidized, grad_plus: ((35000 - 20500) * 78) / 100 / 2 })),
    },
    status: 'mismatch',
    reason: 'grad_plus_gap_before_reduction',
    why: 'Grad PLUS from COA − the unreduced loans: 14,500 × 78% = 11,310',
  },
  {
    id: 'PAID-RECOMPUTED',
    request: example('FSA-4').request,
    school: {
      // Fall (paid 502) recomputed: the revised 1,660 over the three eligible terms, 1,660 / 3 = 553.33:
      // 554 + 553 + 553 (the rules keep Fall at its 502 and split 1,158 → 579 + 579).
      pct: fsa4.reduced_annual_pct,
      terms: [{ sub: 554 }, { sub: 553 }, { sub: 1660 - 554 - 553 }],
    },
    status: 'mismatch',
    reason: 'paid_term_recomputed',
    why: 'the paid Fall recomputed at its share of the revised year instead of kept at 502',
  },
  {
    id: 'PRORATION-PARTS',
    request: example('REF-FINAL-PERIOD-METRO').request,
    school: {
      // Metro State's final fall (independent senior, 8 of 12 credits, academic year 24, Sub 5,500): fraction 8/24.
      // The rules (rules.md §2.3): S' = round(5,500 × 8/24 = 1,833.33) = 1,833; C' = round(12,500 × 8/24 =
      // 4,166.67) = 4,167 → unsub 4,167 − 1,833 = 2,334. Metro State's page: S' + round((12,500 − 5,500) × 8/24 =
      // 2,333.33) = 1,833 + 2,333. One term at 100% takes the whole year.
      pct: 100,
      terms: [{ sub: 1833, unsub: 2333 }],
    },
    status: 'mismatch',
    reason: 'proration_parts_rounded',
    why: 'the subsidized limit and the unsubsidized-only part prorated separately: 1,833 + 2,333 instead of 2,334',
  },
  {
    id: 'PRORATION-DECIMAL',
    // Handbook ch. 5 example 6 in a file with no policy: the exact fraction is in force.
    request: example('HB-CH5-EX6').request,
    school: {
      // Fall 12 and Spring 12 of 12 (Winter not enrolled), academic year 36, independent senior, Sub 5,500.
      // The rules: 24/36 exact → S' = round(5,500 × 24/36 = 3,666.67) = 3,667, C' = round(12,500 × 24/36 =
      // 8,333.33) = 8,333 → unsub 4,666; equal over Fall and Spring: 1,834 + 1,833 and 2,333 + 2,333.
      // The Handbook's printed 0.67: S' = 5,500 × 0.67 = 3,685, C' = 12,500 × 0.67 = 8,375 → unsub 4,690;
      // 3,685 / 2 = 1,842.5 → 1,843 + 1,842 (the leftover dollar to the earlier term), 4,690 / 2 = 2,345 each.
      terms: [
        { sub: 1843, unsub: 2345 },
        { sub: 0, unsub: 0 },
        { sub: 1842, unsub: 2345 },
      ],
    },
    status: 'mismatch',
    reason: 'proration_decimal',
    why: 'the fraction 24/36 as the 2-decimal 0.67: 3,685 / 4,690 instead of 3,667 / 4,666',
  },
  {
    id: 'SINGLE-TERM-HALF',
    request: example('FSA-2').request,
    school: {
      // FSA example 2: a one-term loan period, Spring 9 of 12, dependent first year, Sub 3,500: 75%.
      // The rules (per-term formula on the full annual amount): 3,500 × 75% = 2,625.
      // Half the annual amount (project-sor): round(3,500 × 75 ÷ 200 = 1,312.5) = 1,313.
      pct: 75,
      terms: [{ sub: Math.round((3500 * 75) / 200) }],
    },
    status: 'mismatch',
    reason: 'single_term_half_annual',
    why: 'a one-term loan period on half the annual amount: 1,313 instead of 2,625',
  },
  {
    id: 'TERM-DROPPED',
    // FSA-1's student (Sub 3,500, Unsub 2,000) full time in Fall and 3 of 12 (below half time) in Spring.
    request: withTerms('FSA-1', { 0: { credits_enrolled: 12 }, 1: { credits_enrolled: 3 } }),
    school: {
      // The rules: (12 + 3) / 24 = 62.5% → 63%: 3,500 × 63% = 2,205, 2,000 × 63% = 1,260, all on Fall (Spring is
      // below half time). Spring dropped from the year: 12 / 12 = 100% → 3,500 and 2,000 on Fall. (Its credits
      // excluded alone: 12 / 24 = 50% → 1,750 / 1,000, below_half_time_excluded.)
      pct: 100,
      terms: [
        { sub: 3500, unsub: 2000 },
        { sub: 0, unsub: 0 },
      ],
    },
    status: 'mismatch',
    reason: 'below_half_time_term_dropped',
    why: 'the below-half-time Spring left out of the year entirely: 12/12 = 100% instead of 15/24 = 63%',
  },
  {
    id: 'UNEXPLAINED',
    request: example('FSA-1').request,
    school: { pct: 63, terms: [{ sub: 1000, unsub: 630 }, { sub: 1102 }] },
    status: 'mismatch',
    reason: 'unexplained',
    why: 'a Fall subsidized amount no reading gives',
  },
];

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value);
}

/** The CSV rows of one case: the example's request and the school's figures (student-level on the first row). */
export function caseRows(c: ShadowCase, columns: readonly string[] = SIS_HEADER.split(',')): string[] {
  return c.request.terms.map((term, i) =>
    columns
      .map((col) => {
        const t = term as Record<string, unknown>;
        const school = c.school.terms[i] ?? {};
        switch (col) {
          case 'student_id':
            return c.id;
          case 'term_label':
            return cell(t.label);
          case 'sis_option':
            return i === 0 ? cell(c.school.option) : '';
          case 'sis_reduced_annual_pct':
            return i === 0 ? cell(c.school.pct) : '';
          case 'sis_sub':
            return cell(school.sub);
          case 'sis_unsub':
            return cell(school.unsub);
          case 'sis_grad_plus':
            return cell(school.grad_plus);
          default:
            return col in t ? cell(t[col]) : cell((c.request as Record<string, unknown>)[col]);
        }
      })
      .join(','),
  );
}

/** One file with every case (one student per reason, two matches and one not checked). */
export function shadowCsv(cases: readonly ShadowCase[] = SHADOW_CASES): string {
  return [SIS_HEADER, ...cases.flatMap((c) => caseRows(c))].join('\n') + '\n';
}
