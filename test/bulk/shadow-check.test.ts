/**
 * The shadow check (architecture.md "Shadow check") through the bulk pipeline: for every reason a student built from
 * the published examples whose school figures come from that reading (computed by hand in shadow-files.ts) gets
 * that reason back; matches stay matches; every differing field is named; invalid sis values are error rows naming
 * the column; the summary adds up; adding sis_* columns never changes any other output column (fuzz); and the sample
 * samples/shadow-check.csv gives its hand-checked expected output. Under a school policy (rules.md §10) the
 * school's figures are compared with ours under that policy, each reason tries its reading on top of it, and a
 * reason the policy already is never comes back.
 */
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { runBulk } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import { type ShadowCheck, type SisFigures, shadowCheck } from '../../src/bulk/shadow-check.ts';
import { calculate } from '../../src/domain/calculate.ts';
import { type Figures, figuresUnder } from '../../src/domain/figures.ts';
import { POLICY_OPTIONS, type PolicyChoices, resolvePolicy } from '../../src/domain/policy.ts';
import {
  CHECK_REASONS,
  REASON_CHANGES,
  type ReadingReason,
  type Readings,
  readingsForPolicy,
  readingsOver,
} from '../../src/domain/readings.ts';
import type { CalculationInput } from '../../src/domain/types.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';
import { ROOT, StringSink, bulkConfig, parseNdjson, parseOutput, readText, runToString } from './helpers.ts';
import { EXAMPLES, EXAMPLES_HEADER, POLICY_EXAMPLES, examplesCsv } from './examples.ts';
import { SHADOW_CASES, SIS_HEADER, caseRows, example, shadowCsv, type ShadowCase } from './shadow-files.ts';

const inline = createInlineRunner();
const pool = createPoolRunner({ threads: 2 });
afterAll(async () => {
  await pool.close();
});

type Row = Record<string, string>;

function byStudent(rows: Row[]): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const r of rows) out.set(r.student_id!, [...(out.get(r.student_id!) ?? []), r]);
  return out;
}

const RESULT_ONLY = [
  'check_status',
  'check_detail',
  'check_reason',
  'sis_option',
  'sis_reduced_annual_pct',
  'sis_sub',
  'sis_unsub',
  'sis_grad_plus',
];

