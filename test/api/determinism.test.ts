/**
 * rules.md §1 and the interface's determinism: a JSON number and the same value as a decimal string give
 * byte-identical responses, and the same request always gives the same bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { postJson, startTestServer, type TestServer } from './helpers.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.close());

const NUMERIC_FIELDS = new Set([
  'cost_of_attendance',
  'subsidized_amount',
  'total_limit',
  'full_time_credits',
  'credits_enrolled',
  'actual_final_credits',
  'prior_disbursement_sub',
  'prior_disbursement_unsub',
  'prior_disbursement_grad_plus',
]);

/** Re-encodes every credit and money number with `encode` (academic_year_terms stays an integer). */
function reencode(request: unknown, encode: (n: number) => string): string {
  return JSON.stringify(request, (key, value: unknown) =>
    typeof value === 'number' && NUMERIC_FIELDS.has(key) ? encode(value) : value,
  );
}

describe('number and decimal string inputs', () => {
  it.each(WORKED_EXAMPLES.map((e) => [e.id, e] as const))('%s: byte-identical responses', async (_id, ex) => {
    const asNumbers = await postJson(srv.base, ex.request);
    expect(asNumbers.status).toBe(200);
    const variants = [
      reencode(ex.request, (n) => String(n)),
      reencode(ex.request, (n) => `+${n}${Number.isInteger(n) ? '.000000' : '0000'}`),
      reencode(ex.request, (n) => `00${n}`),
    ];
    for (const v of variants) {
      const asStrings = await postJson(srv.base, v);
      expect(asStrings.status, v).toBe(200);
      expect(asStrings.text).toBe(asNumbers.text);
    }
  });

  it('fractional credits: 10.5, "10.5", "10.50" and "+010.500000" agree', async () => {
    const ex = WORKED_EXAMPLES.find((e) => e.id === 'DER-FRAC');
    expect(ex).toBeDefined();
    const texts = new Set<string>();
    for (const v of [10.5, '10.5', '10.50', '+010.500000']) {
      const r = JSON.parse(JSON.stringify(ex?.request)) as { terms: { credits_enrolled: unknown }[] };
      for (const t of r.terms) t.credits_enrolled = v;
      const res = await postJson(srv.base, r);
      expect(res.status).toBe(200);
      texts.add(res.text);
    }
    expect(texts.size).toBe(1);
  });
});

describe('same request, same bytes', () => {
  it.each(WORKED_EXAMPLES.map((e) => [e.id, e] as const))('%s repeated 5 times', async (_id, ex) => {
    const texts = new Set<string>();
    for (let i = 0; i < 5; i++) texts.add((await postJson(srv.base, ex.request)).text);
    expect(texts.size).toBe(1);
  });

  it('key order of the request does not change the answer', async () => {
    const ex = WORKED_EXAMPLES[3]!;
    const reversed = Object.fromEntries(Object.entries(ex.request).reverse());
    const a = await postJson(srv.base, ex.request);
    const b = await postJson(srv.base, reversed);
    expect(b.text).toBe(a.text);
  });

  it('validation errors are deterministic too', async () => {
    const bad = { dependency_status: 'x', terms: [{ label: 1 }], plus_denid: true };
    const a = await postJson(srv.base, bad);
    const b = await postJson(srv.base, bad);
    expect(a.status).toBe(422);
    expect(b.text).toBe(a.text);
  });
});
