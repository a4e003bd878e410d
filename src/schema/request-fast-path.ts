/**
 * The fast path of request validation, for VALID requests only, built from the table of request fields
 * (fields.ts) like the zod schema: each row becomes a reader that returns the field's canonical value or GIVE_UP.
 * It returns the very output of parseCalculationRequestWithZod (same values, same key order: the table's) or null,
 * and null is always safe: the caller then runs zod. So it may turn down anything it does not want to reason about
 * (a "-0" string, a term that is not a plain object, a key present with the value undefined, a non-enumerable
 * property...), and it must never accept what the schema or its cross-field rules reject.
 * test/schema/fast-path.test.ts compares the two on hundreds of thousands of random bodies.
 */
import type { CalculationInput, TermInput } from '../domain/types.ts';
import { type LimitTable, findAwardYear } from '../domain/limits.ts';
import { defaultAwardYear } from './award-year.ts';
import { canonicalDecimalOrNull } from './decimal.ts';
import { MAX_TERMS, isLabelLengthValid } from './request-limits.ts';
import {
  POLICY_OPTION_NAMES,
  type PolicyChoices,
  type SchoolPolicy,
  isPolicyValue,
  resolvePolicy,
} from '../domain/policy.ts';
import { STUDENT_FIELDS, TERM_FIELDS, type RequestField } from './fields.ts';

/** A reader's answer for a value it does not accept (or does not want to reason about): ask zod. */
const GIVE_UP: unique symbol = Symbol('give up');
type Reader = (value: unknown, table: LimitTable) => unknown;

/**
 * A JSON object: what JSON.parse or an object literal makes (no class instances, no inherited fields). The test of
 * a request body (request.ts) and of each term here.
 */
export const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** A valid `policy` object's options (a plain object of known options with their values); GIVE_UP: ask zod. */
function policyChoices(value: unknown): PolicyChoices | typeof GIVE_UP {
  if (!isPlainObject(value)) return GIVE_UP;
  const choices: Record<string, string> = {};
  for (const key in value) {
    const option = POLICY_OPTION_NAMES.find((name) => name === key);
    const choice = value[key];
    if (option === undefined || !isPolicyValue(option, choice)) return GIVE_UP;
    choices[option] = choice as string;
  }
  // An option for..in did not list but zod's `key in value` sees (non-enumerable, inherited): zod decides.
  for (const name of POLICY_OPTION_NAMES) if (choices[name] === undefined && name in value) return GIVE_UP;
  return choices as PolicyChoices;
}

/** The reader of one row of the table: exactly what its zod field accepts (or less), with zod's output. */
function readerOf(field: RequestField): Reader {
  const { type, nullable } = field;
  switch (type.kind) {
    case 'decimal': {
      const rule = type.rule;
      if (!nullable) return (value) => canonicalDecimalOrNull(value, rule) ?? GIVE_UP;
      return (value) => (value === null ? null : (canonicalDecimalOrNull(value, rule) ?? GIVE_UP));
    }
    case 'enum': {
      const values: ReadonlySet<unknown> = new Set(type.values);
      return (value) => (values.has(value) || (nullable && value === null) ? value : GIVE_UP);
    }
    case 'integer': {
      const { min, max } = type;
      return (value) =>
        (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) ||
        (nullable && value === null)
          ? value
          : GIVE_UP;
    }
    case 'boolean':
      return (value) => (typeof value === 'boolean' ? value : GIVE_UP);
    case 'label':
      return (value) => (typeof value === 'string' && isLabelLengthValid(value) ? value : GIVE_UP);
    case 'terms':
      return (value) => (Array.isArray(value) ? value : GIVE_UP);
    case 'policy':
      return policyChoices;
    case 'award_year':
      return (value, table) =>
        typeof value === 'string' && findAwardYear(value, table) !== undefined ? value : GIVE_UP;
  }
}

/**
 * The reading of one field as a JavaScript expression over `value`, as a hand-written validator would spell it: an
 * enum is a chain of `===` on its constant values (interned strings: cheaper than a Set lookup), a decimal calls
 * canonicalDecimalOrNull with its rule `d<i>` directly (no closure between: a JSON number stays unboxed), every other
 * kind calls its reader `r<i>`.
 */
function readSource(field: RequestField, index: number): string {
  const orNull = (test: string) => (field.nullable ? `value === null ? null : ${test}` : test);
  switch (field.type.kind) {
    case 'enum': {
      const allowed = [...field.type.values, ...(field.nullable ? [null] : [])];
      return `(${allowed.map((v) => `value === ${JSON.stringify(v)}`).join(' || ')} ? value : GIVE_UP)`;
    }
    case 'decimal':
      return `(${orNull(`(canonical(value, d${index}) ?? GIVE_UP)`)})`;
    default:
      return `r${index}(value, table)`;
  }
}

