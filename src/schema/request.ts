/**
 * The request side of POST /v1/calculate: zod 4 schemas for CalculationRequest and Term (the single source of the
 * OpenAPI request schema) and `parseCalculationRequest`, which applies every input rule of rules.md §8 and
 * returns either a canonical `CalculationInput` (decimal strings, defaults applied) or the list of every
 * offending field.
 *
 * Used by the JSON endpoint, the bulk pipeline (millions of students) and the CLI, so the schemas are built once
 * at module load, and an ordinary valid request skips zod altogether: `parseValidRequest` (request-fast-path.ts) builds zod's
 * very output by hand and hands everything else to the schema.
 */
import 'zod-openapi';
import { z } from 'zod';
import { ERRORS, type FieldError } from '../errors.ts';
import { counted, renderTemplate } from '../error-template.ts';
import type { CalculationInput } from '../domain/types.ts';
import { type LimitTable, STATUTORY_LIMIT_TABLE } from '../domain/limits.ts';
import {
  ACADEMIC_YEAR_MONTHS_MAX,
  ACADEMIC_YEAR_MONTHS_MIN,
  HEALTH_PROFESSIONS_PROGRAMS,
  HEALTH_PROFESSIONS_TABLE,
} from '../domain/health-professions.ts';
import { type SchoolPolicy, DEFAULT_POLICY, resolvePolicy } from '../domain/policy.ts';
import { PolicySchema } from './policy.ts';
import { MAX_LABEL_LENGTH, MIN_LABEL_LENGTH, isLabelLengthValid, labelLength } from './request-limits.ts';
import { AwardYearField, checkAwardYear, defaultAwardYear } from './award-year.ts';
import {
  DECIMAL_PATTERN,
  MAX_CREDITS,
  MAX_DECIMAL_PLACES,
  MAX_DECIMAL_STRING_LENGTH,
  MAX_MONEY,
  CREDITS,
  CREDITS_POSITIVE,
  MONEY,
  MONEY_POSITIVE,
  toCanonicalDecimal,
  type DecimalRule,
} from './decimal.ts';

import { MAX_INSPECTED_TERMS, MAX_TERMS } from './request-limits.ts';
import { isPlainObject, parseValidRequest } from './request-fast-path.ts';

export { MAX_INSPECTED_TERMS, MAX_TERMS } from './request-limits.ts';
/** Longest field_errors list returned; the envelope's message gives the full count when it is cut. */
export { MAX_FIELD_ERRORS } from '../errors.ts';

export const DEPENDENCY_STATUSES = ['dependent', 'independent'] as const;
export const DEGREE_LEVELS = ['undergraduate', 'graduate', 'professional'] as const;
export const GRADE_LEVELS = ['first_year', 'second_year', 'third_year_and_beyond'] as const;

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

export const TermSchema = z
  .strictObject(
    {
      label: z
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
          description:
            `Names the term (echoed in the result): ${MIN_LABEL_LENGTH} to ${MAX_LABEL_LENGTH} characters ` +
            '(rules.md §8, revision 2026-27.3).',
        }),
      full_time_credits: decimalField(
        CREDITS_POSITIVE,
        'Credits that make this term full time for the program (e.g. 12 for a semester).',
      ),
      credits_enrolled: decimalField(
        CREDITS,
        'Credits the student is enrolled in for the term (fractional credits such as 7.5 are normal).',
      ),
      actual_final_credits: decimalField(
        CREDITS,
        'Credits known at the end of the term; when present they replace credits_enrolled in every calculation ' +
          '(they do not close the term).',
      )
        .nullable()
        .default(null),
      prior_disbursement_sub: decimalField(
        MONEY,
        'Direct Subsidized dollars already disbursed for this term; any prior disbursement > 0 closes the term.',
      )
        .nullable()
        .default(null),
      prior_disbursement_unsub: decimalField(MONEY, 'Direct Unsubsidized dollars already disbursed for this term.')
        .nullable()
        .default(null),
      prior_disbursement_grad_plus: decimalField(MONEY, 'Grad PLUS dollars already disbursed for this term.')
        .nullable()
        .default(null),
    },
    { error: expected('an object (a term)') },
  )
  .meta({
    id: 'Term',
    description:
      'One enrollment term (payment period). Unknown fields are rejected. Prior disbursements are rounded half up ' +
      'to whole dollars before use.',
  });

