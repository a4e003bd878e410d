/**
 * Every worked example of shared/spec/examples.json: the request goes through calculate() and every field
 * listed in `expected` must match exactly. The free-text fields (warnings, warning, adjustment_explanation)
 * are not in `expected`; the example file leaves their wording to the implementation.
 *
 * fixtures/examples.json is a copy of the spec file (reformatted by prettier only) so the suite runs where the
 * spec folder is not mounted; where it is, the copy is checked to hold exactly the same data.
 */

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { type WireRequest, toInput } from './support/input.ts';

interface Example {
  id: string;
  description: string;
  request: WireRequest;
  expected: Record<string, unknown>;
}

const FIXTURE = new URL('./fixtures/examples.json', import.meta.url);
const SPEC_FILE = '/work/shared/spec/examples.json';

const spec = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { examples: Example[] };

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
  it('holds the 15 published and constructed examples', () => {
    expect(spec.examples.length).toBe(15);
  });

  it.runIf(existsSync(SPEC_FILE))('fixture copy holds exactly the data of the spec file', () => {
    expect(spec).toEqual(JSON.parse(readFileSync(SPEC_FILE, 'utf8')));
  });

  for (const example of spec.examples) {
    it(`${example.id}: ${example.description.slice(0, 80)}`, () => {
      const result = calculate(toInput(example.request));
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
