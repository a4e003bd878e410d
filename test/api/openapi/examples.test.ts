/**
 * The OpenAPI response examples are stored data (published figures from worked-examples.json, the free-text
 * fields from example-texts.json), not computed at start-up: this runs the engine on every example request and
 * requires the stored example to be exactly its answer, so a change of the engine's figures or wording fails
 * here until the stored texts are updated.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_TEXTS, exampleResponse } from '../../../src/api/openapi/examples.ts';
import { WORKED_EXAMPLES } from '../../../src/api/openapi/worked-examples.ts';
import { calculate } from '../../../src/domain/calculate.ts';
import { parseCalculationRequest } from '../../../src/schema/request.ts';

describe('stored OpenAPI response examples', () => {
  it('hold texts for exactly the worked examples', () => {
    expect(Object.keys(EXAMPLE_TEXTS).sort()).toEqual(WORKED_EXAMPLES.map((e) => e.id).sort());
    expect(WORKED_EXAMPLES).toHaveLength(21); // examples.json of rules 2026-27.3
  });

  it.each(WORKED_EXAMPLES.map((e) => [e.id, e] as const))('%s: the engine answers the stored example', (_id, ex) => {
    const parsed = parseCalculationRequest(ex.request);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    // Byte-identical, key order included: the example is what a client receives.
    expect(JSON.stringify(exampleResponse(ex))).toBe(JSON.stringify(calculate(parsed.value)));
  });

  it('a stored text that differs from the engine is caught', () => {
    const ex = WORKED_EXAMPLES.find((e) => EXAMPLE_TEXTS[e.id]!.warnings.length > 0)!;
    const parsed = parseCalculationRequest(ex.request);
    if (!parsed.ok) throw new Error('worked example does not parse');
    const stored = exampleResponse(ex);
    const altered = { ...stored, warnings: stored.warnings.map((w) => `${w} `) };
    expect(JSON.stringify(altered)).not.toBe(JSON.stringify(calculate(parsed.value)));
  });

  it('a worked example without stored texts stops the document from being built', () => {
    const ex = WORKED_EXAMPLES[0]!;
    expect(() => exampleResponse({ ...ex, id: 'NOT-STORED' })).toThrow(/no texts for worked example NOT-STORED/);
    const oneTermShort = { ...ex, expected: { ...ex.expected, terms: [...ex.expected.terms, ex.expected.terms[0]!] } };
    expect(() => exampleResponse(oneTermShort)).toThrow(/not one per term/);
  });
});

describe('what the document and the schemas import', () => {
  const SRC = new URL('../../../src/', import.meta.url);
  const importsOf = (dir: string) =>
    readdirSync(new URL(dir, SRC))
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        [...readFileSync(new URL(`${dir}${f}`, SRC), 'utf8').matchAll(/^import[^;]*?from '([^']+)'/gms)].map(
          (m) => `${dir}${f} -> ${m[1]}`,
        ),
      );

  it('nothing under src/api/openapi/ runs the engine', () => {
    const imports = importsOf('api/openapi/');
    expect(imports.length).toBeGreaterThan(10);
    expect(imports.filter((i) => /domain\/calculate|bulk\/runners|bulk\/pipeline/.test(i))).toEqual([]);
  });

  it('src/schema/ imports neither src/bulk/ nor the engine', () => {
    const imports = importsOf('schema/');
    expect(imports.length).toBeGreaterThan(3);
    expect(imports.filter((i) => /-> .*(bulk\/|domain\/calculate)/.test(i))).toEqual([]);
  });
});
