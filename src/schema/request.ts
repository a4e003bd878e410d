/**
 * The request side of POST /v1/calculate: `parseCalculationRequest`, which applies every input rule of rules.md §8
 * and returns either a canonical `CalculationInput` (decimal strings, defaults applied) or the list of every
 * offending field. The fields are the table's (fields.ts); their zod schema is request-schema.ts.
 *
 * Used by the JSON endpoint, the bulk pipeline (millions of students) and the CLI, so the schemas are built once
 * at module load, and an ordinary valid request skips zod altogether: `parseValidRequest` (request-fast-path.ts),
 * built from the same table, makes zod's very output and hands everything else to the schema.
 */
import type { z } from 'zod';
import { ERRORS, type FieldError } from '../errors.ts';
import { counted, renderTemplate } from '../error-template.ts';
import type { CalculationInput } from '../domain/types.ts';
import { type LimitTable, STATUTORY_LIMIT_TABLE } from '../domain/limits.ts';
import { type SchoolPolicy, DEFAULT_POLICY, resolvePolicy } from '../domain/policy.ts';
import { checkAwardYear, defaultAwardYear } from './award-year.ts';
import { GRADE_LEVELS } from './fields.ts';
import { CalculationRequestSchema } from './request-schema.ts';
import { MAX_INSPECTED_TERMS, MAX_TERMS } from './request-limits.ts';
import { isPlainObject, parseValidRequest } from './request-fast-path.ts';

export { MAX_INSPECTED_TERMS, MAX_TERMS } from './request-limits.ts';
/** Longest field_errors list returned; the envelope's message gives the full count when it is cut. */
export { MAX_FIELD_ERRORS } from '../errors.ts';

export { DEGREE_LEVELS, DEPENDENCY_STATUSES, GRADE_LEVELS, type CalculationRequestInput } from './fields.ts';
export { CalculationRequestSchema, TermSchema } from './request-schema.ts';

const oneOf = (values: readonly string[]) => `one of: ${values.join(', ')}`;

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
