/**
 * The request side of POST /v1/calculate: zod 4 schemas for CalculationRequest and Term (the single source of the
 * OpenAPI request schema) and `parseCalculationRequest`, which applies every input rule of rules.md §8 and
 * returns either a canonical `CalculationInput` (decimal strings, defaults applied) or the list of every
 * offending field.
 *
 * Used by the JSON endpoint, the bulk pipeline (millions of students) and the CLI, so the schemas are built once
 * at module load, and an ordinary valid request skips zod altogether: `parseValidRequest` (below) builds zod's
 * very output by hand and hands everything else to the schema.
 */
import 'zod-openapi';
import { z } from 'zod';
import { ERRORS, type FieldError } from '../errors.ts';
import { counted, renderTemplate } from '../error-template.ts';
import type { CalculationInput, TermInput } from '../domain/types.ts';
import { type LimitTable, STATUTORY_LIMIT_TABLE, findAwardYear } from '../domain/limits.ts';
import { AwardYearField, checkAwardYear, defaultAwardYear } from './award-year.ts';
import {
  DECIMAL_PATTERN,
  MAX_CREDITS,
  MAX_DECIMAL_PLACES,
  MAX_DECIMAL_STRING_LENGTH,
  MAX_MONEY,
  canonicalDecimalOrNull,
  toCanonicalDecimal,
  type DecimalRule,
} from './decimal.ts';

/** Most terms a request may hold (rules.md §8): an academic year has at most 4 terms. */
export const MAX_TERMS = 4;
/**
 * Terms inspected field by field when a request holds too many: the count error is reported at `terms`, and the
 * items past this index are not inspected (this bounds the work and the size of the error list for hostile
 * bodies; a request over MAX_TERMS must be resent with fewer terms anyway).
 */
export const MAX_INSPECTED_TERMS = 16;
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

const CREDITS: DecimalRule = { kind: 'credits', positive: false };
const CREDITS_POSITIVE: DecimalRule = { kind: 'credits', positive: true };
const MONEY: DecimalRule = { kind: 'money', positive: false };
const MONEY_POSITIVE: DecimalRule = { kind: 'money', positive: true };

