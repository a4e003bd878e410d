/**
 * What a tool answers, in one shape for every tool: `structuredContent` (the JSON an assistant reads) and the same
 * JSON as the text content, for clients that read only text. `status` says which answer it is:
 *
 *   ok           the calculation (or comparison, explanation, check) with its evidence
 *   needs_input  a required input is missing: `missing` lists each, in plain words, for the assistant to ask the
 *                user; nothing was calculated and nothing was assumed in its place
 *   invalid      the API's 422 envelope (`code`, `message`, `field_errors` with the same paths and messages as
 *                POST /v1/calculate), a tool error
 *   error        an internal error, the API's 500 envelope (never a stack or an internal message)
 */
import { AppError, errorEnvelope, type FieldError } from '../errors.ts';
import type { MissingInput } from './missing-inputs.ts';

export type ToolStatus = 'ok' | 'needs_input' | 'invalid' | 'error';

export interface ToolAnswer {
  status: ToolStatus;
  structured: Record<string, unknown>;
}

/** The MCP CallToolResult of an answer (needs_input is not an error: it is the tool asking for more). */
export interface ToolCallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

export function toCallResult(answer: ToolAnswer): ToolCallResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(answer.structured) }],
    structuredContent: answer.structured,
    isError: answer.status === 'invalid' || answer.status === 'error',
  };
}

export function okAnswer(payload: Record<string, unknown>): ToolAnswer {
  return { status: 'ok', structured: { status: 'ok', ...payload } };
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

export function needsInputAnswer(missing: readonly MissingInput[]): ToolAnswer {
  const n = missing.length;
  const message =
    `This needs ${n} more ${plural(n, 'input', 'inputs')} before anything can be calculated. Ask the user for ` +
    `${plural(n, 'it', 'them')}; do not guess or fill in a value: ${missing.map((m) => m.text).join(' ')}`;
  return { status: 'needs_input', structured: { status: 'needs_input', message, missing } };
}

/** The API's 422 envelope; `missing` too when some of the offending fields are simply absent. */
export function invalidAnswer(
  fieldErrors: readonly FieldError[],
  extra: { missing?: readonly MissingInput[]; valid_paths?: readonly string[] } = {},
): ToolAnswer {
  const envelope = errorEnvelope(AppError.validation(fieldErrors));
  const structured: Record<string, unknown> = { status: 'invalid', ...envelope };
  if (extra.missing !== undefined && extra.missing.length > 0) structured.missing = extra.missing;
  if (extra.valid_paths !== undefined) structured.valid_paths = extra.valid_paths;
  return { status: 'invalid', structured };
}

export function errorAnswer(cause: unknown): ToolAnswer {
  return { status: 'error', structured: { status: 'error', ...errorEnvelope(AppError.internal(cause)) } };
}
