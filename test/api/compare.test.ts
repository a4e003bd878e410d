/**
 * POST /v1/calculate/compare through the real HTTP server: the figures of FSA example 1 with Spring at 6 credits
 * (worked out by hand from rules.md), the answer's shape and headers, the same 400/413/415/422 envelopes as
 * /v1/calculate, 405, the deployment's SOR_POLICY, access control and rate limits; and, over generated students
 * and scenarios, every scenario's result is exactly what POST /v1/calculate answers for the base request with the
 * changes applied (applied here by the test, not by the service's code).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestListener } from '../../src/api/front-door.ts';
import { loadConfig } from '../../src/config.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { CompareResultSchema } from '../../src/schema/compare.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import type { CalculationInput } from '../../src/domain/types.ts';
import { inputArb } from '../domain/support/arbitraries.ts';
import { bearer, createToken, tokenServiceEnv } from '../auth/helpers.ts';
import { postJson, startTestServer, type TestServer } from './helpers.ts';

const COMPARE = '/v1/calculate/compare';
const fsa1 = () => structuredClone(WORKED_EXAMPLES.find((e) => e.id === 'FSA-1')!.request) as Record<string, unknown>;
const spring6 = { name: 'Drop to 6 credits in Spring', changes: [{ term: 1, credits_enrolled: 6 }] };

interface Reply {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

async function post(base: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${base}${COMPARE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> };
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('POST /v1/calculate/compare', () => {
  it('FSA-1 with Spring at 6 credits: 63% → 50%, $2,205 → $1,750 Sub, $1,260 → $1,000 Unsub', async () => {
    const reply = await post(server.base, { base: fsa1(), scenarios: [spring6] }, { 'x-request-id': 'what-if-1' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('x-rule-set')).toBe('2026-27.3');
    expect(reply.headers.get('x-request-id')).toBe('what-if-1');
    const answer = CompareResultSchema.parse(reply.json);
    expect(answer.rule_set).toBe('2026-27.3');
    expect(answer.policy.proration_fraction).toBe('exact');
    // The base is FSA example 1 as published.
    expect(answer.base).toMatchObject(WORKED_EXAMPLES.find((e) => e.id === 'FSA-1')!.expected);
    const [scenario] = answer.scenarios;
    expect(scenario!.name).toBe('Drop to 6 credits in Spring');
    expect(scenario!.changes).toEqual([{ term: 1, credits_enrolled: 6 }]);
    // (6 + 6) ÷ 24 = 50%: 3,500 × 50% = 1,750 → 875 + 875; 2,000 × 50% = 1,000 → 500 + 500, both options.
    expect(scenario!.result).toMatchObject({
      reduced_annual_pct: 50,
      annual_basic_eligibility_sub: 1750,
      annual_basic_eligibility_unsub: 1000,
      show_both_options: true,
      total_equal: { subsidized: 1750, unsubsidized: 1000, grad_plus: 0 },
    });
    const d = scenario!.differences;
    expect(d.reduced_annual_pct).toEqual({ base: 63, scenario: 50, change: -13 });
    expect(d.annual.subsidized).toEqual({ base: 2205, scenario: 1750, change: -455 });
    expect(d.annual.unsubsidized).toEqual({ base: 1260, scenario: 1000, change: -260 });
    expect(d.terms.map((t) => [t.label, t.equal.subsidized.change, t.proportional.subsidized.change])).toEqual([
      ['Fall', 875 - 1103, 875 - 882],
      ['Spring', 875 - 1102, 875 - 1323],
    ]);
  });

  it('answers the refusals of /v1/calculate with the same envelopes', async () => {
    const url = `${server.base}${COMPARE}`;
    const text = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect([text.status, ((await text.json()) as { code: string }).code]).toEqual([415, 'unsupported_media_type']);
    const gzip = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: '{}',
    });
    expect(gzip.status).toBe(415);
    const big = await post(
      server.base,
      JSON.stringify({ base: fsa1(), scenarios: [spring6], pad: 'x'.repeat(1 << 20) }),
    );
    expect([big.status, big.json.code]).toEqual([413, 'validation_error']);
    expect(big.json.message).toBe('The request body is larger than the limit of 1048576 bytes.');
    const broken = await post(server.base, '{"base":');
    expect([broken.status, broken.json.code]).toEqual([400, 'invalid_json']);
    const list = await post(server.base, '[]');
    expect([list.status, list.json.code]).toEqual([400, 'invalid_json']);
    const invalid = await post(server.base, {
      base: { ...fsa1(), grade_level: undefined },
      scenarios: [
        {
          name: 'Nothing left',
          changes: [
            { term: 0, drop: true },
            { term: 1, drop: true },
          ],
        },
      ],
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('x-rule-set')).toBe('2026-27.3');
    expect(invalid.json).toEqual({
      code: 'validation_error',
      message: 'The request has 1 invalid field.',
      field_errors: [
        {
          field: 'base.grade_level',
          message: 'is required for an undergraduate (one of: first_year, second_year, third_year_and_beyond)',
        },
      ],
    });
    const dropped = await post(server.base, {
      base: fsa1(),
      scenarios: [
        {
          name: 'Nothing left',
          changes: [
            { term: 0, drop: true },
            { term: 1, drop: true },
          ],
        },
      ],
    });
    expect(dropped.status).toBe(422);
    expect(dropped.json.field_errors).toEqual([
      {
        field: 'scenarios[0]',
        message: 'with its changes applied, the request is not valid: terms must contain at least 1 term',
      },
    ]);
  });

  it('other methods are 405 and other spellings 404', async () => {
    const get = await fetch(`${server.base}${COMPARE}`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    const slash = await fetch(`${server.base}${COMPARE}/`, { method: 'POST', body: '{}' });
    expect(slash.status).toBe(404);
  });
});

describe('with a deployment policy (SOR_POLICY)', () => {
  it('the base and every scenario take it, the request’s own policy over it', async () => {
    const service = await startTestServer({ env: { SOR_POLICY: 'remainder_placement=last_term' } });
    try {
      const reply = await post(service.base, { base: fsa1(), scenarios: [spring6] });
      expect(reply.status).toBe(200);
      const answer = CompareResultSchema.parse(reply.json);
      expect(answer.policy.remainder_placement).toBe('last_term');
      // last_term: 2,205 ÷ 2 = 1,102.5 → 1,102 on Fall, the leftover dollar on Spring (1,103).
      expect(answer.base.terms.map((t) => t.equal.subsidized)).toEqual([1102, 1103]);
      const own = await post(service.base, {
        base: { ...fsa1(), policy: { remainder_placement: 'largest_remainder' } },
        scenarios: [spring6],
      });
      expect(CompareResultSchema.parse(own.json).base.terms.map((t) => t.equal.subsidized)).toEqual([1103, 1102]);
    } finally {
      await service.close();
    }
  });
});

/** The whole service with its guards, as src/server.ts serves it. */
async function guardedService(env: Record<string, string>) {
  const config = loadConfig(env);
  const logger = pino({ level: 'silent' });
  const runtime: Runtime = await createRuntime(config, logger);
  const listener = createRequestListener(
    { config, logger, runners: runtime.runners, readiness: runtime.readiness },
    { routers: runtime.routers, guards: runtime.guards },
  );
  const http = await new Promise<Server>((resolve) => {
    const s = createServer(listener).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await runtime.close();
    },
  };
}

