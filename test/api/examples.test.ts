/**
 * Every worked example of shared/spec/examples.json through the real HTTP server: valid ones return 200 with
 * every published figure; invalid ones return 422 validation_error naming every listed path.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_EXAMPLES, WORKED_EXAMPLES, EXAMPLES_ABOUT } from '../../src/api/openapi/worked-examples.ts';
import { CalculationResultSchema, FieldValidationErrorBodySchema } from '../../src/schema/response.ts';
import { fieldPaths, postJson, startTestServer, type TestServer } from './helpers.ts';
import { SPEC_EXAMPLES_FILE } from '../support/spec.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.close());

describe('worked examples', () => {
  // The service ships its own copy (it must not read the spec folder at run time); where the spec folder is
  // present this proves the copy has not drifted.
  it.runIf(SPEC_EXAMPLES_FILE !== undefined)(
    'the copy in src/api/openapi/worked-examples.json is the spec file, verbatim',
    () => {
      const specText = readFileSync(SPEC_EXAMPLES_FILE!, 'utf8');
      const spec = JSON.parse(specText) as Record<string, unknown>;
      expect({ about: EXAMPLES_ABOUT, examples: WORKED_EXAMPLES, invalid: INVALID_EXAMPLES }).toEqual(spec);
      // Byte for byte too (the copy is left out of prettier so it stays the published file).
      const copy = readFileSync(new URL('../../src/api/openapi/worked-examples.json', import.meta.url), 'utf8');
      expect(copy === specText).toBe(true);
    },
  );

  it('has the 21 worked and 8 invalid examples of rules 2026-27.3', () => {
    expect(WORKED_EXAMPLES).toHaveLength(21);
    expect(INVALID_EXAMPLES).toHaveLength(8);
  });

  it.each(WORKED_EXAMPLES.map((e) => [e.id, e] as const))(
    '%s returns 200 with every expected figure',
    async (_id, ex) => {
      const res = await postJson(srv.base, ex.request);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      // Every field of the interface is present with the right type (strict: no extra fields).
      const parsed = CalculationResultSchema.safeParse(res.json);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      // Every published figure, term by term (free-text fields are the implementation's wording).
      expect(res.json).toMatchObject(ex.expected);
      const body = res.json as { terms: unknown[] };
      expect(body.terms).toHaveLength(ex.expected.terms.length);
    },
  );

  it.each(INVALID_EXAMPLES.map((e) => [e.id, e] as const))(
    '%s is rejected with 422 validation_error naming every listed path',
    async (_id, ex) => {
      const res = await postJson(srv.base, ex.request);
      expect(res.status).toBe(ex.expected_status);
      expect(res.status).toBe(422);
      const parsed = FieldValidationErrorBodySchema.safeParse(res.json);
      expect(parsed.success, res.text).toBe(true);
      expect((res.json as { code: string }).code).toBe(ex.expected_code);
      expect(fieldPaths(res.json)).toEqual(expect.arrayContaining(ex.expected_field_paths));
    },
  );

  it('INV-21 (5 terms, academic_year_terms 4) gives exactly one error, at terms', async () => {
    const ex = INVALID_EXAMPLES.find((e) => e.id === 'INV-21');
    const res = await postJson(srv.base, ex?.request);
    expect(fieldPaths(res.json)).toEqual(['terms']);
  });
});
