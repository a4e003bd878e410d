/**
 * check_school_figures' `school_figures`: the shadow check's sis_* figures (docs/shadow-check.md) as JSON, under the
 * CSV columns' own names — `sis_reduced_annual_pct` and `sis_option` for the student, `sis_sub`, `sis_unsub` and
 * `sis_grad_plus` per term — read into the SisFigures the shadow check compares (src/bulk/shadow-check.ts). As in
 * a file, a figure left out is not compared, amounts are dollars (`1103` and `"1103.00"` are the same) and the
 * percentage is compared at the school's own precision.
 */
import 'zod-openapi';
import { z } from 'zod';
import type { FieldError } from '../errors.ts';
import { issueErrors } from './argument-errors.ts';
import { SIS_STUDENT_COLUMNS, SIS_TERM_COLUMNS } from '../bulk/csv-layout.ts';
import { SIS_LOANS, type SisFigures } from '../bulk/sis-figures.ts';
import {
  DECIMAL_PATTERN,
  MAX_DECIMAL_STRING_LENGTH,
  MAX_MONEY,
  MESSAGES,
  MONEY,
  toCanonicalDecimal,
} from '../schema/decimal.ts';

const [PCT, OPTION] = SIS_STUDENT_COLUMNS;
const TERM_COLUMN = { sub: SIS_TERM_COLUMNS[0], unsub: SIS_TERM_COLUMNS[1], grad_plus: SIS_TERM_COLUMNS[2] } as const;
const OPTIONS = ['equal', 'proportional'] as const;
const PERCENT_MAX = 100;
const boundMessage = (max: number) => (max === PERCENT_MAX ? 'must be a percentage from 0 to 100' : MESSAGES.maxMoney);

/** A dollar or percent figure: a JSON number or a decimal string, canonical out, bounded by `max`. */
function figure(max: number, description: string) {
  return z
    .union([z.number(), z.string()], { error: 'must be a number or a decimal string' })
    .transform((value, ctx) => {
      const outcome = toCanonicalDecimal(value, MONEY);
      if (outcome.ok && Number(outcome.value) <= max) return outcome.value;
      // Read with the money rules (as the CSV reader does), then held to the figure's own bound.
      const message = outcome.ok || outcome.message === MESSAGES.maxMoney ? boundMessage(max) : outcome.message;
      ctx.issues.push({ code: 'custom', message, input: value });
      return z.NEVER;
    })
    .optional()
    .meta({
      override: {
        description,
        anyOf: [
          { type: 'number', minimum: 0, maximum: max },
          { type: 'string', pattern: DECIMAL_PATTERN, maxLength: MAX_DECIMAL_STRING_LENGTH },
        ],
      },
    });
}

const dollars = (loan: string) =>
  figure(MAX_MONEY, `Your system's ${loan} amount for this term, in dollars (left out: not compared).`);

const TermFiguresSchema = z.strictObject({
  [TERM_COLUMN.sub]: dollars('Direct Subsidized'),
  [TERM_COLUMN.unsub]: dollars('Direct Unsubsidized'),
  [TERM_COLUMN.grad_plus]: dollars('Grad PLUS'),
});

export const SchoolFiguresSchema = z
  .strictObject({
    [PCT]: figure(
      PERCENT_MAX,
      "Your system's annual percentage, compared at its own precision (62.5 agrees with 62.5, 91.67 with 91.666…).",
    ),
    [OPTION]: z
      .enum(OPTIONS, { error: `must be one of: ${OPTIONS.join(', ')}` })
      .optional()
      .meta({ description: 'Which option your term amounts follow: equal (the default) or proportional.' }),
    terms: z.array(TermFiguresSchema, { error: 'must be an array of term figures' }).optional().meta({
      description: 'One entry per term of the request, in the same order (an empty object for a term without figures).',
    }),
  })
  .meta({
    description:
      'The figures of your own system (SIS or packaging) for this student, named as the shadow check’s sis_* ' +
      'columns; a figure left out is not compared.',
  });

type TermFigures = Partial<Record<(typeof SIS_TERM_COLUMNS)[number], string>>;

/**
 * The school's figures for a request of `termCount` terms, or the errors at their paths under `prefix`. Null
 * figures: nothing given to compare (the check is then `not_checked`).
 */
export function readSchoolFigures(
  value: unknown,
  termCount: number | null,
  prefix: string,
): { ok: true; figures: SisFigures | null } | { ok: false; errors: FieldError[] } {
  const parsed = SchoolFiguresSchema.safeParse(value);
  if (!parsed.success) {
    const errors = issueErrors(parsed.error.issues, prefix);
    return { ok: false, errors };
  }
  const data = parsed.data;
  const terms = (data.terms ?? []) as TermFigures[];
  if (termCount !== null && data.terms !== undefined && terms.length !== termCount) {
    const message = `must list one entry per term of the request (${termCount}), in its order; {} for a term without figures`;
    return { ok: false, errors: [{ field: `${prefix}terms`, message }] };
  }
  const percent = (data[PCT] as string | undefined) ?? null;
  const termFigures = Array.from({ length: termCount ?? terms.length }, (_, i) => {
    const given = terms[i] ?? {};
    const out = { sub: null, unsub: null, grad_plus: null } as SisFigures['terms'][number];
    for (const loan of SIS_LOANS) out[loan] = given[TERM_COLUMN[loan]] ?? null;
    return out;
  });
  const any = percent !== null || termFigures.some((t) => SIS_LOANS.some((loan) => t[loan] !== null));
  const option = (data[OPTION] as (typeof OPTIONS)[number] | undefined) ?? 'equal';
  return { ok: true, figures: any ? { option, percent, terms: termFigures } : null };
}
