/**
 * The fast path of request validation: the schema of request.ts, written out by hand for VALID requests only. It
 * returns the very output of parseCalculationRequestWithZod (same values, same key order) or null, and null is
 * always safe: the caller then runs zod. So it may turn down anything it does not want to reason about (a "-0"
 * string, a term that is not a plain object, a key present with the value undefined, a non-enumerable
 * property...), and it must never accept what the schema or its cross-field rules reject. A change to the schema
 * must be mirrored here: a new field is an unknown key here (so null: correct but slow), a changed rule is caught
 * by test/schema/fast-path.test.ts.
 */
import type { CalculationInput, TermInput } from '../domain/types.ts';
import { type LimitTable, findAwardYear } from '../domain/limits.ts';
import { defaultAwardYear } from './award-year.ts';
import {
  CREDITS,
  CREDITS_POSITIVE,
  MONEY,
  MONEY_POSITIVE,
  canonicalDecimalOrNull,
  type DecimalRule,
} from './decimal.ts';
import { MAX_TERMS, isLabelLengthValid } from './request-limits.ts';
import { isHealthProfessionsProgram } from '../domain/health-professions.ts';
import {
  POLICY_OPTION_NAMES,
  type PolicyChoices,
  type SchoolPolicy,
  isPolicyValue,
  resolvePolicy,
} from '../domain/policy.ts';

const isDecimalHolder = (value: unknown): boolean => typeof value === 'number' || typeof value === 'string';

/** A nullable decimal field with default null: its canonical value, null for null, undefined to give up. */
function nullableDecimal(value: unknown, rule: DecimalRule): string | null | undefined {
  if (value === null) return null;
  if (!isDecimalHolder(value)) return undefined;
  return canonicalDecimalOrNull(value, rule) ?? undefined;
}

/**
 * A JSON object: what JSON.parse or an object literal makes (no class instances, no inherited fields). The test of
 * a request body (request.ts) and of each term here.
 */
export const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
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
  if (!isPlainObject(term)) return null;
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
        if (typeof value !== 'string' || !isLabelLengthValid(value)) return null;
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

/** A valid `policy` object's options (a plain object of known options with their values); undefined: ask zod. */
function policyChoices(value: unknown): PolicyChoices | undefined {
  if (!isPlainObject(value)) return undefined;
  const choices: Record<string, string> = {};
  for (const key in value) {
    const option = POLICY_OPTION_NAMES.find((name) => name === key);
    const choice = value[key];
    if (option === undefined || !isPolicyValue(option, choice)) return undefined;
    choices[option] = choice as string;
  }
  // An option for..in did not list but zod's `key in value` sees (non-enumerable, inherited): zod decides.
  for (const name of POLICY_OPTION_NAMES) if (choices[name] === undefined && name in value) return undefined;
  return choices as PolicyChoices;
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
  'health_professions_program',
  'academic_year_months',
  'policy',
  'award_year',
] as const;
const ALL_REQUEST_KEYS = (1 << REQUEST_KEYS.length) - 1;

/** The canonical input of a valid ordinary request, exactly as the zod path makes it; null: ask zod. */
export function parseValidRequest(
  body: Record<string, unknown>,
  table: LimitTable,
  today: string | undefined,
  basePolicy: SchoolPolicy,
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
  let program: CalculationInput['health_professions_program'] = null;
  let months: number | null = null;
  let choices: PolicyChoices | undefined;
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
      case 'health_professions_program':
        if (value !== null && !isHealthProfessionsProgram(value)) return null;
        program = value;
        seen |= 4096;
        break;
      case 'academic_year_months':
        if (value !== null && value !== 9 && value !== 10 && value !== 11 && value !== 12) return null;
        months = value;
        seen |= 8192;
        break;
      case 'policy':
        if ((choices = policyChoices(value)) === undefined) return null;
        seen |= 16384;
        break;
      case 'award_year':
        if (typeof value !== 'string' || findAwardYear(value, table) === undefined) return null;
        awardYear = value;
        seen |= 32768;
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
    health_professions_program: program,
    academic_year_months: months,
    policy: resolvePolicy(choices, basePolicy),
    award_year: awardYear ?? defaultAwardYear(table, today),
  };
}
