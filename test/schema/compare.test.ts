/**
 * parseCompareRequest (src/schema/compare.ts): every 422 path of a comparison, the limits (5 scenarios, names of
 * 1–60 characters, distinct; changes of one kind each), a scenario whose changed request is not valid, every
 * problem reported together; a valid comparison's scenarios are exactly the requests POST /v1/calculate would
 * parse; and the documented CompareRequest schema never refuses what the parser accepts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, resolvePolicy } from '../../src/domain/policy.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import {
  CompareRequestSchema,
  MAX_CHANGES,
  MAX_SCENARIOS,
  MAX_SCENARIO_NAME_LENGTH,
  parseCompareRequest,
} from '../../src/schema/compare.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';

const fsa1 = () => structuredClone(WORKED_EXAMPLES.find((e) => e.id === 'FSA-1')!.request) as Record<string, unknown>;
const spring6 = { name: 'Drop to 6 credits in Spring', changes: [{ term: 1, credits_enrolled: 6 }] };

function errorsOf(body: unknown): { field: string; message: string }[] {
  const parsed = parseCompareRequest(body);
  if (parsed.ok) throw new Error('expected a refusal');
  return parsed.fieldErrors;
}

const fieldsOf = (body: unknown) => errorsOf(body).map((e) => e.field);

/** The one error of a comparison whose only problem is `scenario`. */
function scenarioError(scenario: unknown): { field: string; message: string } {
  const errors = errorsOf({ base: fsa1(), scenarios: [scenario] });
  expect(errors).toHaveLength(1);
  return errors[0]!;
}