export const CalculationRequestSchema = z
  .strictObject(
    {
      dependency_status: z
        .enum(DEPENDENCY_STATUSES, { error: expected(oneOf(DEPENDENCY_STATUSES)) })
        .meta({ description: 'Dependency status for federal student aid.' }),
      terms: z.array(TermSchema, { error: expected('an array of terms') }).meta({
        // The count is checked by parseCalculationRequest (crossFieldErrors), not by zod's min/max: those would
        // stop zod from inspecting the items, and every offending field is reported. Documented here.
        override: ({ jsonSchema }) => {
          jsonSchema.minItems = 1;
          jsonSchema.maxItems = MAX_TERMS;
        },
        description:
          `The terms of the loan period, in order: 1 to ${MAX_TERMS}, and no more than academic_year_terms ` +
          'when that is given (count errors are reported at path `terms`).',
      }),
      degree_level: z
        .enum(DEGREE_LEVELS, { error: expected(oneOf(DEGREE_LEVELS)) })
        .default('undergraduate')
        .meta({ description: 'Degree level; null is not allowed (omit the field for the default).' }),
      grade_level: z
        .enum(GRADE_LEVELS, { error: expected(`${oneOf(GRADE_LEVELS)}, or null`) })
        .nullable()
        .default(null)
        .meta({
          description:
            'Undergraduate grade level: required (non-null) for undergraduates; ignored with a warning for graduate ' +
            'and professional students.',
        }),
      academic_year_terms: z
        .number({ error: expected('a whole number from 2 to 4, or null') })
        .int({ error: 'must be a whole number from 2 to 4, or null' })
        .min(2, { error: 'must be a whole number from 2 to 4, or null' })
        .max(4, { error: 'must be a whole number from 2 to 4, or null' })
        .nullable()
        .default(null)
        .meta({
          description:
            'Terms in the school’s academic year for this loan (2 to 4; 3.0 is the JSON number 3). When the request ' +
            'holds fewer terms, the loan period is shorter than the academic year (warning). Null: the terms given ' +
            'are the whole academic year.',
        }),
      cost_of_attendance: decimalField(
        MONEY,
        'Cost of attendance already net of other aid (34 CFR 685.203(j)); caps Subsidized + Unsubsidized for every ' +
          'student. For legacy graduate/professional borrowers Grad PLUS is sized from it after the reduction: ' +
          'cost_of_attendance minus the reduced Subsidized and Unsubsidized amounts, then reduced once.',
      )
        .nullable()
        .default(null),
      is_legacy_borrower: z
        .boolean({ error: expected('a boolean (true or false)') })
        .default(false)
        .meta({
          description:
            'Graduate/professional interim (legacy) exception: keeps Grad PLUS access. Ignored with a warning for ' +
            'undergraduates. Legacy borrowers are still reduced.',
        }),
      plus_denied: z
        .boolean({ error: expected('a boolean (true or false)') })
        .default(false)
        .meta({
          description:
            'Dependent undergraduate: the parent was denied a Parent PLUS loan (independent combined limit applies). ' +
            'Graduate/professional: the student’s own Grad PLUS was denied (Grad PLUS 0).',
        }),
      subsidized_amount: decimalField(
        MONEY,
        'The student’s need-based Direct Subsidized eligibility before the reduction; capped at the statutory ' +
          'subsidized maximum. When left out it is 0 (no subsidized eligibility: the whole combined limit is ' +
          'unsubsidized) and an undergraduate’s result warns that no subsidized eligibility was assumed; send 0 ' +
          'for a student without need. Null is not allowed.',
      )
        .optional()
        // Absent stays distinguishable from an explicit 0 (rules.md §7): the domain reads null as "not given".
        .transform((value) => value ?? null),
      total_limit: decimalField(
        MONEY_POSITIVE,
        'Institution-set program limit on Subsidized + Unsubsidized + Grad PLUS (34 CFR 685.203(m)(2)), or any ' +
          'lower limit the school applies; the starting point of the reduction when it binds. It caps Subsidized ' +
          '+ Unsubsidized, and Grad PLUS at what is left of it.',
      )
        .nullable()
        .default(null),
      final_period_of_program: z
        .boolean({ error: expected('a boolean (true or false)') })
        .default(false)
        .meta({
          description:
            'The loan period is the final period of an undergraduate program (rules.md §2.3). When it is also ' +
            'shorter than an academic year (Σ full_time_credits < academic_year_credits), the statutory limits are ' +
            'prorated by credits ÷ academic_year_credits (34 CFR 685.203(a)(4)–(6), (d)) and the ' +
            'less-than-full-time reduction is not applied on top (reduced_annual_pct 100). Otherwise the normal ' +
            'reduction applies, with a warning. Ignored with a warning for graduate and professional students. ' +
            'Not nullable.',
        }),
      academic_year_credits: decimalField(
        CREDITS_POSITIVE,
        'Credits in the school’s academic-year definition (e.g. 24 or 36), for final_period_of_program. Required ' +
          '(non-null) when final_period_of_program is true for an undergraduate; otherwise it may be null or ' +
          'left out (a value given is still validated).',
      )
        .nullable()
        .default(null),
      health_professions_program: z
        .enum(HEALTH_PROFESSIONS_PROGRAMS, { error: expected(`${oneOf(HEALTH_PROFESSIONS_PROGRAMS)}, or null`) })
        .nullable()
        .default(null)
        .meta({ description: healthProfessionsDescription() }),
      academic_year_months: z
        .number({
          error: expected(`a whole number from ${ACADEMIC_YEAR_MONTHS_MIN} to ${ACADEMIC_YEAR_MONTHS_MAX}, or null`),
        })
        .int({
          error: `must be a whole number from ${ACADEMIC_YEAR_MONTHS_MIN} to ${ACADEMIC_YEAR_MONTHS_MAX}, or null`,
        })
        .min(ACADEMIC_YEAR_MONTHS_MIN, {
          error: `must be a whole number from ${ACADEMIC_YEAR_MONTHS_MIN} to ${ACADEMIC_YEAR_MONTHS_MAX}, or null`,
        })
        .max(ACADEMIC_YEAR_MONTHS_MAX, {
          error: `must be a whole number from ${ACADEMIC_YEAR_MONTHS_MIN} to ${ACADEMIC_YEAR_MONTHS_MAX}, or null`,
        })
        .nullable()
        .default(null)
        .meta({
          description:
            `Months the health professions program's academic year covers (${ACADEMIC_YEAR_MONTHS_MIN} to ` +
            `${ACADEMIC_YEAR_MONTHS_MAX}; null or absent: 9). For 10 or 11 months the additional amount is the ` +
            '9-month amount ÷ 9 × months, rounded half up; 12 months takes the table’s 12-month amount ' +
            '(rules.md §2.1). Validated even where it is then ignored.',
        }),
      policy: PolicySchema,
      award_year: AwardYearField,
    },
    { error: expected('a JSON object') },
  )
  .meta({
    id: 'CalculationRequest',
    description:
      'One student. Unknown fields are rejected (a typo such as plus_denid is a 422, never silently ignored). ' +
      'Cross-field rules: 1 to 4 terms; no more terms than academic_year_terms; grade_level required for ' +
      'undergraduates; academic_year_credits required when final_period_of_program is true for an ' +
      'undergraduate; award_year one of the supported award years. Duplicate keys in the JSON text: the last occurrence wins.',
  });

