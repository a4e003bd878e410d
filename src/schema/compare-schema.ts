/**
 * The shapes of POST /v1/calculate/compare as zod schemas: its limits, the request (CompareRequest: a base
 * CalculationRequest and its scenarios of changes) and the answer (CompareResult: every result and the
 * differences). The single source of the OpenAPI schemas of the comparison; the parser (compare.ts) applies the
 * same rules with one message per offending field, and test/schema/compare.test.ts holds the two together. Tests
 * parse real answers with CompareResultSchema.
 */
import 'zod-openapi';
import { z } from 'zod';
import { PolicyInForceSchema } from './policy.ts';
import { CalculationRequestSchema, TermSchema } from './request-schema.ts';
import { MAX_TERMS } from './request-limits.ts';
import { CalculationResultSchema } from './response.ts';

/** Most scenarios in one comparison. */
export const MAX_SCENARIOS = 5;
/** A scenario's name: 1 to 60 characters (Unicode code points), no control characters. */
export const MAX_SCENARIO_NAME_LENGTH = 60;
/** The term fields a change may set (each at most once per term and scenario). */
export const CHANGE_FIELDS = ['credits_enrolled', 'actual_final_credits'] as const;
export type ChangeField = (typeof CHANGE_FIELDS)[number];
/** Most changes in one scenario: each changeable field of each term once. */
export const MAX_CHANGES = CHANGE_FIELDS.length * MAX_TERMS;

/** The Term schema's own field for a change's value (its rules, its messages, its canonical output). */
export const termField = (field: ChangeField): z.ZodType => (TermSchema.shape as Record<ChangeField, z.ZodType>)[field];

// ---------------------------------------------------------------------------------------------------------------
// The request
// ---------------------------------------------------------------------------------------------------------------

const TermIndexSchema = z
  .int()
  .min(0)
  .max(MAX_TERMS - 1)
  .meta({ description: 'The 0-based index of the term in base.terms.' });

const changeObject = (kind: string, value: z.ZodType, description: string) =>
  z.strictObject({ term: TermIndexSchema, [kind]: value }).meta({ description });

/** actual_final_credits of a change: the Term field's rule, null allowed (the final credits taken away), required. */
const finalCreditsValue = (TermSchema.shape.actual_final_credits as z.ZodDefault<z.ZodType>).unwrap();

export const ScenarioChangeSchema = z
  .union([
    changeObject(
      'credits_enrolled',
      termField('credits_enrolled'),
      'The term’s credits_enrolled becomes this value (what the student would be enrolled in).',
    ),
    changeObject(
      'actual_final_credits',
      finalCreditsValue,
      'The term’s actual_final_credits becomes this value (the credits the term ends with; the term stays open ' +
        'unless it has prior disbursements), or null to take the final credits away.',
    ),
    changeObject('drop', z.literal(true), 'The term is left out of the scenario (the student does not enroll in it).'),
  ])
  .meta({
    id: 'ScenarioChange',
    description:
      'One change to a term of the base: exactly one of credits_enrolled, actual_final_credits, drop. Each field of ' +
      'a term changes at most once per scenario, and a dropped term takes no other change.',
  });

const ScenarioNameSchema = z
  .string()
  .min(1)
  .max(MAX_SCENARIO_NAME_LENGTH)
  .meta({
    description:
      `The scenario's name, shown beside its result: 1 to ${MAX_SCENARIO_NAME_LENGTH} characters, not only ` +
      'spaces, no control characters, different from every other scenario’s name.',
    example: 'Drop to 6 credits in Spring',
  });

export const ScenarioSchema = z
  .strictObject({ name: ScenarioNameSchema, changes: z.array(ScenarioChangeSchema).min(1).max(MAX_CHANGES) })
  .meta({ id: 'Scenario', description: 'A named set of changes to the base request.' });

