/**
 * calculate_loan_limits through the SDK's own Client (in memory): every worked example to the dollar, needs_input
 * for each kind of missing input (never a default in its place), the API's own 422 envelope for invalid requests,
 * the defaults a request relied on said out loud, and the deployment's school policy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { AppError, errorEnvelope } from '../../src/errors.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';
import { resolvePolicy } from '../../src/domain/policy.ts';
import { EXAMPLES, call, example, figuresOf, inProcess, type InProcess } from './helpers.ts';

let mcp: InProcess;
beforeAll(async () => {
  mcp = await inProcess();
});
afterAll(() => mcp.close());

const calculateTool = (args: Record<string, unknown>) => call(mcp.client, 'calculate_loan_limits', args);

/** FSA example 1's request without some of its fields. */
function fsa1Without(...fields: string[]): Record<string, unknown> {
  const request = structuredClone(example('FSA-1').request) as Record<string, unknown>;
  for (const f of fields) delete request[f];
  return request;
}

describe('calculate_loan_limits', () => {
  it.each(EXAMPLES.map((e) => [e.id, e] as const))('%s: every published figure', async (_id, ex) => {
    const reply = await calculateTool(ex.request as unknown as Record<string, unknown>);
    expect(reply.isError).toBe(false);
    expect(reply.structured.status).toBe('ok');
    expect(figuresOf(reply.structured.result)).toEqual(ex.expected);
    const result = reply.structured.result as { warnings: string[] };
    expect(reply.structured.warnings).toEqual(result.warnings);
    expect(reply.structured.rule_set).toBe('2026-27.3');
  });

  it('answers with the worksheet summary: FSA-1’s percentage arithmetic and each annual amount with its citation', async () => {
    const ex = example('FSA-1');
    const reply = await calculateTool(ex.request as unknown as Record<string, unknown>);
    const summary = reply.structured.summary as {
      percentage: { pct: number; arithmetic: string; citation: string };
      annual: { loan: string; amount: number; arithmetic: string; citation: string }[];
    };
    // 6 + 9 of 12 + 12 credits: 62.5% → 63% (FSA Q&A example 1), $3,500 × 63% = $2,205 and $2,000 × 63% = $1,260.
    expect(summary.percentage).toMatchObject({
      pct: ex.expected.reduced_annual_pct,
      arithmetic: '(6 + 9) ÷ 24 = 62.5% → 63%',
    });
    expect(summary.annual.map((a) => [a.loan, a.amount])).toEqual([
      ['subsidized', ex.expected.annual_basic_eligibility_sub],
      ['unsubsidized', ex.expected.annual_basic_eligibility_unsub],
    ]);
    expect(summary.annual[0]!.arithmetic).toBe('$3,500 × 63% = $2,205');
    for (const a of summary.annual) expect(a.citation.length).toBeGreaterThan(0);
  });

  it('answers needs_input without dependency status, naming it in plain words, and calculates nothing', async () => {
    const reply = await calculateTool(fsa1Without('dependency_status'));
    expect(reply.isError).toBe(false);
    expect(reply.structured.status).toBe('needs_input');
    expect(reply.structured).not.toHaveProperty('result');
    expect(reply.structured.missing).toEqual([
      {
        field: 'dependency_status',
        label: 'Dependency status',
        text: 'Dependency status is required (one of: dependent, independent).',
        about: 'Dependency status for federal student aid.',
        allowed: ['dependent', 'independent'],
      },
    ]);
    expect(reply.structured.message).toContain('do not guess');
  });

  it('answers needs_input for an undergraduate without grade level, a term without credits, and both at once', async () => {
    const noGrade = await calculateTool(fsa1Without('grade_level'));
    expect(noGrade.structured.status).toBe('needs_input');
    expect(noGrade.structured.missing).toMatchObject([
      { field: 'grade_level', text: expect.stringMatching(/^Grade level is required for an undergraduate/) },
    ]);

    const request = fsa1Without('grade_level');
    delete (request.terms as Record<string, unknown>[])[1]!.credits_enrolled;
    const both = await calculateTool(request);
    expect(both.structured.status).toBe('needs_input');
    expect(both.structured.missing).toMatchObject([
      { field: 'terms[1].credits_enrolled', label: 'Credits enrolled', text: 'Spring: Credits enrolled is required.' },
      { field: 'grade_level' },
    ]);
  });

  it('answers needs_input for the academic-year credits of an undergraduate’s final period, and for no terms', async () => {
    const final = { ...fsa1Without(), final_period_of_program: true };
    const reply = await calculateTool(final);
    expect(reply.structured.status).toBe('needs_input');
    expect(reply.structured.missing).toMatchObject([
      { field: 'academic_year_credits', label: 'Credits in the academic year' },
    ]);

    const empty = await calculateTool({});
    expect(empty.structured.status).toBe('needs_input');
    expect((empty.structured.missing as { field: string }[]).map((m) => m.field)).toEqual([
      'dependency_status',
      'terms',
      'grade_level',
    ]);
  });

  it('null where the field may be null is not given (needs_input); null where it may not is a wrong value (422)', async () => {
    const nullGrade = await calculateTool({ ...fsa1Without(), grade_level: null });
    expect(nullGrade.structured.status).toBe('needs_input');
    expect(nullGrade.structured.missing).toMatchObject([{ field: 'grade_level' }]);
    const nullStatus = await calculateTool({ ...fsa1Without(), dependency_status: null });
    expect(nullStatus.isError).toBe(true);
    expect(nullStatus.structured.field_errors).toEqual([
      { field: 'dependency_status', message: 'must be one of: dependent, independent; null is not allowed here' },
    ]);
  });

  it.each(INVALID_EXAMPLES.map((e) => [e.id, e] as const))(
    '%s: the API’s 422 envelope (same paths and messages) as a tool error, or needs_input when only inputs are missing',
    async (_id, ex) => {
      const reply = await calculateTool(ex.request);
      const api = parseCalculationRequest(ex.request);
      if (api.ok) throw new Error(`${ex.id} is valid for the API`);
      if (api.fieldErrors.every((e) => e.message.startsWith('is required'))) {
        // INV-11: an undergraduate without grade_level is a question for the user, not an error.
        expect(reply.isError).toBe(false);
        expect(reply.structured.status).toBe('needs_input');
        const fields = (reply.structured.missing as { field: string }[]).map((m) => m.field);
        expect(fields).toEqual(ex.expected_field_paths);
        return;
      }
      expect(reply.isError).toBe(true);
      expect(reply.structured.status).toBe('invalid');
      expect(reply.structured.code).toBe(ex.expected_code);
      const paths = (reply.structured.field_errors as { field: string }[]).map((e) => e.field);
      expect(paths).toEqual(expect.arrayContaining(ex.expected_field_paths));
      const { status: _status, missing: _missing, ...envelope } = reply.structured;
      expect(envelope).toEqual(errorEnvelope(AppError.validation(api.fieldErrors)));
    },
  );

  it('a request with a wrong value and a missing one is invalid, and still lists what is missing', async () => {
    const request = { ...fsa1Without('dependency_status'), total_limit: -5 };
    const reply = await calculateTool(request);
    expect(reply.isError).toBe(true);
    expect(reply.structured.field_errors).toEqual([
      { field: 'dependency_status', message: 'is required' },
      { field: 'total_limit', message: 'must be greater than 0' },
    ]);
    expect(reply.structured.missing).toMatchObject([{ field: 'dependency_status' }]);
  });

  it('says which defaults the request relied on, and none it did not', async () => {
    const fsa1 = example('FSA-1').request as unknown as Record<string, unknown>;
    const reply = await calculateTool(fsa1);
    // FSA-1 gives degree_level, leaves out the policy and the award year.
    expect((reply.structured.defaults_applied as { field: string }[]).map((d) => d.field)).toEqual([
      'policy',
      'award_year',
    ]);
    const bare = await calculateTool(fsa1Without('degree_level'));
    expect(reply.structured.defaults_applied).toHaveLength(2);
    expect(bare.structured.defaults_applied).toContainEqual({
      field: 'degree_level',
      value: 'undergraduate',
      text: 'Degree level was not given: undergraduate was used (the API’s default).',
    });
  });

  it('applies the deployment’s school policy under the request’s own, as the API does', async () => {
    const deployment = await inProcess({ policy: resolvePolicy({ remainder_placement: 'last_term' }) });
    try {
      const reply = await call(deployment.client, 'calculate_loan_limits', fsa1Without());
      expect(reply.structured.policy).toMatchObject({ remainder_placement: 'last_term' });
      const own = await call(deployment.client, 'calculate_loan_limits', {
        ...fsa1Without(),
        policy: { remainder_placement: 'largest_remainder' },
      });
      expect(own.structured.policy).toMatchObject({ remainder_placement: 'largest_remainder' });
      // FSA-1's published equal split: the odd dollar on the earlier term (largest remainder).
      const terms = (own.structured.result as { terms: { equal: { subsidized: number } }[] }).terms;
      expect(terms.map((t) => t.equal.subsidized)).toEqual(
        example('FSA-1').expected.terms.map((t) => t.equal.subsidized),
      );
    } finally {
      await deployment.close();
    }
  });
});