describe('one student per reason, from the published examples', () => {
  it('CSV: every case comes back with its status and reason, repeated on each of its rows', async () => {
    const { text, summary } = await runToString(shadowCsv(), inline);
    const header = text.slice(0, text.indexOf('\n')).split(',');
    expect(header.slice(-3)).toEqual(['check_status', 'check_detail', 'check_reason']);
    const students = byStudent(parseOutput(text) as unknown as Row[]);
    for (const c of SHADOW_CASES) {
      const rows = students.get(c.id)!;
      expect(rows, c.id).toHaveLength(c.request.terms.length);
      for (const r of rows) {
        expect([r.row_status, r.check_status, r.check_reason], `${c.id}: ${c.why}`).toEqual(['ok', c.status, c.reason]);
        expect(r.check_detail, c.id).toBe(rows[0]!.check_detail);
        if (c.status !== 'mismatch') expect(r.check_detail, c.id).toBe('');
      }
    }
    const mismatches = SHADOW_CASES.filter((c) => c.status === 'mismatch');
    expect(summary.checks).toEqual({
      checked: SHADOW_CASES.filter((c) => c.status !== 'not_checked').length,
      match: SHADOW_CASES.filter((c) => c.status === 'match').length,
      mismatch: mismatches.length,
      not_checked: 1,
      by_reason: {
        option_mismatch: 1,
        remainder_placement: 1,
        below_half_time_excluded: 1,
        percent_not_rounded: 2,
        binary_float: 1,
        grad_plus_gap_before_reduction: 1,
        paid_term_recomputed: 1,
        proration_parts_rounded: 1,
        proration_decimal: 1,
        single_term_half_annual: 1,
        below_half_time_term_dropped: 1,
        unexplained: 1,
      },
    });
  });

  it('NDJSON: the same checks as `check` on each BulkResult, and the same summary', async () => {
    const csv = await runToString(shadowCsv(), inline);
    const { text, summary } = await runToString(shadowCsv(), inline, { format: 'ndjson' });
    const lines = parseNdjson(text) as unknown as { student_id: string; check: Record<string, unknown> }[];
    expect(lines.map((l) => l.student_id)).toEqual(SHADOW_CASES.map((c) => c.id));
    const rows = byStudent(parseOutput(csv.text) as unknown as Row[]);
    for (const [i, c] of SHADOW_CASES.entries()) {
      const r = rows.get(c.id)![0]!;
      expect(lines[i]!.check, c.id).toEqual({
        status: c.status,
        detail: r.check_detail,
        reason: c.reason === '' ? null : c.reason,
      });
    }
    expect(summary.checks).toEqual(csv.summary.checks);
  });

  it('names each differing field with its term, the school’s figure first', async () => {
    const { text } = await runToString(shadowCsv(), inline);
    const detail = (id: string) => byStudent(parseOutput(text) as unknown as Row[]).get(id)![0]!.check_detail;
    // FSA-1: the rules give 1,103 + 1,102; the school 1,102 + 1,103.
    expect(detail('REMAINDER')).toBe('Fall: sub 1102 ≠ 1103; Spring: sub 1103 ≠ 1102');
    expect(detail('UNROUNDED')).toBe(
      'pct 62.5 ≠ 63; Fall: sub 1094 ≠ 1103, unsub 625 ≠ 630; Spring: sub 1094 ≠ 1102, unsub 625 ≠ 630',
    );
    expect(detail('UNEXPLAINED')).toBe('Fall: sub 1000 ≠ 1103');
    expect(detail('GP-BEFORE')).toBe('Fall: grad_plus 5655 ≠ 7414; Spring: grad_plus 5655 ≠ 7414');
  });

  it('the counts made where chunks are calculated equal the counts read back from the output', async () => {
    for (const format of ['csv', 'ndjson'] as const) {
      const { text, summary } = await runToString(shadowCsv(), inline, {
        format,
        config: bulkConfig({ BULK_CHUNK_STUDENTS: '3' }),
      });
      const { readHeader } = await import('../../src/bulk/csv-layout.ts');
      const { CheckTally } = await import('../../src/bulk/shadow-summary.ts');
      const tally = new CheckTally(format, readHeader(SIS_HEADER.split(',')));
      const body = format === 'csv' ? text.slice(text.indexOf('\n') + 1) : text;
      tally.read({ text: body });
      expect(tally.summary(), format).toEqual(summary.checks);
      // and from UTF-8 bytes (the pool's and the queue's outcomes)
      const bytesTally = new CheckTally(format, readHeader(SIS_HEADER.split(',')));
      bytesTally.read({ text: '', bytes: new Uint8Array(Buffer.from(body)) });
      expect(bytesTally.summary(), format).toEqual(summary.checks);
    }
  });

  it('is the same from the pool runner, and independent of the chunk size', async () => {
    const expected = (await runToString(shadowCsv(), inline)).text;
    expect((await runToString(shadowCsv(), pool)).text).toBe(expected);
    const small = bulkConfig({ BULK_CHUNK_STUDENTS: '1' });
    expect((await runToString(shadowCsv(), pool, { config: small })).text).toBe(expected);
    const nd = (await runToString(shadowCsv(), inline, { format: 'ndjson' })).text;
    expect((await runToString(shadowCsv(), pool, { format: 'ndjson', config: small })).text).toBe(nd);
  });
});