/**
 * The reading of one level of the table, compiled once at module load into a function shaped like a hand-written
 * validator: a `switch` over the object's own keys calling each row's reader at its own call site, then an object
 * literal in the table's order (so V8 sees one shape and inlines each reader). The source is made from the table's
 * constant field names only (quoted with JSON.stringify), never from request data.
 *
 * The function returns the fields' values, or null to ask zod: an unknown key (`__proto__` included), a value a
 * reader gave up on, a required field missing, or a field for..in did not list but zod's `key in object` sees
 * (non-enumerable or inherited).
 */
type ReadFields = (object: Record<string, unknown>, table: LimitTable) => Record<string, unknown> | null;

function compile(fields: readonly RequestField[]): ReadFields {
  if (fields.length > 30) throw new Error('the fast path keeps one bit per field');
  const initial = (f: RequestField): string =>
    f.presence === 'absent-null' ? 'null' : f.default === undefined ? 'undefined' : JSON.stringify(f.default);
  const required = fields.reduce((mask, f, i) => (f.presence === 'required' ? mask | (1 << i) : mask), 0);
  const all = (1 << fields.length) - 1;
  const source = [
    ...fields.map((f, i) => `let v${i} = ${initial(f)};`),
    'let seen = 0;',
    'for (const key in object) {',
    '  const value = object[key];',
    '  switch (key) {',
    ...fields.map(
      (f, i) =>
        `    case ${JSON.stringify(f.name)}: if ((v${i} = ${readSource(f, i)}) === GIVE_UP) return null; ` +
        `seen |= ${1 << i}; break;`,
    ),
    '    default: return null;',
    '  }',
    '}',
    `if ((seen & ${required}) !== ${required}) return null;`,
    `if (seen !== ${all}) {`,
    '  for (let i = 0; i < names.length; i++) if ((seen & (1 << i)) === 0 && names[i] in object) return null;',
    '}',
    `return { ${fields.map((f, i) => `${JSON.stringify(f.name)}: v${i}`).join(', ')} };`,
  ].join('\n');
  const readers = fields.map(readerOf);
  const rules = fields.map((f) => (f.type.kind === 'decimal' ? f.type.rule : undefined));
  const params = ['GIVE_UP', 'names', 'canonical', ...readers.map((_, i) => `r${i}`), ...rules.map((_, i) => `d${i}`)];
  const make = new Function(...params, `return function readFields(object, table) {\n${source}\n};`) as (
    ...args: unknown[]
  ) => ReadFields;
  return make(
    GIVE_UP,
    fields.map((f) => f.name),
    canonicalDecimalOrNull,
    ...readers,
    ...rules,
  );
}

const readTerm = compile(TERM_FIELDS);
const readStudent = compile(STUDENT_FIELDS);

/** The student-level fields the cross-field rules and the output read (the request's own names). */
interface StudentFields {
  terms: unknown[];
  degree_level: string;
  grade_level: string | null;
  academic_year_terms: number | null;
  final_period_of_program: boolean;
  academic_year_credits: string | null;
  policy: PolicyChoices | SchoolPolicy | undefined;
  award_year: string | undefined;
}

/** The canonical input of a valid ordinary request, exactly as the zod path makes it; null: ask zod. */
export function parseValidRequest(
  body: Record<string, unknown>,
  table: LimitTable,
  today: string | undefined,
  basePolicy: SchoolPolicy,
): CalculationInput | null {
  const fields = readStudent(body, table) as StudentFields | null;
  if (fields === null) return null;

  // crossFieldErrors' rules (request.ts), as conditions for acceptance.
  const termsIn = fields.terms;
  const count = termsIn.length;
  const yearTerms = fields.academic_year_terms;
  if (count === 0 || count > MAX_TERMS || (yearTerms !== null && count > yearTerms)) return null;
  if (
    fields.degree_level === 'undergraduate' &&
    (fields.grade_level === null || (fields.final_period_of_program && fields.academic_year_credits === null))
  )
    return null;

  const terms: TermInput[] = [];
  for (let i = 0; i < count; i++) {
    const term = termsIn[i];
    const parsed = isPlainObject(term) ? readTerm(term, table) : null;
    if (parsed === null) return null;
    terms.push(parsed as unknown as TermInput);
  }
  // Completed in place: the literal's shape (the table's order) stays the output's.
  fields.terms = terms;
  fields.policy = resolvePolicy(fields.policy as PolicyChoices | undefined, basePolicy);
  fields.award_year ??= defaultAwardYear(table, today);
  return fields as unknown as CalculationInput;
}
