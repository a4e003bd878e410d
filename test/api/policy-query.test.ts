/**
 * A file's school policy as query parameters (rules.md §10) on both file doors: POST /v1/calculate/bulk and
 * POST /v1/jobs. An unknown option, a value outside the table or a repeated parameter is a 400 validation_error
 * in the documented envelope naming the parameter, answered before any row is read (the body here has a header
 * that would be a 400 of its own, and rows that would be computed); a good one is accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryPolicyChoices } from '../../src/api/policy-query.ts';
import { startService, testConfig, type RunningService } from '../queue/helpers.ts';

let service: RunningService;

beforeAll(async () => {
  service = await startService(testConfig({}));
});
afterAll(async () => {
  await service?.close();
});

const BAD_HEADER_BODY = 'not,a,bulk,header\n1,2,3,4\n';

async function post(path: string, query: string, body = BAD_HEADER_BODY) {
  const res = await fetch(`${service.base}${path}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body,
  });
  return { status: res.status, body: (await res.json()) as { code: string; message: string; field_errors?: unknown } };
}

describe.each(['/v1/calculate/bulk', '/v1/jobs'])('%s ?policy.<option>=<value>', (path) => {
  it('a value outside the table: 400 naming the parameter and listing the allowed values, before any row', async () => {
    const { status, body } = await post(path, '?policy.proration_fraction=rounded');
    expect(status).toBe(400);
    expect(body).toEqual({
      code: 'validation_error',
      message: 'The parameter policy.proration_fraction must be one of: exact, decimal_rounded, decimal_truncated.',
      field_errors: [
        {
          field: 'policy.proration_fraction',
          message: 'must be one of: exact, decimal_rounded, decimal_truncated (got "rounded")',
        },
      ],
    });
  });

  it('an unknown option: 400 naming it and listing the policy parameters', async () => {
    const { status, body } = await post(path, '?policy.rounding=exact');
    expect(status).toBe(400);
    expect(body.code).toBe('validation_error');
    expect(body.message).toMatch(/^The parameter "policy\.rounding" must be one of: policy\.proration_fraction, /);
    expect(body.field_errors).toEqual([
      { field: 'policy.rounding', message: expect.stringMatching(/is not a school-policy parameter/) },
    ]);
  });

  it('a repeated parameter: 400, even with the same value twice', async () => {
    const { status, body } = await post(
      path,
      '?policy.remainder_placement=last_term&policy.remainder_placement=last_term',
    );
    expect(status).toBe(400);
    expect(body.field_errors).toEqual([
      {
        field: 'policy.remainder_placement',
        message: 'is given more than once; give it once, one of: largest_remainder, last_term',
      },
    ]);
  });

  it('every bad parameter is listed; the message names the first', async () => {
    const { status, body } = await post(path, '?policy.grad_plus_gap=never&policy.single_term_basis=half');
    expect(status).toBe(400);
    expect((body.field_errors as { field: string }[]).map((f) => f.field)).toEqual([
      'policy.grad_plus_gap',
      'policy.single_term_basis',
    ]);
  });

  it('good parameters pass on to the file (here: its header is the next problem)', async () => {
    const { status, body } = await post(
      path,
      '?policy.proration_fraction=decimal_truncated&policy.grad_plus_gap=before_reduction',
    );
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toMatch(/not a column of the bulk CSV layout/);
  });
});

describe('queryPolicyChoices', () => {
  it('reads only policy.* parameters; none gives no options', () => {
    expect(queryPolicyChoices({ query: {} })).toEqual({});
    expect(queryPolicyChoices({ query: { delimiter: 'tab', policy: 'x' } })).toEqual({});
    expect(
      queryPolicyChoices({
        query: { 'policy.below_half_time_credits': 'excluded', 'policy.single_term_basis': 'half_annual' },
      }),
    ).toEqual({ below_half_time_credits: 'excluded', single_term_basis: 'half_annual' });
  });
});
