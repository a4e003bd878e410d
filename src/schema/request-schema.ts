/**
 * The zod 4 schemas of CalculationRequest and Term (the single source of the OpenAPI request schema), built from
 * the table of request fields (fields.ts): each row's type, bounds, default, nullability and description become
 * one zod field, with the error wording every field of its kind shares.
 */
import 'zod-openapi';
import { z } from 'zod';
import { PolicySchema } from './policy.ts';
import { AwardYearField } from './award-year.ts';
import { MAX_LABEL_LENGTH, MAX_TERMS, MIN_LABEL_LENGTH, isLabelLengthValid, labelLength } from './request-limits.ts';
import {
  DECIMAL_PATTERN,
  MAX_CREDITS,
  MAX_DECIMAL_PLACES,
  MAX_DECIMAL_STRING_LENGTH,
  MAX_MONEY,
  toCanonicalDecimal,
  type DecimalRule,
} from './decimal.ts';
import type { CalculationInput } from '../domain/types.ts';
import type { PolicyChoices } from '../domain/policy.ts';
import { STUDENT_FIELDS, TERM_FIELDS, type CalculationRequestInput, type RequestField } from './fields.ts';

/** What the request schema outputs: the canonical input but for the policy (the options given) and award year. */
export type RequestSchemaOutput = Omit<CalculationInput, 'policy' | 'award_year'> & {
  policy: PolicyChoices | undefined;
  award_year: string | undefined;
};

/** Error text for a type or enum mismatch, distinguishing a missing field and a forbidden null. */
function expected(what: string) {
  return (issue: { input?: unknown }): string =>
    issue.input === undefined
      ? 'is required'
      : issue.input === null
        ? `must be ${what}; null is not allowed here`
        : `must be ${what}`;
}

const oneOf = (values: readonly string[]) => `one of: ${values.join(', ')}`;

function decimalJsonSchema(rule: DecimalRule, description: string) {
  const max = rule.kind === 'credits' ? MAX_CREDITS : MAX_MONEY;
  return {
    description:
      `${description} A JSON number or a decimal string (optional sign, digits, optional point and digits; at ` +
      `most ${MAX_DECIMAL_STRING_LENGTH} characters as written). In both forms the value must be ` +
      `${rule.positive ? 'greater than 0' : '0 or more ("-0" is 0)'}, at most ${max.toLocaleString('en-US')}, ` +
      `with at most ${MAX_DECIMAL_PLACES} decimal places once trailing zeros are dropped ("1.5000000" is 1.5); ` +
      'exponent forms are rejected unless the number they denote meets these bounds (1.5e-7 is rejected).',
    anyOf: [
      rule.positive
        ? { type: 'number' as const, exclusiveMinimum: 0, maximum: max }
        : { type: 'number' as const, minimum: 0, maximum: max },
      { type: 'string' as const, pattern: DECIMAL_PATTERN, maxLength: MAX_DECIMAL_STRING_LENGTH },
    ],
  };
}

/** A credit or money field: number | decimal string in, canonical decimal string out. */
function decimalField(rule: DecimalRule, description: string) {
  return z
    .union([z.number(), z.string()], { error: expected('a number or a decimal string') })
    .transform((value, ctx) => {
      const outcome = toCanonicalDecimal(value, rule);
      if (outcome.ok) return outcome.value;
      ctx.issues.push({ code: 'custom', message: outcome.message, input: value });
      return z.NEVER;
    })
    .meta({ override: decimalJsonSchema(rule, description) });
}

function labelField(description: string) {
  return z
    .string({ error: expected(`a string of ${MIN_LABEL_LENGTH} to ${MAX_LABEL_LENGTH} characters`) })
    .refine(isLabelLengthValid, {
      error: (issue) =>
        `must be ${MIN_LABEL_LENGTH} to ${MAX_LABEL_LENGTH} characters (got ${labelLength(String(issue.input))})`,
    })
    .meta({
      override: ({ jsonSchema }) => {
        jsonSchema.minLength = MIN_LABEL_LENGTH;
        jsonSchema.maxLength = MAX_LABEL_LENGTH;
      },
      description,
    });
}

function termsField(description: string) {
  return z.array(TermSchema, { error: expected('an array of terms') }).meta({
    // The count is checked by parseCalculationRequest (crossFieldErrors), not by zod's min/max: those would stop
    // zod from inspecting the items, and every offending field is reported. Documented here.
    override: ({ jsonSchema }) => {
      jsonSchema.minItems = 1;
      jsonSchema.maxItems = MAX_TERMS;
    },
    description,
  });
}

/** The zod field of one row of the table. */
function fieldSchema(field: RequestField): z.ZodType {
  const { type, nullable } = field;
  const orNull = nullable ? ', or null' : '';
  /** The presence rule over a value schema: required, a default (null when nullable), or absent → null. */
  const present = <T extends z.ZodType>(schema: T): z.ZodType => {
    if (field.presence === 'required') return schema;
    if (field.presence === 'absent-null') return schema.optional().transform((value) => value ?? null);
    return nullable ? schema.nullable().default(null) : schema.default(field.default as never);
  };
  const described = (schema: z.ZodType) => schema.meta({ description: field.description });
  switch (type.kind) {
    case 'decimal':
      return present(decimalField(type.rule, field.description));
    case 'enum':
      return described(present(z.enum(type.values, { error: expected(`${oneOf(type.values)}${orNull}`) })));
    case 'integer': {
      const range = `a whole number from ${type.min} to ${type.max}${orNull}`;
      const error = `must be ${range}`;
      const number = z
        .number({ error: expected(range) })
        .int({ error })
        .min(type.min, { error })
        .max(type.max, { error });
      return described(present(number));
    }
    case 'boolean':
      return described(present(z.boolean({ error: expected('a boolean (true or false)') })));
    case 'label':
      return labelField(field.description);
    case 'terms':
      return termsField(field.description);
    case 'policy':
      return PolicySchema;
    case 'award_year':
      return AwardYearField;
  }
}

const shapeOf = (fields: readonly RequestField[]) =>
  Object.fromEntries(fields.map((field) => [field.name, fieldSchema(field)]));

export const TermSchema = z.strictObject(shapeOf(TERM_FIELDS), { error: expected('an object (a term)') }).meta({
  id: 'Term',
  description:
    'One enrollment term (payment period). Unknown fields are rejected. Prior disbursements are rounded half up ' +
    'to whole dollars before use.',
});

/** The shape is built from the table, so its static type is stated here: the table's input type, the domain's output. */
export const CalculationRequestSchema: z.ZodType<RequestSchemaOutput, CalculationRequestInput> = z
  .strictObject(shapeOf(STUDENT_FIELDS), { error: expected('a JSON object') })
  .meta({
    id: 'CalculationRequest',
    description:
      'One student. Unknown fields are rejected (a typo such as plus_denid is a 422, never silently ignored). ' +
      'Cross-field rules: 1 to 4 terms; no more terms than academic_year_terms; grade_level required for ' +
      'undergraduates; academic_year_credits required when final_period_of_program is true for an ' +
      'undergraduate; award_year one of the supported award years. Duplicate keys in the JSON text: the last occurrence wins.',
  }) as unknown as z.ZodType<RequestSchemaOutput, CalculationRequestInput>;
