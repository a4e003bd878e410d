/**
 * The worked examples of POST /v1/calculate/compare, built from the published examples (worked-examples.json):
 *   FSA-1, Spring dropped from 9 to 6 credits: (6 + 6) ÷ 24 = 50% instead of 63%;
 *   FSA-4 before Fall's final credits were known (its baseline: 9 credits, 92%), and the scenario where Fall
 *   ends at 6 credits — which is FSA example 4 itself (83%, Spring and Summer 579 instead of 669).
 * Their answers are stored data (compare-examples.json), not computed at start-up: test/api/openapi/compare.test.ts
 * runs the engine on each request and requires the stored answer to be exactly its answer, and checks their
 * figures against the published ones and the rules.
 */
import type { ZodOpenApiExampleObject } from 'zod-openapi';
import type { CalculationRequestInput } from '../../schema/request.ts';
import { WORKED_EXAMPLES } from './worked-examples.ts';
import storedAnswers from './compare-examples.json' with { type: 'json' };

export interface CompareExample {
  id: string;
  summary: string;
  description: string;
  request: {
    base: CalculationRequestInput;
    scenarios: { name: string; changes: Record<string, number | boolean | null>[] }[];
  };
}

function published(id: string): CalculationRequestInput {
  const example = WORKED_EXAMPLES.find((e) => e.id === id);
  if (example === undefined) throw new Error(`worked example ${id} is missing`);
  return structuredClone(example.request);
}

/** FSA example 4 as it stood before Fall's final credits were known (the example's own baseline). */
function fsa4BeforeFinalCredits(): CalculationRequestInput {
  const request = published('FSA-4');
  return { ...request, terms: request.terms.map((t, i) => (i === 0 ? { ...t, actual_final_credits: null } : t)) };
}

export const COMPARE_EXAMPLES: readonly CompareExample[] = [
  {
    id: 'FSA-1-spring-6-credits',
    summary: 'FSA-1: what if Spring drops from 9 to 6 credits?',
    description:
      'FSA example 1 (Fall 6 and Spring 9 of 12: 15 ÷ 24 = 62.5% → 63%, $2,205 Sub / $1,260 Unsub) as the base; ' +
      'the scenario drops Spring to 6 credits: 12 ÷ 24 = 50% → $1,750 Sub / $1,000 Unsub, $875 + $875 and $500 + ' +
      '$500 under both options.',
    request: {
      base: published('FSA-1'),
      scenarios: [{ name: 'Drop to 6 credits in Spring', changes: [{ term: 1, credits_enrolled: 6 }] }],
    },
  },
  {
    id: 'FSA-4-fall-final-credits',
    summary: 'FSA-4: what if Fall ends at 6 credits after $502 was paid?',
    description:
      'The base is FSA example 4 before Fall’s final credits are known (9 of 12 enrolled, $502 paid: 33 ÷ 36 = ' +
      '92% → $1,840; $1,840 − $502 = $1,338 → $669 + $669); the scenario gives Fall 6 final credits, which is FSA ' +
      'example 4 itself: 30 ÷ 36 = 83% → $1,660; $1,660 − $502 = $1,158 → $579 + $579, −$90 on Spring and Summer.',
    request: {
      base: fsa4BeforeFinalCredits(),
      scenarios: [{ name: 'Fall ends at 6 credits', changes: [{ term: 0, actual_final_credits: 6 }] }],
    },
  },
];

const ANSWERS: Readonly<Record<string, unknown>> = storedAnswers;

/** The stored answer of an example; a missing one stops the document from being built. */
export function compareExampleAnswer(id: string): unknown {
  const answer = ANSWERS[id];
  if (answer === undefined) throw new Error(`compare-examples.json has no answer for ${id}`);
  return answer;
}

export function compareRequestExamples(): Record<string, ZodOpenApiExampleObject> {
  return Object.fromEntries(
    COMPARE_EXAMPLES.map((e) => [e.id, { summary: e.summary, description: e.description, value: e.request }]),
  );
}

export function compareResponseExamples(): Record<string, ZodOpenApiExampleObject> {
  return Object.fromEntries(
    COMPARE_EXAMPLES.map((e) => [e.id, { summary: e.summary, value: compareExampleAnswer(e.id) }]),
  );
}
