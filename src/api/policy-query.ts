/**
 * A bulk file's school policy (rules.md §10) from its query parameters, on POST /v1/calculate/bulk and
 * POST /v1/jobs: one policy per file, `?policy.<option>=<value>` for any options of the one policy table
 * (src/domain/policy.ts). The file's policy is the deployment default (SOR_POLICY) with these options over it.
 *
 * An unknown option, a value outside the table or a repeated parameter is a 400 `validation_error` naming the
 * parameter (field_errors: `policy.<option>`), read from the query string alone: answered before any row of the
 * body is read, like the other upload parameters (src/api/upload-options.ts).
 */
import type { Request } from 'express';
import { appError, type FieldError } from '../errors.ts';
import {
  POLICY_OPTIONS,
  isPolicyValue,
  policyOption,
  resolvePolicy,
  type PolicyChoices,
  type SchoolPolicy,
} from '../domain/policy.ts';

/** The query parameters' prefix: `policy.proration_fraction=decimal_rounded`. */
export const POLICY_PARAMETER_PREFIX = 'policy.';

/** `policy.proration_fraction`, the name of an option's query parameter. */
export function policyParameter(option: string): string {
  return `${POLICY_PARAMETER_PREFIX}${option}`;
}

const shortened = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);

/**
 * The options a request's query gives (none: `{}`). Throws the AppError 400 UPLOAD_PARAMETER for the first bad
 * parameter, with every bad one in field_errors.
 */
export function queryPolicyChoices(req: Pick<Request, 'query'>): PolicyChoices {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const choices: Record<string, string> = {};
  const errors: { name: string; allowed: string; error: FieldError }[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (!name.startsWith(POLICY_PARAMETER_PREFIX)) continue;
    const option = name.slice(POLICY_PARAMETER_PREFIX.length);
    const spec = policyOption(option);
    const field = shortened(name);
    if (spec === undefined) {
      const allowed = POLICY_OPTIONS.map((o) => policyParameter(o.name)).join(', ');
      errors.push({
        name: JSON.stringify(field),
        allowed,
        error: { field, message: `is not a school-policy parameter (the parameters are: ${allowed})` },
      });
      continue;
    }
    const allowed = spec.values.join(', ');
    if (typeof value !== 'string') {
      errors.push({
        name: field,
        allowed: `${allowed} (one value: the parameter is given more than once)`,
        error: { field, message: `is given more than once; give it once, one of: ${allowed}` },
      });
      continue;
    }
    if (!isPolicyValue(spec.name, value)) {
      errors.push({
        name: field,
        allowed,
        error: { field, message: `must be one of: ${allowed} (got ${JSON.stringify(shortened(value))})` },
      });
      continue;
    }
    choices[option] = value;
  }
  const first = errors[0];
  if (first !== undefined) {
    throw appError(
      'UPLOAD_PARAMETER',
      { name: first.name, allowed: first.allowed },
      { fieldErrors: errors.map((e) => e.error) },
    );
  }
  return choices as PolicyChoices;
}

/** The file's policy: `base` (the deployment's SOR_POLICY) with the query's options over it. */
export function filePolicy(req: Pick<Request, 'query'>, base: SchoolPolicy | undefined): SchoolPolicy {
  return resolvePolicy(queryPolicyChoices(req), base);
}
