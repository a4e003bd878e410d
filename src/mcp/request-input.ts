/**
 * A tool's CalculationRequest, read by the API's own validator (parseCalculationRequest: the same rules, paths and
 * messages as POST /v1/calculate, the deployment's SOR_POLICY under the request's own policy):
 *
 *  - valid: the canonical input, and the defaults the request relied on, said out loud (`defaults_applied`);
 *  - only required inputs missing: needs_input, nothing calculated;
 *  - anything else: the API's 422 envelope (and the missing inputs beside it).
 */
import type { FieldError } from '../errors.ts';
import type { CalculationInput } from '../domain/types.ts';
import { STUDENT_FIELDS, type RequestField } from '../schema/fields.ts';
import { parseCalculationRequest, type ParseOptions } from '../schema/request.ts';
import { invalidAnswer, needsInputAnswer, type ToolAnswer } from './answers.ts';
import { isMissingInput, missingInputs } from './missing-inputs.ts';

/** A default the calculation used because the request left the field out. */
export interface AppliedDefault {
  field: string;
  value: unknown;
  text: string;
}

/**
 * The fields whose default is a choice about the student or the rules rather than "none" or "no": an enum with a
 * default (degree_level), the school policy and the award year. Left out, each is named in the answer. (Nullable
 * fields default to "not given", booleans to "no": those are what leaving them out means.)
 */
const TOLD_DEFAULTS = (STUDENT_FIELDS as readonly RequestField[]).filter(
  (f) =>
    f.presence === 'default' &&
    ((f.type.kind === 'enum' && f.default !== null) || f.type.kind === 'policy' || f.type.kind === 'award_year'),
);

/** The defaults `input` took for the fields `body` (the request as sent) leaves out; paths under `prefix`. */
export function appliedDefaults(
  body: Record<string, unknown>,
  input: CalculationInput,
  prefix: string,
): AppliedDefault[] {
  const out: AppliedDefault[] = [];
  for (const field of TOLD_DEFAULTS) {
    if (Object.prototype.hasOwnProperty.call(body, field.name)) continue;
    const value = input[field.name as keyof CalculationInput];
    const label = field.page?.label ?? field.name;
    const text =
      field.type.kind === 'policy'
        ? 'No school policy was given: the deployment’s default policy was used (every option is listed in `policy`).'
        : field.type.kind === 'award_year'
          ? `No award year was given: ${String(value)}, the award year in force today, was used.`
          : `${label} was not given: ${String(value)} was used (the API’s default).`;
    out.push({ field: `${prefix}${field.name}`, value, text });
  }
  return out;
}

export type RequestRead =
  { ok: true; input: CalculationInput; defaults: AppliedDefault[] } | { ok: false; answer: ToolAnswer };

/** The validator's paths under `prefix`; its `body` (the request itself) is the argument's own name. */
const prefixed = (errors: readonly FieldError[], prefix: string): FieldError[] =>
  errors.map((e) => ({
    field: prefix !== '' && e.field === 'body' ? prefix.slice(0, -1) : `${prefix}${e.field}`,
    message: e.message,
  }));

/**
 * Reads `body` as a CalculationRequest; `prefix` names where it sits in the tool's arguments (`request.`, with its
 * dot; '' when the arguments are the request), and `extraErrors` are the other arguments' errors, reported with
 * the request's.
 */
export function readRequest(
  body: unknown,
  options: ParseOptions,
  prefix = '',
  extraErrors: readonly FieldError[] = [],
): RequestRead {
  if (body === undefined && prefix !== '') {
    const absent = { field: prefix.slice(0, -1), message: 'is required: the student’s CalculationRequest' };
    return { ok: false, answer: invalidAnswer([absent, ...extraErrors]) };
  }
  const parsed = parseCalculationRequest(body, options);
  const errors = parsed.ok ? [...extraErrors] : [...prefixed(parsed.fieldErrors, prefix), ...extraErrors];
  if (errors.length === 0 && parsed.ok) {
    return {
      ok: true,
      input: parsed.value,
      defaults: appliedDefaults(body as Record<string, unknown>, parsed.value, prefix),
    };
  }
  return { ok: false, answer: failureAnswer(errors, { errors: parsed.ok ? [] : parsed.fieldErrors, body, prefix }) };
}

/**
 * The answer to a call that did not validate: `all` is every field error in the order the API lists them; `request`
 * the request's own errors (paths relative to it), its body and its place. Only when every error is an input the
 * request leaves out is it needs_input; an error of the other arguments (the assistant's own: a result path, the
 * school's figures, the scenarios) or a wrong value makes it invalid — with the missing inputs listed beside.
 */
export function failureAnswer(
  all: readonly FieldError[],
  request: { errors: readonly FieldError[]; body: unknown; prefix: string },
): ToolAnswer {
  const missing = missingInputs(request.errors, request.body, request.prefix);
  const needsInput =
    all.length === request.errors.length && request.errors.every((e) => isMissingInput(e, request.body));
  return needsInput ? needsInputAnswer(missing) : invalidAnswer(all, { missing });
}
