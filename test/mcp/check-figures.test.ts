/**
 * check_school_figures through the SDK's Client (in memory): every student of samples/shadow-check.csv, the
 * shadow check's sample file, gets the status, detail and reason that samples/shadow-check.expected.csv (checked by
 * hand against the rules) gives it; figures left out are not compared; invalid figures are field errors at their
 * paths.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, example, inProcess, type InProcess } from './helpers.ts';

let mcp: InProcess;
beforeAll(async () => {
  mcp = await inProcess();
});
afterAll(() => mcp.close());

const rowsOf = (file: string) =>
  parse(readFileSync(new URL(`../../samples/${file}`, import.meta.url)), { columns: true }) as Record<string, string>[];

const STUDENT_COLUMNS = [
  'dependency_status',
  'degree_level',
  'grade_level',
  'cost_of_attendance',
  'subsidized_amount',
  'total_limit',
];
const TERM_COLUMNS = ['full_time_credits', 'credits_enrolled', 'actual_final_credits', 'prior_disbursement_sub'];

/** One student of the sample file as the tool's arguments: the request, and the sis_* cells as school_figures. */
function argumentsOf(rows: Record<string, string>[]): Record<string, unknown> {
  const first = rows[0]!;
  const request: Record<string, unknown> = { is_legacy_borrower: first.is_legacy_borrower === 'yes' };
  for (const c of STUDENT_COLUMNS) if (first[c] !== '') request[c] = first[c];
  request.terms = rows.map((row) => {
    const term: Record<string, unknown> = { label: row.term_label };
    for (const c of TERM_COLUMNS) if (row[c] !== '') term[c] = row[c];
    return term;
  });
  const figures: Record<string, unknown> = {
    terms: rows.map((row) => {
      const term: Record<string, string> = {};
      for (const c of ['sis_sub', 'sis_unsub', 'sis_grad_plus']) if (row[c] !== '') term[c] = row[c]!;
      return term;
    }),
  };
  if (first.sis_option !== '') figures.sis_option = first.sis_option;
  if (first.sis_reduced_annual_pct !== '') figures.sis_reduced_annual_pct = first.sis_reduced_annual_pct;
  return { request, school_figures: figures };
}

function byStudent(rows: Record<string, string>[]): Map<string, Record<string, string>[]> {
  const out = new Map<string, Record<string, string>[]>();
  for (const row of rows) out.set(row.student_id!, [...(out.get(row.student_id!) ?? []), row]);
  return out;
}

const input = byStudent(rowsOf('shadow-check.csv'));
const expected = byStudent(rowsOf('shadow-check.expected.csv'));
const checked = [...expected].filter(([, rows]) => rows[0]!.row_status === 'ok');

describe('check_school_figures', () => {
  it.each(checked.map(([id]) => [id] as const))('%s: the sample’s expected status, detail and reason', async (id) => {
    const want = expected.get(id)![0]!;
    const reply = await call(mcp.client, 'check_school_figures', argumentsOf(input.get(id)!));
    expect(reply.structured.status).toBe('ok');
    const check = reply.structured.check as Record<string, unknown>;
    expect(check.status).toBe(want.check_status);
    expect(check.detail).toBe(want.check_detail);
    expect(check.reason).toBe(want.check_reason === '' ? null : want.check_reason);
    expect(typeof check.explanation).toBe('string');
    if (check.status === 'mismatch') expect(check.reason_text).toEqual(expect.any(String));
  });

  it('reads the figures as JSON numbers too, and compares the percentage at the school’s precision', async () => {
    const fsa1 = example('FSA-1');
    const published = fsa1.expected.terms;
    const reply = await call(mcp.client, 'check_school_figures', {
      request: fsa1.request,
      school_figures: {
        sis_option: 'proportional',
        sis_reduced_annual_pct: 63,
        terms: published.map((t) => ({
          sis_sub: t.proportional!.subsidized,
          sis_unsub: `${t.proportional!.unsubsidized}.00`,
        })),
      },
    });
    expect(reply.structured.check).toMatchObject({ status: 'match', reason: null });

    // 15 of 24 credits is 62.5%: a school that did not round gets the reason, not a bare mismatch.
    const unrounded = await call(mcp.client, 'check_school_figures', {
      request: fsa1.request,
      school_figures: { sis_reduced_annual_pct: '62.5' },
    });
    expect(unrounded.structured.check).toMatchObject({
      status: 'mismatch',
      detail: 'pct 62.5 ≠ 63',
      reason: 'percent_not_rounded',
    });
  });

  it('with no figure to compare, the student is not_checked', async () => {
    const fsa1 = example('FSA-1');
    for (const school_figures of [{}, { terms: [{}, {}] }]) {
      const reply = await call(mcp.client, 'check_school_figures', { request: fsa1.request, school_figures });
      expect(reply.structured.check).toMatchObject({ status: 'not_checked', detail: '', reason: null });
    }
  });

  it('invalid figures are field errors under school_figures, reported with the request’s', async () => {
    const sample = argumentsOf(input.get('S1009')!);
    const bad = await call(mcp.client, 'check_school_figures', sample);
    expect(bad.isError).toBe(true);
    expect(bad.structured.field_errors).toEqual([
      { field: 'school_figures.sis_option', message: 'must be one of: equal, proportional' },
    ]);

    const fsa1 = example('FSA-1');
    const many = await call(mcp.client, 'check_school_figures', {
      request: { ...fsa1.request, total_limit: 'lots' },
      school_figures: { sis_reduced_annual_pct: 101, terms: [{ sis_sub: 'abc', sis_pell: 5 }, {}] },
    });
    expect(many.structured.field_errors).toEqual([
      { field: 'request.total_limit', message: expect.stringMatching(/^must be a decimal number/) },
      { field: 'school_figures.sis_reduced_annual_pct', message: 'must be a percentage from 0 to 100' },
      { field: 'school_figures.terms[0].sis_sub', message: expect.stringMatching(/^must be a decimal number/) },
      { field: 'school_figures.terms[0].sis_pell', message: 'is not an allowed field' },
    ]);

    const count = await call(mcp.client, 'check_school_figures', {
      request: fsa1.request,
      school_figures: { terms: [{ sis_sub: 1103 }] },
    });
    expect(count.structured.field_errors).toEqual([
      {
        field: 'school_figures.terms',
        message: expect.stringMatching(/^must list one entry per term of the request \(2\)/),
      },
    ]);

    const none = await call(mcp.client, 'check_school_figures', { request: fsa1.request });
    expect(none.structured.field_errors).toEqual([
      { field: 'school_figures', message: expect.stringMatching(/^is required/) },
    ]);
  });
});
