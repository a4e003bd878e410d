/**
 * The field errors of a tool's own arguments (beside its CalculationRequest), worded as the request validator words
 * its own (src/schema/request.ts): an unknown key "is not an allowed field", anything else zod's message, at the
 * argument's path.
 */
import type { z } from 'zod';
import type { FieldError } from '../errors.ts';
import { formatPath } from '../schema/request.ts';

export function issueErrors(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldError[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          field: prefix + formatPath([...issue.path, key]),
          message: 'is not an allowed field',
        }))
      : [{ field: prefix + formatPath(issue.path), message: issue.message }],
  );
}

/** The errors of `args` against a tool's argument schema (its request argument is checked apart). */
export function argumentErrors(schema: z.ZodType, args: unknown): FieldError[] {
  const parsed = schema.safeParse(args ?? {});
  return parsed.success ? [] : issueErrors(parsed.error.issues);
}