describe('matches, precision and partial figures', () => {
  it('every published example with its own figures (either option, only some fields) is a match', async () => {
    // A file has one policy: here the default (EXAMPLES); POLICY_EXAMPLES are checked under theirs below.
    const cases: ShadowCase[] = EXAMPLES.flatMap((ex) => [
      {
        id: `${ex.id}/equal`,
        request: ex.request,
        school: {
          pct: ex.expected.reduced_annual_pct,
          terms: ex.expected.terms.map((t) => ({
            sub: t.equal.subsidized,
            unsub: t.equal.unsubsidized,
            grad_plus: t.equal.grad_plus,
          })),
        },
        status: 'match' as const,
        reason: '',
        why: 'published equal figures',
      },
      {
        id: `${ex.id}/proportional`,
        request: ex.request,
        school: {
          option: 'PROPORTIONAL',
          // Not offered: the proportional amounts are the equal ones.
          terms: ex.expected.terms.map((t) => ({ unsub: (t.proportional ?? t.equal).unsubsidized })),
        },
        status: 'match' as const,
        reason: '',
        why: 'published proportional figures, unsub only',
      },
    ]);
    const { text, summary } = await runToString(shadowCsv(cases), inline);
    for (const r of parseOutput(text) as unknown as Row[]) {
      expect([r.row_status, r.check_status, r.check_detail, r.check_reason], r.student_id).toEqual([
        'ok',
        'match',
        '',
        '',
      ]);
    }
    expect(summary.checks?.match).toBe(cases.length);
  });

  it('compares the percentage at the school’s precision', async () => {
    const fsa3 = example('FSA-3');
    const make = (id: string, pct: string, subs: number[]): ShadowCase => ({
      id,
      request: fsa3.request,
      school: { pct, terms: subs.map((sub) => ({ sub })) },
      status: 'mismatch',
      reason: '',
      why: '',
    });
    // 33 / 36 = 91.666…%: unrounded, 2,000 × 33 / 36 = 1,833.33 → 1,833 → 611 each.
    const cases = [
      make('P-2', '91.67', [611, 611, 611]),
      make('P-T', '91.66', [611, 611, 611]),
      make('P-1', '91.7', [611, 611, 611]),
      make('P-X', '91.5', [611, 611, 611]),
    ];
    const rows = byStudent(parseOutput((await runToString(shadowCsv(cases), inline)).text) as unknown as Row[]);
    expect(rows.get('P-2')![0]!.check_reason).toBe('percent_not_rounded');
    expect(rows.get('P-T')![0]!.check_reason).toBe('percent_not_rounded'); // truncated at 2 decimals
    expect(rows.get('P-1')![0]!.check_reason).toBe('percent_not_rounded');
    expect(rows.get('P-X')![0]!.check_reason).toBe('unexplained');
    expect(rows.get('P-X')![0]!.check_detail).toBe(
      'pct 91.5 ≠ 92; Fall: sub 611 ≠ 614; Spring: sub 611 ≠ 613; Summer: sub 611 ≠ 613',
    );
  });
});

type Money = { sub?: number; unsub?: number; grad_plus?: number };

/** A school's figures as readSisFigures gives them (canonical decimal strings; absent: not given). */
function sis(terms: Money[], pct?: number | string, option: 'equal' | 'proportional' = 'equal'): SisFigures {
  const text = (v: number | undefined) => (v === undefined ? null : String(v));
  return {
    option,
    percent: pct === undefined ? null : String(pct),
    terms: terms.map((t) => ({ sub: text(t.sub), unsub: text(t.unsub), grad_plus: text(t.grad_plus) })),
  };
}

/**
 * One student checked as a file under `choices` checks it: the request (its own `policy` left out) validated with
 * the file's policy, calculated under it (as process-chunk.ts does), then compared with the school's figures.
 */
function checkUnder(request: object, choices: PolicyChoices, school: SisFigures): ShadowCheck {
  const { policy: _own, ...body } = request as Record<string, unknown>;
  const parsed = parseCalculationRequest(body, { policy: resolvePolicy(choices) });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.fieldErrors));
  return shadowCheck(parsed.value, calculate(parsed.value), school);
}

/** Handbook ch. 5 example 6: Fall 12 and Spring 12 of 12, Winter not enrolled, academic year 36. */
const EX6 = example('HB-CH5-EX6').request;
// 24/36 exact: S' = round(5,500 × 24/36 = 3,666.67) = 3,667 → 1,834 + 1,833; C' = round(12,500 × 24/36 =
// 8,333.33) = 8,333 → unsub 4,666 → 2,333 + 2,333.
const EX6_EXACT = sis([
  { sub: 1834, unsub: 2333 },
  { sub: 0, unsub: 0 },
  { sub: 1833, unsub: 2333 },
]);
// 0.67: S' = 5,500 × 0.67 = 3,685 → 1,843 + 1,842; C' = 12,500 × 0.67 = 8,375 → unsub 4,690 → 2,345 + 2,345.
const EX6_ROUNDED = sis([
  { sub: 1843, unsub: 2345 },
  { sub: 0, unsub: 0 },
  { sub: 1842, unsub: 2345 },
]);
// 0.66: S' = 5,500 × 0.66 = 3,630 → 1,815 + 1,815; C' = 12,500 × 0.66 = 8,250 → unsub 4,620 → 2,310 + 2,310.
const EX6_TRUNCATED = sis([
  { sub: 1815, unsub: 2310 },
  { sub: 0, unsub: 0 },
  { sub: 1815, unsub: 2310 },
]);

