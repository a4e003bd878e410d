/**
 * Every worked example of shared/spec/examples.json: the request goes through calculate() and every field
 * listed in `expected` must match exactly. The free-text fields (warnings, warning, adjustment_explanation)
 * are not in `expected`; the example file leaves their wording to the implementation.
 *
 * The examples come from src/api/openapi/worked-examples.json, the service's one verbatim copy of the spec file (test/api
 * proves it equals shared/spec/examples.json wherever the spec folder is beside the checkout).
 */

import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { type WireRequest, toInput } from './support/input.ts';

/** The same shape as `expected`, with the values taken from `actual` (missing fields stay missing). */
function pickLike(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return actual;
    // Keep extra or missing elements visible: compare lengths through the picked array itself.
    return actual.map((item, i) => (i < expected.length ? pickLike(item, expected[i]) : item));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return actual;
    const source = actual as Record<string, unknown>;
    const picked: Record<string, unknown> = {};
    for (const key of Object.keys(expected))
      if (key in source) picked[key] = pickLike(source[key], (expected as Record<string, unknown>)[key]);
    return picked;
  }
  return actual;
}

describe('examples.json', () => {
  it('holds the 21 published and constructed examples', () => {
    expect(WORKED_EXAMPLES.length).toBe(21);
  });

  for (const example of WORKED_EXAMPLES) {
    it(`${example.id}: ${example.description.slice(0, 80)}`, () => {
      const result = calculate(toInput(example.request as WireRequest));
      expect(pickLike(result, example.expected)).toEqual(example.expected);
      // Free-text fields are present with the right types even though their wording is not fixed.
      expect(Array.isArray(result.warnings)).toBe(true);
      for (const term of result.terms) {
        expect(typeof term.warning).toBe('string');
        expect(typeof term.adjustment_explanation).toBe('string');
        expect(term.adjustment_explanation === '').toBe(term.adjustment_source_index === null);
      }
    });
  }
});
