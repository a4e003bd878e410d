/**
 * check_school_figures: one student with the school's own figures (the shadow check's sis_* figures as JSON,
 * src/mcp/school-figures.ts) → match, mismatch or not_checked, each differing figure (the school's first, then the
 * rules'), and for a mismatch the first reading of the rules that reproduces the school's figures — the shadow
 * check of bulk files itself (src/bulk/shadow-check.ts), under the same school policy.
 */
import { z } from 'zod';
import { calculate } from '../../domain/calculate.ts';
import { CHECK_REASON_TEXT } from '../../domain/check-reasons.ts';
import { RULE_SET_ID } from '../../domain/rule-set.ts';
import { shadowCheck, type ShadowCheck } from '../../bulk/shadow-check.ts';
import { CalculationRequestSchema } from '../../schema/request.ts';
import { okAnswer, type ToolAnswer } from '../answers.ts';
import { argumentErrors } from '../argument-errors.ts';
import { toolInputSchema } from '../json-schema.ts';
import { readRequest } from '../request-input.ts';
import { SchoolFiguresSchema, readSchoolFigures } from '../school-figures.ts';
import type { ToolContext, ToolSpec } from './tool.ts';

/** The arguments' shape; `request` and `school_figures` are read by their own readers (the listed schema has theirs). */
const CheckArguments = z.strictObject({ request: z.unknown().optional(), school_figures: z.unknown().optional() });

/** The outcome in words. */
function explanation(check: ShadowCheck): string {
  if (check.status === 'not_checked') return 'No figure was given, so nothing was compared.';
  if (check.status === 'match') return 'Every figure given agrees with the rules.';
  if (check.reason === 'unexplained' || check.reason === null) {
    return `The figures differ (${check.detail}) and no known reading of the rules reproduces them: review this student by hand.`;
  }
  return `The figures differ (${check.detail}); they equal ours computed with ${CHECK_REASON_TEXT[check.reason]}.`;
}

function termCountOf(request: unknown): number | null {
  const terms = typeof request === 'object' && request !== null ? (request as { terms?: unknown }).terms : undefined;
  return Array.isArray(terms) ? terms.length : null;
}

function run(args: unknown, context: ToolContext): ToolAnswer {
  const given = (args ?? {}) as { request?: unknown; school_figures?: unknown };
  const errors = argumentErrors(CheckArguments, args);
  const figures =
    given.school_figures === undefined
      ? ({ ok: false, errors: [{ field: 'school_figures', message: 'is required: your system’s figures' }] } as const)
      : readSchoolFigures(given.school_figures, termCountOf(given.request), 'school_figures.');
  if (!figures.ok) errors.push(...figures.errors);
  // The figures' errors travel with the request's: a request read as valid means the figures were too.
  const read = readRequest(given.request, context.parseOptions, 'request.', errors);
  if (!read.ok) return read.answer;

  const result = calculate(read.input);
  const check = shadowCheck(read.input, result, figures.ok ? figures.figures : null);
  return okAnswer({
    rule_set: RULE_SET_ID,
    policy: { ...read.input.policy },
    check: {
      status: check.status,
      detail: check.detail,
      reason: check.reason,
      reason_text: check.reason === null ? null : CHECK_REASON_TEXT[check.reason],
      explanation: explanation(check),
    },
    result,
  });
}

export const CHECK_FIGURES_TOOL: ToolSpec = {
  name: 'check_school_figures',
  title: 'Check a school system’s figures',
  description:
    'Compares the figures a school’s own system (SIS or packaging) computed for one student with the rules: ' +
    'match, mismatch or not_checked, each differing figure (the school’s first), and for a mismatch the first ' +
    'known reason that reproduces the school’s figures exactly (the other distribution option, remainder dollars ' +
    'on the last term, an unrounded percentage, binary floating point…) — the shadow check of bulk files, for one ' +
    'student. `request` is the CalculationRequest; `school_figures` the sis_* figures (any of them; a figure left ' +
    'out is not compared). Missing inputs answer status "needs_input": ask the user, never guess.',
  inputSchema: toolInputSchema(
    CheckArguments.extend({ request: CalculationRequestSchema, school_figures: SchoolFiguresSchema }),
  ),
  run,
};