describe('under the school policy in force', () => {
  const mismatch = (reason: string) => expect.objectContaining({ status: 'mismatch', reason });

  it('every published example printed under a policy matches its own figures under that policy', () => {
    const printed = POLICY_EXAMPLES;
    expect(printed.map((ex) => ex.id)).toEqual(expect.arrayContaining(['HB-CH5-EX5', 'HB-CH5-EX6']));
    for (const ex of printed) {
      const school = sis(
        ex.expected.terms.map((t) => ({ sub: t.equal.subsidized, unsub: t.equal.unsubsidized })),
        ex.expected.reduced_annual_pct,
      );
      expect(checkUnder(ex.request, ex.request.policy!, school), ex.id).toEqual({
        status: 'match',
        detail: '',
        reason: null,
      });
    }
  });

  it('proration_fraction=decimal_rounded: the 0.67 figures match; exact and 0.66 are proration_decimal', () => {
    const policy: PolicyChoices = { proration_fraction: 'decimal_rounded' };
    expect(checkUnder(EX6, policy, EX6_ROUNDED).status).toBe('match');
    const exact = checkUnder(EX6, policy, EX6_EXACT);
    expect(exact).toEqual(mismatch('proration_decimal'));
    // The detail compares with ours under the policy (0.67), the school's figure first.
    expect(exact.detail).toBe('Fall: sub 1834 ≠ 1843, unsub 2333 ≠ 2345; Spring: sub 1833 ≠ 1842, unsub 2333 ≠ 2345');
    expect(checkUnder(EX6, policy, EX6_TRUNCATED)).toEqual(mismatch('proration_decimal'));
  });

  it('proration_fraction=decimal_truncated: the 0.66 figures match; 0.67 and exact are proration_decimal', () => {
    const policy: PolicyChoices = { proration_fraction: 'decimal_truncated' };
    expect(checkUnder(EX6, policy, EX6_TRUNCATED).status).toBe('match');
    expect(checkUnder(EX6, policy, EX6_ROUNDED)).toEqual(mismatch('proration_decimal'));
    expect(checkUnder(EX6, policy, EX6_EXACT)).toEqual(mismatch('proration_decimal'));
  });

  it('the default policy: the exact figures match, 0.67 and 0.66 are proration_decimal', () => {
    expect(checkUnder(EX6, {}, EX6_EXACT).status).toBe('match');
    expect(checkUnder(EX6, {}, EX6_ROUNDED)).toEqual(mismatch('proration_decimal'));
    expect(checkUnder(EX6, {}, EX6_TRUNCATED)).toEqual(mismatch('proration_decimal'));
  });

  it('remainder_placement=last_term: the leftover on the last term matches; the largest remainder is no reason', () => {
    const fsa1 = example('FSA-1').request;
    const policy: PolicyChoices = { remainder_placement: 'last_term' };
    // 2,205 / 2 = 1,102.5: floor 1,102 each, the leftover dollar on Spring; 1,260 / 2 = 630 each.
    expect(
      checkUnder(
        fsa1,
        policy,
        sis([
          { sub: 1102, unsub: 630 },
          { sub: 1103, unsub: 630 },
        ]),
      ).status,
    ).toBe('match');
    // The published FSA-1 split (largest remainder, tie to the earlier term) is the service's default reading,
    // not `remainder_placement` on top of this policy: no reason tries it.
    expect(
      checkUnder(
        fsa1,
        policy,
        sis([
          { sub: 1103, unsub: 630 },
          { sub: 1102, unsub: 630 },
        ]),
      ),
    ).toEqual(mismatch('unexplained'));
    // option_mismatch under the policy: the proportional split 2,205 × 6/15 = 882, × 9/15 = 1,323 (exact).
    expect(
      checkUnder(
        fsa1,
        policy,
        sis([
          { sub: 882, unsub: 504 },
          { sub: 1323, unsub: 756 },
        ]),
      ),
    ).toEqual(mismatch('option_mismatch'));
  });

  it('a reason not in the policy is tried on top of it: parts rounded with the leftover on the last term', () => {
    // An independent senior's final period, Fall 6 and Spring 6 of 12, academic year 36: 12/36 = 1/3.
    // S' = round(5,500 / 3 = 1,833.33) = 1,833; parts: round(7,000 / 3 = 2,333.33) = 2,333 (C' = 4,167 would give
    // 2,334). Leftover dollars on the last term: 1,833 → 916 + 917; 2,333 → 1,166 + 1,167.
    const request = {
      ...example('REF-FINAL-PERIOD-METRO').request,
      academic_year_credits: 36,
      terms: [
        { label: 'Fall', full_time_credits: 12, credits_enrolled: 6 },
        { label: 'Spring', full_time_credits: 12, credits_enrolled: 6 },
      ],
    };
    const school = sis([
      { sub: 916, unsub: 1166 },
      { sub: 917, unsub: 1167 },
    ]);
    expect(checkUnder(request, { remainder_placement: 'last_term' }, school)).toEqual(
      mismatch('proration_parts_rounded'),
    );
    // Under the default policy the same figures need two readings at once: no single reason explains them.
    expect(checkUnder(request, {}, school)).toEqual(mismatch('unexplained'));
  });

  it('single_term_basis=half_annual: half the annual amount matches; the full annual amount is no reason', () => {
    const fsa2 = example('FSA-2').request;
    const policy: PolicyChoices = { single_term_basis: 'half_annual' };
    // Spring 9 of 12: 75%; round(3,500 × 75 ÷ 200 = 1,312.5) = 1,313.
    expect(checkUnder(fsa2, policy, sis([{ sub: 1313 }], 75)).status).toBe('match');
    // FSA example 2's own 3,500 × 75% = 2,625: the policy already decides the basis, so no reason names it.
    expect(checkUnder(fsa2, policy, sis([{ sub: 2625 }], 75))).toEqual(mismatch('unexplained'));
  });

  it('below_half_time_credits=excluded: excluded figures match; counted ones are no reason', () => {
    const request = SHADOW_CASES.find((c) => c.id === 'BELOW-HALF')!.request;
    const policy: PolicyChoices = { below_half_time_credits: 'excluded' };
    // Fall 5 of 12 left out: (12 + 12) / 36 = 66.67% → 67% of 2,000 = 1,340 → 670 + 670.
    expect(checkUnder(request, policy, sis([{ sub: 0 }, { sub: 670 }, { sub: 670 }], 67)).status).toBe('match');
    // Counted: 29 / 36 = 80.56% → 81% of 2,000 = 1,620 → 810 + 810, the default reading, not a reason here.
    expect(checkUnder(request, policy, sis([{ sub: 0 }, { sub: 810 }, { sub: 810 }], 81))).toEqual(
      mismatch('unexplained'),
    );
  });

  it('below_half_time_credits=excluded: a reason tries its reading on the excluded sum (unrounded 37.5%)', () => {
    // FSA-1's student (Sub 3,500, Unsub 2,000) at 3 of 12 in Fall (below half time) and 9 of 12 in Spring. Counted,
    // (3 + 9) / 24 = 50% exactly; excluded, 9 / 24 = 37.5% → 38% under the policy: 1,330 / 760, all on Spring.
    // Unrounded: 3,500 × 9/24 = 1,312.5 → 1,313; 2,000 × 9/24 = 750.
    const request = {
      ...example('FSA-1').request,
      terms: [
        { label: 'Fall', full_time_credits: 12, credits_enrolled: 3 },
        { label: 'Spring', full_time_credits: 12, credits_enrolled: 9 },
      ],
    };
    const school = sis(
      [
        { sub: 0, unsub: 0 },
        { sub: 1313, unsub: 750 },
      ],
      '37.5',
    );
    expect(checkUnder(request, { below_half_time_credits: 'excluded' }, school)).toEqual(
      mismatch('percent_not_rounded'),
    );
  });

  it('a file under a policy (query parameters, CLI flag): the same checks from the inline and the pool runner', async () => {
    const cases: ShadowCase[] = [
      { id: 'EX6-ROUNDED', request: EX6, school: { terms: terms(EX6_ROUNDED) }, status: 'match', reason: '', why: '' },
      {
        id: 'EX6-EXACT',
        request: EX6,
        school: { terms: terms(EX6_EXACT) },
        status: 'mismatch',
        reason: 'proration_decimal',
        why: '',
      },
    ];
    const policy = resolvePolicy({ proration_fraction: 'decimal_rounded' });
    const run = async (runner: ChunkRunner) => {
      const sink = new StringSink();
      const summary = await runBulk({
        input: Readable.from([Buffer.from(shadowCsv(cases))]),
        output: sink,
        format: 'csv',
        runner,
        config: bulkConfig({ BULK_CHUNK_STUDENTS: '1' }),
        policy,
      });
      return { text: sink.text(), summary };
    };
    const { text, summary } = await run(inline);
    const rows = byStudent(parseOutput(text) as unknown as Row[]);
    for (const c of cases) expect(rows.get(c.id)![0]!.check_reason, c.id).toBe(c.reason);
    expect(summary.checks).toMatchObject({ match: 1, mismatch: 1, by_reason: { proration_decimal: 1 } });
    expect((await run(pool)).text).toBe(text);
  });
});

