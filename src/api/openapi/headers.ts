/**
 * The headers and the error answer that every path of the OpenAPI document shares (document.ts, bulk-path.ts,
 * worksheet-path.ts): X-Request-Id on every response and request, X-Rule-Set on the calculation paths' answers
 * (rules.md §8a), and the Error envelope of a refusal.
 */
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import { z } from 'zod';
import { RULE_SET_ID } from '../../domain/rule-set.ts';
import { ErrorSchema } from '../../schema/response.ts';

const RequestIdHeader = z.string().meta({
  description:
    'The request’s id: the client’s X-Request-Id (sanitised to at most 128 safe characters) or a generated UUID. ' +
    'Present on every response.',
  example: '3f1f6c1e-2b9e-4d55-9c55-0d5f3bd0b8a1',
  header: { id: 'X-Request-Id' },
});

/** The headers of every response. */
export const responseHeaders = z.object({ 'X-Request-Id': RequestIdHeader });

const RuleSetHeader = z.string().meta({
  description:
    'The rule set that made this calculation (rules and readings of the Schedule of Reductions, bumped whenever ' +
    'one changes). On every response of the calculation paths.',
  example: RULE_SET_ID,
  header: { id: 'X-Rule-Set' },
});

/** Headers of a calculation response (rules.md §8a). */
export const calculationHeaders = responseHeaders.extend({ 'X-Rule-Set': RuleSetHeader });

const RequestIdParam = z
  .string()
  .optional()
  .meta({
    description:
      'Optional correlation id, echoed in the X-Request-Id response header (unsafe characters removed, at most 128 ' +
      'kept); generated when absent.',
  });

// Authorization and Accept are not declared as header parameters: OpenAPI ignores parameters with those names.
// Authorization is covered by the (not enforced) bearerAuth scheme; Accept by the operation descriptions.
export const commonRequestHeaders = z.object({ 'X-Request-Id': RequestIdParam });

/** A JSON error answer (the Error envelope) with its examples. */
export function errorResponse(
  description: string,
  examples: Record<string, { value: unknown; summary?: string }>,
): ZodOpenApiResponseObject {
  return {
    description,
    headers: responseHeaders,
    content: { 'application/json': { schema: ErrorSchema, examples } },
  };
}