export type CalculationRequestInput = z.input<typeof CalculationRequestSchema>;

function healthProfessionsDescription(): string {
  const amounts = (table: '3A' | '3B') => {
    const rows = HEALTH_PROFESSIONS_PROGRAMS.filter((p) => HEALTH_PROFESSIONS_TABLE[p].table === table);
    const row = HEALTH_PROFESSIONS_TABLE[rows[0]!];
    const dollars = (v: string) => `$${Number(v).toLocaleString('en-US')}`;
    return `${rows.join(', ')} (table ${table}: ${dollars(row.nineMonths)} for 9 months, ${dollars(row.twelveMonths)} for 12)`;
  };
  return (
    'Health professions program of a legacy (interim exception) graduate or professional student, which keeps ' +
    'the prior-law additional Unsubsidized amount on top of the legacy combined limit (rules.md §2.1; FSA Handbook 2025-26 ' +
    `vol. 8 ch. 4): ${amounts('3A')}; ${amounts('3B')}. Ignored with a warning for anyone else (validated all ` +
    'the same). Null or absent: none.'
  );
}

/** The 422 envelope's message for `count` offending fields. */
export function validationMessage(count: number): string {
  return renderTemplate(ERRORS.REQUEST_INVALID.message, { invalidFields: counted(count, 'invalid field') });
}

export type ParseResult = { ok: true; value: CalculationInput } | { ok: false; fieldErrors: FieldError[] };

export interface ParseOptions {
  /** The statutory limit table whose award years are accepted (the shipped one by default). */
  table?: LimitTable;
  /** Today's date (YYYY-MM-DD) for the default award year; the current UTC date by default. */
  today?: string;
  /**
   * The policy a request without `policy` (or without some of its options) gets: the deployment's SOR_POLICY, or a
   * file's `policy.<option>` query parameters over it (rules.md §10). DEFAULT_POLICY when absent.
   */
  policy?: SchoolPolicy;
}

/** `['terms', 1, 'credits_enrolled']` → `terms[1].credits_enrolled`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out.length === 0 ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

const MAX_ECHOED_KEY_LENGTH = 100;
const echoKey = (key: string) => (key.length > MAX_ECHOED_KEY_LENGTH ? `${key.slice(0, MAX_ECHOED_KEY_LENGTH)}…` : key);

const own = (object: Record<string, unknown>, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;

/**
 * Validates one request body (already JSON-parsed, or built from CSV cells by the bulk pipeline) against every
 * rule of rules.md §8 and returns the canonical input for `calculate()`, or every offending field.
 *
 * An ordinary valid request (a plain object of known fields with values of their usual types) is checked by
 * `parseValidRequest`, which builds exactly the output the schema would; anything else — every invalid request
 * and every unusual form — goes through the zod schema (`parseCalculationRequestWithZod`), so every error is
 * zod's. test/schema/fast-path.test.ts compares the two on hundreds of thousands of random bodies.
 */