export const TermSchema = z
  .strictObject(
    {
      label: z.string({ error: expected('a string') }).meta({ description: 'Names the term (echoed in the result).' }),
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

/** A JSON object: what JSON.parse or an object literal makes (no class instances, no inherited fields). */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

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
  const value = parseValidRequest(body, table, options.today);
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
  const value = parsed.data;
  return {
    ok: true,
    value: Object.assign(value, { award_year: value.award_year ?? defaultAwardYear(table, options.today) }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The fast path: the schema above, written out by hand for VALID requests only. It returns the very output of
// parseCalculationRequestWithZod (same values, same key order) or null, and null is always safe: the caller then
// runs zod. So it may turn down anything it does not want to reason about (a "-0" string, a term that is not a
// plain object, a key present with the value undefined, a non-enumerable property...), and it must never accept
// what the schema or crossFieldErrors rejects. A change to the schema above must be mirrored here: a new field is
// an unknown key here (so null: correct but slow), a changed rule is caught by test/schema/fast-path.test.ts.
// ---------------------------------------------------------------------------------------------------------------

const isDecimalHolder = (value: unknown): boolean => typeof value === 'number' || typeof value === 'string';

/** A nullable decimal field with default null: its canonical value, null for null, undefined to give up. */
function nullableDecimal(value: unknown, rule: DecimalRule): string | null | undefined {
  if (value === null) return null;
  if (!isDecimalHolder(value)) return undefined;
  return canonicalDecimalOrNull(value, rule) ?? undefined;
}

const isPlainTerm = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

const TERM_OPTIONAL_KEYS = [
  'actual_final_credits',
  'prior_disbursement_sub',
  'prior_disbursement_unsub',
  'prior_disbursement_grad_plus',
] as const;

function parseValidTerm(term: unknown): TermInput | null {
  if (!isPlainTerm(term)) return null;
  let label: string | undefined;
  let fullTime: string | null = null;
  let enrolled: string | null = null;
  let actual: string | null | undefined = null;
  let sub: string | null | undefined = null;
  let unsub: string | null | undefined = null;
  let gradPlus: string | null | undefined = null;
  let seen = 0;
  for (const key in term) {
    const value = term[key];
    switch (key) {
      case 'label':
        if (typeof value !== 'string') return null;
        label = value;
        break;
      case 'full_time_credits':
        if ((fullTime = canonicalDecimalOrNull(value, CREDITS_POSITIVE)) === null) return null;
        break;
      case 'credits_enrolled':
        if ((enrolled = canonicalDecimalOrNull(value, CREDITS)) === null) return null;
        break;
      case 'actual_final_credits':
        if ((actual = nullableDecimal(value, CREDITS)) === undefined) return null;
        seen |= 1;
        break;
      case 'prior_disbursement_sub':
        if ((sub = nullableDecimal(value, MONEY)) === undefined) return null;
        seen |= 2;
        break;
      case 'prior_disbursement_unsub':
        if ((unsub = nullableDecimal(value, MONEY)) === undefined) return null;
        seen |= 4;
        break;
      case 'prior_disbursement_grad_plus':
        if ((gradPlus = nullableDecimal(value, MONEY)) === undefined) return null;
        seen |= 8;
        break;
      default:
        return null; // an unknown field (or an inherited enumerable one): zod reports it
    }
  }
  if (label === undefined || fullTime === null || enrolled === null) return null;
  // An optional field for..in did not list but zod's `key in term` sees (non-enumerable, inherited): zod decides.
  if (seen !== 15) {
    for (let i = 0; i < TERM_OPTIONAL_KEYS.length; i++) {
      if ((seen & (1 << i)) === 0 && TERM_OPTIONAL_KEYS[i]! in term) return null;
    }
  }
  return {
    label,
    full_time_credits: fullTime,
    credits_enrolled: enrolled,
    actual_final_credits: actual,
    prior_disbursement_sub: sub,
    prior_disbursement_unsub: unsub,
    prior_disbursement_grad_plus: gradPlus,
  };
}

const REQUEST_KEYS = [
  'dependency_status',
  'terms',
  'degree_level',
  'grade_level',
  'academic_year_terms',
  'cost_of_attendance',
  'is_legacy_borrower',
  'plus_denied',
  'subsidized_amount',
  'total_limit',
  'final_period_of_program',
  'academic_year_credits',
  'award_year',
] as const;
const ALL_REQUEST_KEYS = (1 << REQUEST_KEYS.length) - 1;

/** The canonical input of a valid ordinary request, exactly as the zod path makes it; null: ask zod. */
export function parseValidRequest(
  body: Record<string, unknown>,
  table: LimitTable,
  today: string | undefined,
): CalculationInput | null {
  let dependency: CalculationInput['dependency_status'] | undefined;
  let termsIn: unknown[] | undefined;
  let degree: CalculationInput['degree_level'] = 'undergraduate';
  let grade: CalculationInput['grade_level'] = null;
  let yearTerms: number | null = null;
  let cost: string | null | undefined = null;
  let legacy = false;
  let plusDenied = false;
  let subsidized: string | null = null;
  let totalLimit: string | null | undefined = null;
  let finalPeriod = false;
  let yearCredits: string | null | undefined = null;
  let awardYear: string | undefined;
  let seen = 0;
  for (const key in body) {
    const value = body[key];
    switch (key) {
      case 'dependency_status':
        if (value !== 'dependent' && value !== 'independent') return null;
        dependency = value;
        seen |= 1;
        break;
      case 'terms':
        if (!Array.isArray(value)) return null;
        termsIn = value;
        seen |= 2;
        break;
      case 'degree_level':
        if (value !== 'undergraduate' && value !== 'graduate' && value !== 'professional') return null;
        degree = value;
        seen |= 4;
        break;
      case 'grade_level':
        if (value !== null && value !== 'first_year' && value !== 'second_year' && value !== 'third_year_and_beyond')
          return null;
        grade = value;
        seen |= 8;
        break;
      case 'academic_year_terms':
        if (value !== null && value !== 2 && value !== 3 && value !== 4) return null;
        yearTerms = value;
        seen |= 16;
        break;
      case 'cost_of_attendance':
        if ((cost = nullableDecimal(value, MONEY)) === undefined) return null;
        seen |= 32;
        break;
      case 'is_legacy_borrower':
        if (typeof value !== 'boolean') return null;
        legacy = value;
        seen |= 64;
        break;
      case 'plus_denied':
        if (typeof value !== 'boolean') return null;
        plusDenied = value;
        seen |= 128;
        break;
      case 'subsidized_amount':
        if ((subsidized = canonicalDecimalOrNull(value, MONEY)) === null) return null; // not nullable
        seen |= 256;
        break;
      case 'total_limit':
        if ((totalLimit = nullableDecimal(value, MONEY_POSITIVE)) === undefined) return null;
        seen |= 512;
        break;
      case 'final_period_of_program':
        if (typeof value !== 'boolean') return null;
        finalPeriod = value;
        seen |= 1024;
        break;
      case 'academic_year_credits':
        if ((yearCredits = nullableDecimal(value, CREDITS_POSITIVE)) === undefined) return null;
        seen |= 2048;
        break;
      case 'award_year':
        if (typeof value !== 'string' || findAwardYear(value, table) === undefined) return null;
        awardYear = value;
        seen |= 4096;
        break;
      default:
        return null; // an unknown field, `__proto__` included: zod reports it
    }
  }
  if (dependency === undefined || termsIn === undefined) return null;
  // A field for..in did not list but zod's `key in body` sees (non-enumerable, inherited): zod decides.
  if (seen !== ALL_REQUEST_KEYS) {
    for (let i = 0; i < REQUEST_KEYS.length; i++) if ((seen & (1 << i)) === 0 && REQUEST_KEYS[i]! in body) return null;
  }

  // crossFieldErrors' rules, as conditions for acceptance.
  const count = termsIn.length;
  if (count === 0 || count > MAX_TERMS || (yearTerms !== null && count > yearTerms)) return null;
  if (degree === 'undergraduate' && (grade === null || (finalPeriod && yearCredits === null))) return null;

  const terms: TermInput[] = [];
  for (let i = 0; i < count; i++) {
    const term = parseValidTerm(termsIn[i]);
    if (term === null) return null;
    terms.push(term);
  }
  return {
    dependency_status: dependency,
    terms,
    degree_level: degree,
    grade_level: grade,
    academic_year_terms: yearTerms,
    cost_of_attendance: cost,
    is_legacy_borrower: legacy,
    plus_denied: plusDenied,
    subsidized_amount: subsidized,
    total_limit: totalLimit,
    final_period_of_program: finalPeriod,
    academic_year_credits: yearCredits,
    award_year: awardYear ?? defaultAwardYear(table, today),
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
