/**
 * needs_input: the required inputs a request leaves out, told in plain words for an assistant to ask the user.
 *
 * Which inputs are missing is read from the request validator's own field errors (parseCalculationRequest), never
 * from a second list of rules: an error at a field the request leaves out — or sends as null where the field is
 * nullable (grade_level, academic_year_credits) — is an input to ask for: a required field (dependency_status,
 * terms, a term's label or credits), grade_level for an undergraduate, academic_year_credits for an undergraduate's
 * final period. An error at a value the request does give is a wrong value (the API's 422). The words come from
 * the field table (src/schema/fields.ts): the field's label as the page shows it, its allowed values, its
 * description, and the validator's own message.
 */
import type { FieldError } from '../errors.ts';
import { STUDENT_FIELDS, TERM_FIELDS, type RequestField } from '../schema/fields.ts';

export interface MissingInput {
  /** The field's path, as in the API's field errors (`terms[1].credits_enrolled`, `request.grade_level`). */
  field: string;
  /** Its name in words: `Credits enrolled`. */
  label: string;
  /** One sentence to ask from: `Spring: Credits enrolled is required.` */
  text: string;
  /** What the field means (the API's description of it). */
  about: string;
  /** The values it may take, for a field with a list of them. */
  allowed?: string[];
}

const TERM_PATH = /^terms\[(\d+)\]\.([a-z_]+)$/;
const PATH_PART = /([^.[\]]+)|\[(\d+)\]/g;

const BY_NAME = new Map<string, RequestField>(
  [...STUDENT_FIELDS, ...TERM_FIELDS].map((f) => [`${f.level}:${f.name}`, f]),
);

/** The row of the field table a path names (`grade_level`, `terms[1].credits_enrolled`). */
function rowOf(path: string): RequestField | undefined {
  const term = TERM_PATH.exec(path);
  return term === null ? BY_NAME.get(`student:${path}`) : BY_NAME.get(`term:${term[2]!}`);
}

/** The value at a field error's path (`terms[1].credits_enrolled`) in the request, or undefined. */
function valueAt(body: unknown, path: string): unknown {
  let value = body;
  for (const [, key, index] of path.matchAll(PATH_PART)) {
    if (typeof value !== 'object' || value === null) return undefined;
    const own = index === undefined ? key! : Number(index);
    value = Object.prototype.hasOwnProperty.call(value, own) ? (value as Record<string, unknown>)[own] : undefined;
  }
  return value;
}

/** True when `error` is at a field `body` leaves out (or sends as null where null means "not given"). */
export function isMissingInput(error: FieldError, body: unknown): boolean {
  const row = rowOf(error.field);
  if (row === undefined) return false;
  const value = valueAt(body, error.field);
  return value === undefined || (value === null && row.nullable);
}

const humanize = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replaceAll('_', ' ');

/** The term's own label when the request gives one, else its position in words. */
function termName(body: unknown, index: number): string {
  const label = valueAt(body, `terms[${index}].label`);
  return typeof label === 'string' && label.trim() !== '' ? label.trim() : `Term ${index + 1}`;
}

/**
 * The missing inputs among `errors` (field paths relative to `body`, the request), each with its words; `prefix` is
 * put before every path (`request.` when the request is one argument of a tool).
 */
export function missingInputs(errors: readonly FieldError[], body: unknown, prefix = ''): MissingInput[] {
  const out: MissingInput[] = [];
  for (const error of errors) {
    if (!isMissingInput(error, body)) continue;
    const term = TERM_PATH.exec(error.field);
    const row = rowOf(error.field)!;
    const label = row.page?.label ?? humanize(row.name);
    const where = term === null ? '' : `${termName(body, Number(term[1]))}: `;
    const allowed = row.type.kind === 'enum' ? [...row.type.values] : undefined;
    // A field required on a condition has the condition and its values in the validator's own message.
    const choices = allowed !== undefined && row.presence === 'required' ? ` (one of: ${allowed.join(', ')})` : '';
    out.push({
      field: `${prefix}${error.field}`,
      label,
      text: `${where}${label} ${error.message}${choices}.`,
      about: row.description,
      ...(allowed === undefined ? {} : { allowed }),
    });
  }
  return out;
}