describe('access control and rate limits, as on /v1/calculate', () => {
  it('AUTH_MODE=required: 401 without a token, 200 with one', async () => {
    const env = tokenServiceEnv('compare', 'silent', { AUTH_MODE: 'required' });
    const { token } = await createToken(env, 'what-if');
    const service = await guardedService(env);
    try {
      const anonymous = await post(service.base, { base: fsa1(), scenarios: [spring6] });
      expect([anonymous.status, anonymous.json.code]).toEqual([401, 'unauthenticated']);
      const signed = await post(service.base, { base: fsa1(), scenarios: [spring6] }, bearer(token));
      expect(signed.status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it('RATE_LIMIT: one unit per request, then 429 with Retry-After', async () => {
    const env = tokenServiceEnv('compare-rate', 'silent', { AUTH_MODE: 'off', RATE_LIMIT: '2/min' });
    const service = await guardedService(env);
    try {
      const body = { base: fsa1(), scenarios: [spring6, { ...spring6, name: 'again' }] };
      expect((await post(service.base, body)).status).toBe(200);
      const second = await post(service.base, body);
      expect(second.status).toBe(200);
      expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
      const third = await post(service.base, body);
      expect([third.status, third.json.code]).toEqual([429, 'quota_exceeded']);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await service.close();
    }
  });
});

/** A generated domain input as a request body (a null subsidized_amount is sent as no field). */
function requestOf(input: CalculationInput): Record<string, unknown> {
  const { subsidized_amount, ...rest } = input;
  return subsidized_amount === null ? rest : { ...input };
}

const changeArb = fc.oneof(
  fc.record({ pick: fc.nat(), kind: fc.constant('credits_enrolled'), value: fc.integer({ min: 0, max: 2400 }) }),
  fc.record({
    pick: fc.nat(),
    kind: fc.constant('actual_final_credits'),
    value: fc.option(fc.integer({ min: 0, max: 2400 }), { nil: null }),
  }),
  fc.record({ pick: fc.nat(), kind: fc.constant('drop'), value: fc.constant(true) }),
);

describe('every scenario is POST /v1/calculate of its applied request (generated students and scenarios)', () => {
  it('base and scenarios, byte for byte', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(
        inputArb,
        fc.array(fc.array(changeArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        async (input, drafts) => {
          const base = requestOf(input);
          const terms = base.terms as Record<string, unknown>[];
          // One change per term and field; a dropped term takes no other; never every term dropped.
          const scenarios = drafts.map((draft, i) => {
            const seen = new Set<string>();
            const changes: Record<string, unknown>[] = [];
            for (const c of draft) {
              const term = c.pick % terms.length;
              if (seen.has(`${term}:drop`) || seen.has(`${term}:${c.kind}`)) continue;
              if (
                c.kind === 'drop' &&
                (seen.has(`${term}:credits_enrolled`) || seen.has(`${term}:actual_final_credits`))
              )
                continue;
              if (c.kind === 'drop' && [...seen].filter((k) => k.endsWith(':drop')).length === terms.length - 1)
                continue;
              seen.add(`${term}:${c.kind}`);
              const value = typeof c.value === 'number' ? (c.value / 100).toString() : c.value;
              changes.push({ term, [c.kind]: c.kind === 'credits_enrolled' ? Number(value) : value });
            }
            return { name: `Scenario ${i + 1}`, changes: changes.length > 0 ? changes : [{ term: 0, drop: false }] };
          });
          const usable = scenarios.filter((s) => !s.changes.some((c) => c.drop === false));
          if (usable.length === 0) return;
          const reply = await post(server.base, { base, scenarios: usable });
          expect(reply.status, JSON.stringify(reply.json)).toBe(200);
          const answer = reply.json as { base: unknown; scenarios: { result: unknown }[] };
          const alone = await postJson(server.base, base);
          expect(JSON.stringify(answer.base)).toBe(alone.text);
          for (const [i, scenario] of usable.entries()) {
            const applied = terms
              .map((t, j) => {
                let term: Record<string, unknown> | null = { ...t };
                for (const c of scenario.changes.filter((c) => c.term === j)) {
                  if ('drop' in c) term = null;
                  else for (const [key, value] of Object.entries(c)) if (key !== 'term') term![key] = value;
                }
                return term;
              })
              .filter((t) => t !== null);
            const single = await postJson(server.base, { ...base, terms: applied });
            expect(single.status).toBe(200);
            expect(JSON.stringify(answer.scenarios[i]!.result)).toBe(single.text);
            compared++;
          }
        },
      ),
      { numRuns: 60 },
    );
    expect(compared).toBeGreaterThan(60);
  });
});