/** The term cells of a SisFigures, back as a ShadowCase's school terms. */
function terms(figures: SisFigures): { sub: Money['sub'] | null; unsub: Money['unsub'] | null }[] {
  return figures.terms.map((t) => ({
    sub: t.sub === null ? null : Number(t.sub),
    unsub: t.unsub === null ? null : Number(t.unsub),
  }));
}

/**
 * The check's outcome found the slow way, as an oracle for its cheap pre-checks: every reason's every reading over
 * the policy's (leaving out those the policy already is; for proration_decimal every other form of the fraction),
 * each computed in full, none skipped. The school's figures are term amounts only.
 */
function bruteForceReason(input: CalculationInput, school: Figures, option: 'equal' | 'proportional'): string | null {
  const same = (f: Figures, o: 'equal' | 'proportional') =>
    school.equal.every((want, i) => {
      const have = o === 'proportional' && f.proportional !== null ? f.proportional[i]! : f.equal[i]!;
      const got = option === 'proportional' && school.proportional !== null ? school.proportional[i]! : want;
      return (
        have.subsidized === got.subsidized && have.unsubsidized === got.unsubsidized && have.grad_plus === got.grad_plus
      );
    });
  const base = readingsForPolicy(input.policy);
  const ours = figuresUnder(input, base);
  if (same(ours, option)) return null;
  if (ours.proportional !== null && same(ours, option === 'equal' ? 'proportional' : 'equal')) {
    return 'option_mismatch';
  }
  for (const reason of CHECK_REASONS) {
    if (!(reason in REASON_CHANGES)) continue;
    for (const change of REASON_CHANGES[reason as ReadingReason]) {
      const readings = readingsOver(base, change);
      if (Object.entries(change).every(([k, v]) => base[k as keyof Readings] === v)) continue;
      if (same(figuresUnder(input, readings), option)) return reason;
    }
  }
  return 'unexplained';
}

