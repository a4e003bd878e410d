/**
 * The comparison's place in the OpenAPI document: its statuses, its worked examples (FSA example 1 with Spring at
 * 6 credits; FSA example 4 before and after Fall's final credits) and their stored answers, which must be exactly
 * what the service answers, and whose figures are the published ones and those worked out from the rules.
 */
import { describe, expect, it } from 'vitest';
import { comparisonJson } from '../../../src/api/compare-route.ts';
import { COMPARE_EXAMPLES, compareExampleAnswer } from '../../../src/api/openapi/compare-examples.ts';
import { buildOpenApiDocument } from '../../../src/api/openapi/document.ts';
import { WORKED_EXAMPLES } from '../../../src/api/openapi/worked-examples.ts';
import { CompareResultSchema } from '../../../src/schema/compare.ts';

interface Operation {
  responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: unknown }> }> }>;
  requestBody: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
}
const doc = buildOpenApiDocument() as unknown as { paths: Record<string, { post: Operation }> };
const compare = doc.paths['/v1/calculate/compare']!.post;

describe('POST /v1/calculate/compare in the OpenAPI document', () => {
  it('has the statuses of /v1/calculate', () => {
    expect(Object.keys(compare.responses).sort()).toEqual(['200', '400', '413', '415', '422', '500']);
  });

  it('carries each worked example as a request and its answer', () => {
    const requests = compare.requestBody.content['application/json']!.examples!;
    const answers = compare.responses['200']!.content!['application/json']!.examples!;
    expect(Object.keys(requests)).toEqual(['FSA-1-spring-6-credits', 'FSA-4-fall-final-credits']);
    for (const example of COMPARE_EXAMPLES) {
      expect(requests[example.id]!.value).toEqual(example.request);
      expect(answers[example.id]!.value).toEqual(compareExampleAnswer(example.id));
    }
  });

  it.each(COMPARE_EXAMPLES.map((e) => [e.id, e] as const))('%s: the stored answer is the service’s', (id, example) => {
    // Byte-identical, key order included: the example is what a client receives.
    expect(JSON.stringify(compareExampleAnswer(id))).toBe(comparisonJson(example.request as never));
    expect(CompareResultSchema.safeParse(compareExampleAnswer(id)).success).toBe(true);
  });

  it('FSA-1 with Spring at 6 credits: the published base, and 12 ÷ 24 = 50% → $1,750 / $1,000', () => {
    const answer = CompareResultSchema.parse(compareExampleAnswer('FSA-1-spring-6-credits'));
    expect(answer.base).toMatchObject(WORKED_EXAMPLES.find((e) => e.id === 'FSA-1')!.expected);
    const { differences } = answer.scenarios[0]!;
    expect(differences.reduced_annual_pct).toEqual({ base: 63, scenario: 50, change: -13 });
    expect(differences.annual.subsidized).toEqual({ base: 2205, scenario: 1750, change: -455 });
    expect(differences.annual.unsubsidized).toEqual({ base: 1260, scenario: 1000, change: -260 });
  });

  it('FSA-4: the base is the published baseline (92%, $669 + $669), the scenario is the published example', () => {
    const answer = CompareResultSchema.parse(compareExampleAnswer('FSA-4-fall-final-credits'));
    expect(answer.base.reduced_annual_pct).toBe(92);
    expect(answer.base.annual_basic_eligibility_sub).toBe(1840);
    expect(answer.base.terms.map((t) => t.equal.subsidized)).toEqual([502, 669, 669]);
    expect(answer.scenarios[0]!.result).toMatchObject(WORKED_EXAMPLES.find((e) => e.id === 'FSA-4')!.expected);
    expect(answer.scenarios[0]!.differences.terms.map((t) => t.equal.subsidized.change)).toEqual([0, -90, -90]);
  });
});
