/**
 * compare_scenarios through the SDK's Client (in memory): FSA example 1 with Spring dropped to 6 credits is the
 * published 6 + 6 of 24 student (SCH-APUS-1: 50%), side by side with the differences; the answer is POST
 * /v1/calculate/compare's; a base missing an input answers needs_input under `base.`; a bad scenario is the API's
 * 422 envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareScenarios } from '../../src/domain/compare.ts';
import { parseCompareRequest } from '../../src/schema/compare.ts';
import { AppError, errorEnvelope } from '../../src/errors.ts';
import { call, example, figuresOf, inProcess, type InProcess } from './helpers.ts';

let mcp: InProcess;
beforeAll(async () => {
  mcp = await inProcess();
});
afterAll(() => mcp.close());

const DROP_TO_SIX = { name: 'Drop to 6 credits in Spring', changes: [{ term: 1, credits_enrolled: 6 }] };

interface Scenario {
  name: string;
  result: unknown;
  differences: {
    reduced_annual_pct: unknown;
    annual: Record<string, unknown>;
    terms: { dropped: boolean; equal: Record<string, { scenario: number }> }[];
  };
}

describe('compare_scenarios', () => {
  it('FSA-1 with Spring at 6 credits is the published 6 + 6 of 24 student, with every difference', async () => {
    const base = example('FSA-1');
    const sixSix = example('SCH-APUS-1'); // the same student, 6 + 6 of 24, its terms named Term 1 and Term 2
    const reply = await call(mcp.client, 'compare_scenarios', { base: base.request, scenarios: [DROP_TO_SIX] });
    expect(reply.structured.status).toBe('ok');
    expect(figuresOf(reply.structured.base)).toEqual(base.expected);
    const [scenario] = reply.structured.scenarios as Scenario[];
    expect(scenario!.name).toBe(DROP_TO_SIX.name);
    const labels = base.expected.terms.map((t) => t.label);
    expect(figuresOf(scenario!.result)).toEqual({
      ...sixSix.expected,
      terms: sixSix.expected.terms.map((t, i) => ({ ...t, label: labels[i] })),
    });
    const d = scenario!.differences;
    const change = (b: number, s: number) => ({ base: b, scenario: s, change: s - b });
    expect(d.reduced_annual_pct).toEqual(change(base.expected.reduced_annual_pct, sixSix.expected.reduced_annual_pct));
    expect(d.annual.subsidized).toEqual(
      change(base.expected.annual_basic_eligibility_sub, sixSix.expected.annual_basic_eligibility_sub),
    );
    expect(d.annual.unsubsidized).toEqual(
      change(base.expected.annual_basic_eligibility_unsub, sixSix.expected.annual_basic_eligibility_unsub),
    );
  });

  it('is POST /v1/calculate/compare’s answer, a dropped term included', async () => {
    const body = {
      base: example('FSA-1').request,
      scenarios: [DROP_TO_SIX, { name: 'No spring', changes: [{ term: 1, drop: true }] }],
    };
    const reply = await call(mcp.client, 'compare_scenarios', body);
    const parsed = parseCompareRequest(body);
    if (!parsed.ok) throw new Error('the comparison does not parse');
    const { base, scenarios } = compareScenarios(parsed.value);
    expect(reply.structured.base).toEqual(base);
    expect(reply.structured.scenarios).toEqual(scenarios);
    const dropped = (reply.structured.scenarios as Scenario[])[1]!.differences.terms[1]!;
    expect(dropped.dropped).toBe(true);
    expect(dropped.equal.subsidized!.scenario).toBe(0);
  });

  it('a base without dependency status answers needs_input under base.', async () => {
    const { dependency_status: _d, ...request } = example('FSA-1').request;
    const reply = await call(mcp.client, 'compare_scenarios', { base: request, scenarios: [DROP_TO_SIX] });
    expect(reply.isError).toBe(false);
    expect(reply.structured.status).toBe('needs_input');
    expect(reply.structured.missing).toMatchObject([
      { field: 'base.dependency_status', text: 'Dependency status is required (one of: dependent, independent).' },
    ]);
  });

  it('a scenario that names no term of the base is the API’s 422 envelope, as a tool error', async () => {
    const body = {
      base: example('FSA-1').request,
      scenarios: [{ name: 'Summer', changes: [{ term: 2, credits_enrolled: 6 }] }],
    };
    const reply = await call(mcp.client, 'compare_scenarios', body);
    expect(reply.isError).toBe(true);
    const api = parseCompareRequest(body);
    if (api.ok) throw new Error('the comparison parses');
    const { status: _status, ...envelope } = reply.structured;
    expect(envelope).toEqual(errorEnvelope(AppError.validation(api.fieldErrors)));
    expect(envelope.field_errors).toMatchObject([{ field: 'scenarios[0].changes[0].term' }]);
  });
});
