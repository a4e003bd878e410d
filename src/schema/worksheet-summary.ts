/**
 * The schema of the worksheet's summary (src/domain/summary.ts): `summary` of the JSON worksheet, the source of
 * its OpenAPI schema; tests parse real responses with it. The summary is page 1 of the HTML and PDF worksheets.
 * Its example (worksheet-summary-example.json) is FSA example 1 for a named student.
 */
import 'zod-openapi';
import { z } from 'zod';
import { POLICY_OPTION_NAMES } from '../domain/policy.ts';
import type { WorksheetSummary } from '../domain/summary.ts';
import { DisbursementOptionSchema } from './response.ts';
import SUMMARY_EXAMPLE from './worksheet-summary-example.json' with { type: 'json' };

const LOANS = ['subsidized', 'unsubsidized', 'grad_plus'] as const;
const text = (description: string) => z.string().meta({ description });
const dollars = (description: string) => z.number().min(0).meta({ description });
const percent = (description: string) => z.number().int().min(0).max(100).meta({ description });

export const SummaryStudentSchema = z
  .strictObject({
    name: z
      .string()
      .nullable()
      .meta({ description: 'The student’s name as the request gave it; null when not given.' }),
    id: z.string().nullable().meta({ description: 'The student’s id as the request gave it; null when not given.' }),
  })
  .nullable()
  .meta({
    description:
      'Who the worksheet is for, from the request’s `student`; null when the request names no student. Never ' +
      'stored or logged.',
  });

const PolicyOptionSummarySchema = z.strictObject({
  option: z.enum(POLICY_OPTION_NAMES as unknown as readonly [string, ...string[]]).meta({
    description: 'The option, as the request’s `policy` names it.',
  }),
  label: text('The option in words: "Final-period proration fraction".'),
  value: text('The value in force, as the API spells it ("exact").'),
  value_label: text('The value in force in words ("the exact fraction").'),
  is_default: z.boolean().meta({ description: 'True when the value is the service’s default.' }),
  default_label: text('The service’s default value in words.'),
  text: text('One sentence for the page: the value in force, and the default when the school chose another.'),
});

const ProratedLimitSchema = z.strictObject({
  limit: z.enum(['subsidized', 'combined']).meta({ description: 'Which limit: subsidized, or combined.' }),
  label: text('The limit in words.'),
  statutory: dollars('The statutory annual limit.'),
  prorated: dollars('The prorated limit (whole dollars).'),
  arithmetic: text('The limit times the fraction, with its rounding: "… × 8 ÷ 24 ≈ $1,833.33 → $1,833".'),
});

const PercentageSummarySchema = z.strictObject({
  pct: percent('The academic-year percentage (reduced_annual_pct of the result).'),
  kind: z.enum(['reduction', 'full_time', 'final_period']).meta({
    description:
      '`reduction`: below 100%; `full_time`: 100%, no reduction; `final_period`: a final period shorter than an ' +
      'academic year, whose limits are prorated instead (the percentage is then 100).',
  }),
  arithmetic: text(
    'The arithmetic in figures: "(6 + 9) ÷ 24 = 62.5% → 63%"; for a final period, the fraction ' +
      '("8 ÷ 24 ≈ 0.3333 (used as the exact fraction)", "12 ÷ 36 ≈ 0.3333 → 0.33 (rounded to 2 places)").',
  ),
  text: text('What the percentage means for this student, in sentences.'),
  citation: text('The short legal citation ("HEA §455(a); 34 CFR 685.203(m)(1)").'),
  limits: z.array(ProratedLimitSchema).meta({ description: 'The prorated limits of a final period; empty otherwise.' }),
});

const AnnualSummarySchema = z.strictObject({
  loan: z.enum(LOANS).meta({ description: 'The loan, as DisbursementOption names it.' }),
  label: text('"Direct Subsidized".'),
  base: dollars('The starting amount the percentage applies to, after the limits and caps.'),
  pct: percent('The percentage applied.'),
  amount: dollars('The annual amount (the result’s annual_basic_eligibility_*).'),
  arithmetic: text('"$2,000 × 92% = $1,840" (a rounding shown as "= $14,827.80 → $14,828").'),
  basis: text('Where the starting amount comes from: the eligibility, the limit, the caps that lowered it.'),
  citation: text('The short legal citation.'),
});

const TermSummarySchema = z.strictObject({
  label: text('The term’s label, as the request gave it.'),
  status: text('The enrollment status in words ("Half time").'),
  intensity_pct: percent('The term’s enrollment intensity.'),
  credits: text('"6 of 12 credits", or "6 of 12 credits (final; enrolled 9)".'),
  paid_before: z.boolean().meta({
    description: 'Money was paid for the term: its amounts are what was paid, kept under both options.',
  }),
  equal: DisbursementOptionSchema,
  proportional: DisbursementOptionSchema.nullable().meta({
    description: 'The proportional option; null when it is not offered.',
  }),
  note: text('What else to know about the term; empty when nothing.'),
});

export const WorksheetSummarySchema = z
  .strictObject({
    student: SummaryStudentSchema,
    award_year: text('The award year of the calculation ("2026-27").'),
    rule_set: text('The rule set that made the calculation ("2026-27.3").'),
    policy: z.array(PolicyOptionSummarySchema).meta({
      description: 'Every option of the school policy in force, in the policy table’s order.',
    }),
    percentage: PercentageSummarySchema,
    annual: z.array(AnnualSummarySchema).meta({
      description: 'Subsidized and unsubsidized; Grad PLUS for graduate and professional students.',
    }),
    options: text('Which disbursement options the school may use, and why.'),
    schedule: z.array(TermSummarySchema).meta({ description: 'Each term under both options.' }),
    totals: z.strictObject({
      equal: DisbursementOptionSchema,
      proportional: DisbursementOptionSchema.nullable().meta({ description: 'Null when not offered.' }),
    }),
    adjustments: z.array(z.string()).meta({ description: '"Spring: …": each adjusted term, in words.' }),
    warnings: z.array(z.string()).meta({ description: 'The result’s warnings, in the aid office’s words.' }),
  })
  .meta({
    id: 'WorksheetSummary',
    // FSA example 1 for a named student (test/schema/worksheet-summary.test.ts: the engine's summary of it).
    example: SUMMARY_EXAMPLE,
    description:
      'Page 1 of the worksheet: what an auditor reads in a minute. The percentage with its arithmetic, each annual ' +
      'amount as starting amount × percentage = amount with its citation, the schedule per term under both options, ' +
      'the totals, adjustments and warnings. Every text is written for an aid office: no API field names.',
  });

/** The domain's summary satisfies the wire schema (checked when compiling). */
export type WireWorksheetSummary = z.output<typeof WorksheetSummarySchema>;
const _sameShape: (s: WorksheetSummary) => WireWorksheetSummary = (s) => s;
void _sameShape;