describe('the cheap pre-checks never change a reason (property)', () => {
  const requests = [...EXAMPLES, ...POLICY_EXAMPLES].map((ex) => {
    const { policy: _own, ...request } = ex.request as Record<string, unknown>;
    return request as { terms: Record<string, unknown>[] } & Record<string, unknown>;
  });
  const changeArb = fc.constantFrom(...Object.values(REASON_CHANGES).flatMap((list) => list as Partial<Readings>[]));
  const policyArb = fc.record(
    Object.fromEntries(POLICY_OPTIONS.map((o) => [o.name, fc.constantFrom(...o.values)])) as {
      [K in keyof PolicyChoices]-?: fc.Arbitrary<NonNullable<PolicyChoices[K]>>;
    },
  );
  const creditsArb = fc.constantFrom(0, 2, 3, 5, 6, 7.5, 8, 9, 10, 12);

  it('for random students, policies and readings, the reason equals the one found by trying every reading', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: requests.length - 1 }),
        fc.array(fc.option(creditsArb, { nil: undefined }), { minLength: 4, maxLength: 4 }),
        fc.boolean(),
        fc.option(fc.constantFrom(24, 30, 36), { nil: undefined }),
        policyArb,
        changeArb,
        fc.constantFrom('equal' as const, 'proportional' as const),
        (which, credits, oneTerm, finalPeriod, choices, change, option) => {
          const request = structuredClone(requests[which]!);
          if (oneTerm) request.terms = request.terms.slice(0, 1);
          request.terms.forEach((t, i) => {
            if (credits[i] !== undefined) t.credits_enrolled = credits[i];
          });
          if (finalPeriod !== undefined && (request.degree_level ?? 'undergraduate') === 'undergraduate') {
            request.final_period_of_program = true;
            request.academic_year_credits = finalPeriod;
          }
          const parsed = parseCalculationRequest(request, { policy: resolvePolicy(choices) });
          if (!parsed.ok) return; // a combination the rules reject (e.g. every term at 0 credits)
          const input = parsed.value;
          const school = figuresUnder(input, readingsOver(readingsForPolicy(input.policy), change));
          const figures = sis(
            school.equal.map((eq, i) => {
              const t = option === 'proportional' && school.proportional !== null ? school.proportional[i]! : eq;
              return { sub: t.subsidized, unsub: t.unsubsidized, grad_plus: t.grad_plus };
            }),
            undefined,
            option,
          );
          const check = shadowCheck(input, calculate(input), figures);
          const expected = bruteForceReason(input, school, option);
          expect(check.status === 'match' ? null : check.reason, JSON.stringify({ request, choices, change })).toBe(
            expected,
          );
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('bad sis values and students with errors', () => {
  it('an invalid sis value is an error row naming the column; students with errors are not checked', async () => {
    const base = SHADOW_CASES.find((c) => c.id === 'MATCH-FSA-1')!;
    const bad = (id: string, school: ShadowCase['school']): ShadowCase => ({ ...base, id, school });
    const cases = [
      bad('BAD-OPTION', { option: 'both', terms: [{ sub: 1103 }, { sub: 1102 }] }),
      bad('BAD-PCT', { pct: '101', terms: [{}, {}] }),
      bad('BAD-PCT-BIG', { pct: '1500', terms: [{}, {}] }),
      bad('BAD-MONEY', { terms: [{ sub: '1103.5.0' }, { unsub: -5 }] }),
      { ...base, id: 'BAD-REQUEST', request: { ...base.request, dependency_status: 'maybe' } },
      base,
    ];
    const { text, summary } = await runToString(shadowCsv(cases as ShadowCase[]), inline);
    const rows = byStudent(parseOutput(text) as unknown as Row[]);
    const errorOf = (id: string, i = 0) => {
      const r = rows.get(id)![i]!;
      expect([r.row_status, r.check_status, r.check_detail, r.check_reason]).toEqual(['error', '', '', '']);
      return r.error_field;
    };
    expect(errorOf('BAD-OPTION')).toBe('sis_option');
    expect(errorOf('BAD-PCT')).toBe('sis_reduced_annual_pct');
    expect(rows.get('BAD-PCT')![0]!.error_message).toMatch(/from 0 to 100/);
    expect(errorOf('BAD-PCT-BIG')).toBe('sis_reduced_annual_pct');
    expect(rows.get('BAD-PCT-BIG')![0]!.error_message).toBe(
      'sis_reduced_annual_pct: must be a percentage from 0 to 100',
    );
    expect(errorOf('BAD-MONEY', 0)).toBe('sis_sub');
    expect(errorOf('BAD-MONEY', 1)).toBe('sis_unsub');
    expect(errorOf('BAD-REQUEST')).toBe('dependency_status');
    expect(summary.checks).toMatchObject({ checked: 1, match: 1, mismatch: 0, not_checked: 0 });

    const nd = parseNdjson((await runToString(shadowCsv(cases as ShadowCase[]), inline, { format: 'ndjson' })).text);
    const lines = nd as unknown as { student_id: string; error: unknown; check: unknown }[];
    for (const l of lines.slice(0, 5)) expect([l.check, l.error === null], l.student_id).toEqual([null, false]);
    expect(JSON.stringify(lines[0]!.error)).toMatch(/sis_option/);
  });

  it('a student-level sis value that contradicts the first row is an error', async () => {
    const rows = caseRows(SHADOW_CASES[0]!);
    const columns = SIS_HEADER.split(',');
    const second = rows[1]!.split(',');
    second[columns.indexOf('sis_reduced_annual_pct')] = '64';
    const csv = [SIS_HEADER, rows[0], second.join(',')].join('\n') + '\n';
    const out = parseOutput((await runToString(csv, inline)).text) as unknown as Row[];
    expect(out.map((r) => [r.row_status, r.error_field])).toEqual([
      ['error', ''],
      ['error', 'sis_reduced_annual_pct'],
    ]);
  });
});

describe('adding sis_* columns never changes any other output column (fuzz)', () => {
  const columns = SIS_HEADER.split(',');
  const exampleCases = EXAMPLES.map((ex) => ({ ...ex, school: { terms: [] }, status: 'match', reason: '', why: '' }));
  const plain = examplesCsv();

  it('for random sis cells on random examples, CSV and NDJSON keep every other column', async () => {
    const without = parseOutput((await runToString(plain, inline)).text) as unknown as Row[];
    const withoutNd = parseNdjson((await runToString(plain, inline, { format: 'ndjson' })).text);
    const cellArb = fc.oneof(
      fc.constant(''),
      fc.integer({ min: 0, max: 20000 }).map(String),
      fc.constantFrom('equal', 'proportional', 'x', '-1', '62.5', '1e3', '=1+1', ' 5', '100.0000001'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cellArb, { minLength: 5, maxLength: 5 }), { minLength: 40, maxLength: 40 }),
        async (grid) => {
          let k = 0;
          const lines = [SIS_HEADER];
          for (const c of exampleCases) {
            for (const line of caseRows(c as unknown as ShadowCase)) {
              const cells = line.split(',');
              const sis = grid[k++ % grid.length]!;
              columns.forEach((col, i) => {
                const j = ['sis_option', 'sis_reduced_annual_pct', 'sis_sub', 'sis_unsub', 'sis_grad_plus'].indexOf(
                  col,
                );
                if (j >= 0) cells[i] = sis[j]!;
              });
              lines.push(cells.join(','));
            }
          }
          const csv = lines.join('\n') + '\n';
          const out = parseOutput((await runToString(csv, inline)).text) as unknown as Row[];
          expect(out).toHaveLength(without.length);
          out.forEach((r, i) => {
            const w = without[i]!;
            if (r.row_status === 'error') {
              // Only a sis problem can make a student an error here, and it names a sis column on some row.
              expect(w.row_status === 'ok' || r.error_field === w.error_field).toBe(true);
              return;
            }
            for (const key of Object.keys(w)) expect(r[key], key).toBe(w[key]);
            for (const key of Object.keys(r)) if (!(key in w)) expect(RESULT_ONLY).toContain(key);
          });
          const nd = parseNdjson((await runToString(csv, inline, { format: 'ndjson' })).text);
          nd.forEach((l, i) => {
            if (l.error !== null) return;
            const { check: _check, ...rest } = l as unknown as Record<string, unknown>;
            expect(rest).toEqual(withoutNd[i]);
          });
        },
      ),
      { numRuns: 15 },
    );
    expect(EXAMPLES_HEADER).toBe(columns.slice(0, -5).join(','));
  });
});

describe('the sample samples/shadow-check.csv', () => {
  it('gives samples/shadow-check.expected.csv byte for byte', async () => {
    const input = readText(new URL('samples/shadow-check.csv', ROOT));
    const expected = readText(new URL('samples/shadow-check.expected.csv', ROOT));
    expect((await runToString(input, inline)).text).toBe(expected);
  });
});