export function parseCalculationRequest(body: unknown, options: ParseOptions = {}): ParseResult {
  if (!isPlainObject(body)) return { ok: false, fieldErrors: [{ field: 'body', message: 'must be a JSON object' }] };
  const table = options.table ?? STATUTORY_LIMIT_TABLE;
  const value = parseValidRequest(body, table, options.today, options.policy ?? DEFAULT_POLICY);
  if (value !== null) return { ok: true, value };
  return parseCalculationRequestWithZod(body, options);
}

/** parseCalculationRequest through the zod schema alone: the reference the fast path must match. */
export function parseCalculationRequestWithZod(body: unknown, options: ParseOptions = {}): ParseResult {
  if (!isPlainObject(body)) return { ok: false, fieldErrors: [{ field: 'body', message: 'must be a JSON object' }] };

  const terms = own(body, 'terms');
  let subject: Record<string, unknown> = body;
  if (Array.isArray(terms) && terms.length > MAX_INSPECTED_TERMS) {
    // Object spread copies own data properties, a `__proto__` key included, so unknown keys still surface.
    subject = { ...body, terms: terms.slice(0, MAX_INSPECTED_TERMS) };
  }

  const parsed = CalculationRequestSchema.safeParse(subject);
  const errors: FieldError[] = parsed.success ? [] : issuesToFieldErrors(parsed.error.issues);
  const table = options.table ?? STATUTORY_LIMIT_TABLE;
  crossFieldErrors(body, terms, errors, table);

  if (errors.length > 0 || !parsed.success) {
    return { ok: false, fieldErrors: errors.length > 0 ? errors : [{ field: 'body', message: 'is invalid' }] };
  }
  // The award year is data for the pure domain: a request without one gets the one in force today. zod's output
  // is a fresh object, completed in place (the bulk path parses millions of students).
  // Rebuilt in the fast path's key order: the policy resolved over the base, the award year last.
  const { policy, award_year: awardYear, ...fields } = parsed.data;
  return {
    ok: true,
    value: {
      ...fields,
      policy: resolvePolicy(policy, options.policy ?? DEFAULT_POLICY),
      award_year: awardYear ?? defaultAwardYear(table, options.today),
    },
  };
}

function issuesToFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        errors.push({ field: formatPath([...issue.path, echoKey(key)]), message: 'is not an allowed field' });
      }
    } else {
      errors.push({ field: formatPath(issue.path), message: issue.message });
    }
  }
  return errors;
}

/**
 * The rules a per-field schema cannot see: term count, academic_year_terms, grade_level for undergraduates,
 * academic_year_credits for an undergraduate's final period (rules.md §2.3, §8), an award year the limit table
 * holds.
 */
function crossFieldErrors(
  body: Record<string, unknown>,
  terms: unknown,
  errors: FieldError[],
  table: LimitTable,
): void {
  if (Array.isArray(terms)) {
    const ayt = own(body, 'academic_year_terms');
    const yearTerms = typeof ayt === 'number' && Number.isInteger(ayt) && ayt >= 2 && ayt <= MAX_TERMS ? ayt : null;
    let message: string | null = null;
    if (terms.length === 0) message = 'must contain at least 1 term';
    else if (terms.length > MAX_TERMS) message = `must contain at most ${MAX_TERMS} terms (got ${terms.length})`;
    else if (yearTerms !== null && terms.length > yearTerms)
      message = `must not contain more terms than academic_year_terms (${yearTerms}); got ${terms.length}`;
    if (message !== null) errors.push({ field: 'terms', message });
  }

  const degree = own(body, 'degree_level');
  const grade = own(body, 'grade_level');
  if ((degree === undefined || degree === 'undergraduate') && (grade === undefined || grade === null)) {
    errors.push({
      field: 'grade_level',
      message: `is required for an undergraduate (${oneOf(GRADE_LEVELS)})`,
    });
  }

  const yearCredits = own(body, 'academic_year_credits');
  if (
    own(body, 'final_period_of_program') === true &&
    (degree === undefined || degree === 'undergraduate') &&
    (yearCredits === undefined || yearCredits === null)
  ) {
    errors.push({
      field: 'academic_year_credits',
      message:
        'is required when final_period_of_program is true for an undergraduate (the credits in the school’s ' +
        'academic year, e.g. 24)',
    });
  }

  const awardYearError = checkAwardYear(own(body, 'award_year'), table);
  if (awardYearError !== null) errors.push(awardYearError);
}