export const CompareRequestSchema = z
  .strictObject({
    base: CalculationRequestSchema,
    scenarios: z.array(ScenarioSchema).min(1).max(MAX_SCENARIOS),
  })
  .meta({
    id: 'CompareRequest',
    description:
      `One student (base: a CalculationRequest, its policy included) and 1 to ${MAX_SCENARIOS} named scenarios of ` +
      'changes to its terms. Each scenario is the base request as sent with its changes applied (dropped terms ' +
      'left out), calculated exactly as POST /v1/calculate calculates that request; a scenario whose changed ' +
      'request is not valid (every term dropped) is a 422 at scenarios[i].',
  });

// ---------------------------------------------------------------------------------------------------------------
// The answer
// ---------------------------------------------------------------------------------------------------------------

const dollars = z.int();

export const DifferenceSchema = z
  .strictObject({ base: dollars, scenario: dollars, change: dollars })
  .meta({ id: 'Difference', description: 'One figure of the base and of the scenario, and change = scenario − base.' });

export const OptionalDifferenceSchema = z
  .strictObject({ base: dollars.nullable(), scenario: dollars.nullable(), change: dollars.nullable() })
  .meta({
    id: 'OptionalDifference',
    description:
      'A proportional-option figure: null on a side that does not offer the proportional option (rules §5), and ' +
      'then change is null too.',
  });

const loans = <T extends z.ZodType>(item: T) =>
  z.strictObject({ subsidized: item, unsubsidized: item, grad_plus: item });

export const TermDifferenceSchema = z
  .strictObject({
    term: z.int().min(0).meta({ description: 'The term’s index in base.terms.' }),
    label: z.string().meta({ description: 'The term’s label in the base.' }),
    dropped: z.boolean().meta({ description: 'The scenario drops this term: its scenario amounts are 0.' }),
    equal: loans(DifferenceSchema),
    proportional: loans(OptionalDifferenceSchema),
  })
  .meta({ id: 'TermDifference', description: 'One term of the base, its amounts under each option on both sides.' });

export const ScenarioDifferencesSchema = z
  .strictObject({
    reduced_annual_pct: DifferenceSchema,
    annual: loans(DifferenceSchema).meta({
      description: 'annual_basic_eligibility_sub, _unsub and _grad_plus on both sides.',
    }),
    totals: z.strictObject({ equal: loans(DifferenceSchema), proportional: loans(DifferenceSchema) }).meta({
      description:
        'total_equal and total_proportional on both sides (total_proportional equals total_equal where the ' +
        'proportional option is not offered).',
    }),
    terms: z.array(TermDifferenceSchema).meta({ description: 'One per term of the base, in its order.' }),
  })
  .meta({ id: 'ScenarioDifferences', description: 'The scenario’s figures against the base’s.' });

const credits = z.number().min(0);

export const AnsweredChangeSchema = z
  .union([
    z.strictObject({ term: z.int().min(0), credits_enrolled: credits }),
    z.strictObject({ term: z.int().min(0), actual_final_credits: credits.nullable() }),
    z.strictObject({ term: z.int().min(0), drop: z.literal(true) }),
  ])
  .meta({
    id: 'AnsweredScenarioChange',
    description: 'A change as applied, credit counts as normalised JSON numbers (6, not "6.0").',
  });

export const CompareResultSchema = z
  .strictObject({
    rule_set: z.string().meta({ description: 'The rule set that made every calculation (also in X-Rule-Set).' }),
    policy: PolicyInForceSchema,
    base: CalculationResultSchema,
    scenarios: z.array(
      z.strictObject({
        name: ScenarioNameSchema,
        changes: z.array(AnsweredChangeSchema),
        result: CalculationResultSchema.meta({
          description: 'The scenario’s result: POST /v1/calculate’s answer for the base request with the changes.',
        }),
        differences: ScenarioDifferencesSchema,
      }),
    ),
  })
  .meta({
    id: 'CompareResult',
    description: 'The base’s result and each scenario’s, in the request’s order, with the differences.',
  });

export type WireCompareResult = z.output<typeof CompareResultSchema>;