describe('a valid comparison', () => {
  it('gives the base and each scenario as the requests POST /v1/calculate would parse', () => {
    const base = fsa1();
    const parsed = parseCompareRequest({
      base,
      scenarios: [
        spring6,
        { name: 'Fall ends at "7.50"', changes: [{ term: 0, actual_final_credits: '7.50' }] },
        { name: 'No Fall', changes: [{ term: 0, drop: true }] },
      ],
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { value } = parsed;
    const terms = base.terms as Record<string, unknown>[];
    const request = (changed: Record<string, unknown>[]) => {
      const r = parseCalculationRequest({ ...base, terms: changed });
      if (!r.ok) throw new Error('the test’s request must be valid');
      return r.value;
    };
    expect(value.base).toEqual(request(terms));
    expect(value.scenarios.map((s) => s.name)).toEqual([
      'Drop to 6 credits in Spring',
      'Fall ends at "7.50"',
      'No Fall',
    ]);
    // Changes are canonical (decimal strings as the domain takes them).
    expect(value.scenarios.map((s) => s.changes)).toEqual([
      [{ term: 1, credits_enrolled: '6' }],
      [{ term: 0, actual_final_credits: '7.5' }],
      [{ term: 0, drop: true }],
    ]);
    expect(value.scenarios[0]!.input).toEqual(request([terms[0]!, { ...terms[1]!, credits_enrolled: 6 }]));
    expect(value.scenarios[1]!.input).toEqual(request([{ ...terms[0]!, actual_final_credits: '7.50' }, terms[1]!]));
    expect(value.scenarios[2]!.input).toEqual(request([terms[1]!]));
  });

  it('a term’s credits and its final credits may change together; null takes final credits away', () => {
    const parsed = parseCompareRequest({
      base: fsa1(),
      scenarios: [
        {
          name: 'both',
          changes: [
            { term: 0, credits_enrolled: 9 },
            { term: 0, actual_final_credits: null },
            { term: 1, actual_final_credits: 3 },
          ],
        },
      ],
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const terms = parsed.value.scenarios[0]!.input.terms;
    expect(terms.map((t) => [t.credits_enrolled, t.actual_final_credits])).toEqual([
      ['9', null],
      ['9', '3'],
    ]);
  });

  it('the base’s policy, else the deployment’s default, holds for the base and every scenario', () => {
    const deployment = resolvePolicy({ remainder_placement: 'last_term' });
    const base = { ...fsa1(), policy: { proration_fraction: 'decimal_rounded' } };
    const parsed = parseCompareRequest({ base, scenarios: [spring6] }, { policy: deployment });
    if (!parsed.ok) throw new Error('expected a valid comparison');
    const expected = resolvePolicy({ proration_fraction: 'decimal_rounded' }, deployment);
    expect(parsed.value.base.policy).toEqual(expected);
    expect(parsed.value.scenarios[0]!.input.policy).toEqual(expected);
    const plain = parseCompareRequest({ base: fsa1(), scenarios: [spring6] });
    if (!plain.ok) throw new Error('expected a valid comparison');
    expect(plain.value.scenarios[0]!.input.policy).toEqual(DEFAULT_POLICY);
  });

  it(`takes up to ${MAX_SCENARIOS} scenarios and names of ${MAX_SCENARIO_NAME_LENGTH} characters (emoji count once)`, () => {
    const scenarios = Array.from({ length: MAX_SCENARIOS }, (_, i) => ({
      name: i === 0 ? '📉'.repeat(MAX_SCENARIO_NAME_LENGTH) : `Scenario ${i}`,
      changes: [{ term: i % 2, credits_enrolled: i }],
    }));
    expect(parseCompareRequest({ base: fsa1(), scenarios }).ok).toBe(true);
  });
});

describe('every refusal names its field', () => {
  it('the body and its two keys', () => {
    expect(errorsOf([])).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
    expect(errorsOf({})).toEqual([
      { field: 'base', message: 'is required' },
      { field: 'scenarios', message: 'is required' },
    ]);
    expect(fieldsOf({ base: fsa1(), scenarios: [spring6], scenario: [] })).toEqual(['scenario']);
    expect(fieldsOf({ base: fsa1(), scenarios: [spring6], __proto__x: 1 })).toEqual(['__proto__x']);
  });

  it('the base’s own errors, under base.', () => {
    const base = fsa1();
    (base.terms as Record<string, unknown>[])[1]!.credits_enrolled = -3;
    base.plus_denid = true;
    expect(fieldsOf({ base, scenarios: [spring6] }).sort()).toEqual([
      'base.plus_denid',
      'base.terms[1].credits_enrolled',
    ]);
    expect(errorsOf({ base: 'x', scenarios: [spring6] })).toEqual([
      { field: 'base', message: 'must be a JSON object' },
    ]);
    const tooMany = { ...fsa1(), academic_year_terms: null, terms: Array(5).fill(fsa1().terms) };
    expect(fieldsOf({ base: tooMany, scenarios: [spring6] })).toContain('base.terms');
  });

  it('the list of scenarios: missing, not a list, empty, more than 5', () => {
    expect(fieldsOf({ base: fsa1() })).toEqual(['scenarios']);
    expect(errorsOf({ base: fsa1(), scenarios: spring6 })[0]!.message).toBe('must be an array of 1 to 5 scenarios');
    expect(errorsOf({ base: fsa1(), scenarios: [] })).toEqual([
      { field: 'scenarios', message: 'must contain at least 1 scenario' },
    ]);
    const six = Array.from({ length: 6 }, (_, i) => ({ ...spring6, name: `S${i}` }));
    expect(errorsOf({ base: fsa1(), scenarios: six })).toEqual([
      { field: 'scenarios', message: 'must contain at most 5 scenarios (got 6)' },
    ]);
  });

  it('a scenario: not an object, unknown key, no changes', () => {
    expect(scenarioError('Drop Spring').field).toBe('scenarios[0]');
    expect(scenarioError({ ...spring6, notes: 'x' }).field).toBe('scenarios[0].notes');
    expect(scenarioError({ name: 'x' })).toEqual({ field: 'scenarios[0].changes', message: 'is required' });
    expect(scenarioError({ name: 'x', changes: {} }).field).toBe('scenarios[0].changes');
    expect(scenarioError({ name: 'x', changes: [] })).toEqual({
      field: 'scenarios[0].changes',
      message: 'must contain at least 1 change',
    });
    const many = Array.from({ length: MAX_CHANGES + 1 }, () => ({ term: 0, credits_enrolled: 6 }));
    expect(scenarioError({ name: 'x', changes: many })).toEqual({
      field: 'scenarios[0].changes',
      message: `must contain at most ${MAX_CHANGES} changes (got ${MAX_CHANGES + 1})`,
    });
  });

  it.each([
    [undefined, 'is required'],
    [7, 'must be a string of 1 to 60 characters'],
    ['', 'must be a string of 1 to 60 characters (got 0)'],
    ['x'.repeat(61), 'must be a string of 1 to 60 characters (got 61)'],
    ['   ', 'must contain a character other than spaces'],
    ['Spring\n6', 'must not contain control characters (line breaks, tabs…)'],
  ])('a name %j: %s', (name, message) => {
    expect(scenarioError({ ...spring6, name })).toEqual({ field: 'scenarios[0].name', message });
  });

  it('names are distinct: the later one is named', () => {
    expect(errorsOf({ base: fsa1(), scenarios: [spring6, { ...spring6 }] })).toEqual([
      {
        field: 'scenarios[1].name',
        message: "must differ from the other scenarios' names (scenarios[0] has this name)",
      },
    ]);
  });

  it.each([
    ['not an object', 6, 'scenarios[0].changes[0]'],
    ['an unknown key', { term: 1, credits_enrolled: 6, credits: 6 }, 'scenarios[0].changes[0].credits'],
    ['no term', { credits_enrolled: 6 }, 'scenarios[0].changes[0].term'],
    ['a fractional term', { term: 0.5, credits_enrolled: 6 }, 'scenarios[0].changes[0].term'],
    ['a term as a string', { term: '1', credits_enrolled: 6 }, 'scenarios[0].changes[0].term'],
    ['a negative term', { term: -1, credits_enrolled: 6 }, 'scenarios[0].changes[0].term'],
    ['a term the base does not have', { term: 2, credits_enrolled: 6 }, 'scenarios[0].changes[0].term'],
    ['no change at all', { term: 1 }, 'scenarios[0].changes[0]'],
    ['drop: false', { term: 1, drop: false }, 'scenarios[0].changes[0].drop'],
    ['negative credits', { term: 1, credits_enrolled: -1 }, 'scenarios[0].changes[0].credits_enrolled'],
    ['credits with an exponent', { term: 1, credits_enrolled: '1e1' }, 'scenarios[0].changes[0].credits_enrolled'],
    ['null credits_enrolled', { term: 1, credits_enrolled: null }, 'scenarios[0].changes[0].credits_enrolled'],
    ['too many decimals', { term: 1, actual_final_credits: 6.0000001 }, 'scenarios[0].changes[0].actual_final_credits'],
    ['over 1,000 credits', { term: 1, actual_final_credits: '1000.5' }, 'scenarios[0].changes[0].actual_final_credits'],
  ])('a change with %s', (_what, change, field) => {
    expect(scenarioError({ name: 'x', changes: [change] }).field).toBe(field);
  });

  it('a change of the term index says which terms there are', () => {
    expect(scenarioError({ name: 'x', changes: [{ term: 2, drop: true }] }).message).toBe(
      'must be the index of a term of base.terms: a whole number from 0 to 1 (base.terms has 2)',
    );
  });

  it('exactly one kind per change', () => {
    expect(scenarioError({ name: 'x', changes: [{ term: 1, credits_enrolled: 6, drop: true }] })).toEqual({
      field: 'scenarios[0].changes[0]',
      message: 'must have exactly one of credits_enrolled, actual_final_credits, drop (got credits_enrolled and drop)',
    });
    expect(scenarioError({ name: 'x', changes: [{ term: 1 }] }).message).toMatch(/\(got none\)$/);
  });

  it('a field changed twice, or a dropped term changed: the later change is named', () => {
    expect(
      scenarioError({
        name: 'x',
        changes: [
          { term: 1, credits_enrolled: 6 },
          { term: 1, credits_enrolled: 3 },
        ],
      }),
    ).toEqual({
      field: 'scenarios[0].changes[1]',
      message: 'changes credits_enrolled of term 1 again (scenarios[0].changes[0] already does)',
    });
    expect(
      scenarioError({
        name: 'x',
        changes: [
          { term: 0, actual_final_credits: 3 },
          { term: 0, drop: true },
        ],
      }),
    ).toEqual({
      field: 'scenarios[0].changes[1]',
      message: 'term 0 is dropped in this scenario and takes no other change (scenarios[0].changes[0])',
    });
    expect(
      scenarioError({
        name: 'x',
        changes: [
          { term: 0, drop: true },
          { term: 0, drop: true },
        ],
      }).message,
    ).toBe('changes drops term 0 again (scenarios[0].changes[0] already does)');
  });

  it('a scenario whose changed request is not valid (every term dropped) is named, with the reason', () => {
    expect(
      scenarioError({
        name: 'No classes',
        changes: [
          { term: 0, drop: true },
          { term: 1, drop: true },
        ],
      }),
    ).toEqual({
      field: 'scenarios[0]',
      message: 'with its changes applied, the request is not valid: terms must contain at least 1 term',
    });
  });

  it('every problem at once: the base’s, each scenario’s, in order', () => {
    const base = fsa1();
    base.grade_level = 'freshman';
    const errors = fieldsOf({
      base,
      scenarios: [
        { name: '', changes: [{ term: 9, credits_enrolled: 6 }] },
        spring6,
        { name: 'y', changes: [{ term: 0, drop: 'yes' }], extra: 1 },
      ],
    });
    expect(errors).toEqual([
      'base.grade_level',
      'scenarios[0].name',
      'scenarios[0].changes[0].term',
      'scenarios[2].extra',
      'scenarios[2].changes[0].drop',
    ]);
  });

  it('with an invalid base the changes are still checked against its terms as written', () => {
    const base = fsa1();
    base.dependency_status = 'both';
    expect(fieldsOf({ base, scenarios: [{ name: 'x', changes: [{ term: 2, drop: true }] }] })).toEqual([
      'base.dependency_status',
      'scenarios[0].changes[0].term',
    ]);
  });
});

describe('the documented CompareRequest schema', () => {
  const value = fc.constantFrom<unknown>(6, '7.5', 0, -1, null, 'x', true, false, '1e3', 1001);
  const anyChange = fc.record(
    {
      term: fc.constantFrom<unknown>(0, 1, 2, -1, 0.5, '1'),
      credits_enrolled: value,
      actual_final_credits: value,
      drop: value,
      other: value,
    },
    { requiredKeys: [] },
  );
  const goodValue = fc.constantFrom<unknown>(6, '7.5', 0, 12, '0.25');
  const goodChange = fc.oneof(
    fc.record({ term: fc.constantFrom(0, 1), credits_enrolled: goodValue }),
    fc.record({ term: fc.constantFrom(0, 1), actual_final_credits: fc.oneof(goodValue, fc.constant(null)) }),
    fc.record({ term: fc.constantFrom(0, 1), drop: fc.constant(true) }),
  );
  const changeArb = fc.oneof({ arbitrary: goodChange, weight: 6 }, { arbitrary: anyChange, weight: 1 });
  const scenarioArb = fc.record(
    {
      name: fc.oneof(
        { arbitrary: fc.constantFrom<unknown>('A', 'B', 'C', 'D', 'E', 'F'), weight: 8 },
        { arbitrary: fc.constantFrom<unknown>('', ' ', 'x'.repeat(61), 'C\t', 3), weight: 1 },
      ),
      changes: fc.array(changeArb, { minLength: 0, maxLength: 3 }),
    },
    { requiredKeys: ['changes'] },
  );
  const bodyArb = fc.record({ scenarios: fc.array(scenarioArb, { maxLength: 6 }) });

  it('accepts every body the parser accepts (it documents no rule the service does not hold)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(bodyArb, (generated) => {
        const body = { base: fsa1(), ...generated };
        if (parseCompareRequest(body).ok) {
          accepted++;
          expect(CompareRequestSchema.safeParse(body).success).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(20); // the property was exercised on valid bodies
  });

  it('and refuses the shapes the parser refuses: no change kind, two kinds, drop false, six scenarios', () => {
    const refused = (scenarios: unknown) => CompareRequestSchema.safeParse({ base: fsa1(), scenarios }).success;
    expect(refused([{ name: 'x', changes: [{ term: 1 }] }])).toBe(false);
    expect(refused([{ name: 'x', changes: [{ term: 1, drop: true, credits_enrolled: 6 }] }])).toBe(false);
    expect(refused([{ name: 'x', changes: [{ term: 1, drop: false }] }])).toBe(false);
    expect(refused(Array.from({ length: 6 }, (_, i) => ({ ...spring6, name: `S${i}` })))).toBe(false);
    expect(refused([spring6])).toBe(true);
  });
});
