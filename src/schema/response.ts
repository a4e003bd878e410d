/**
 * The response side of the v1 interface as zod 4 schemas: CalculationResult, TermResult, DisbursementOption, the
 * Error envelope, FieldValidationErrorBody and BulkResult. They are the single source of the OpenAPI response
 * schemas, and tests parse real responses with them.
 */
import { CHECK_POLICY_TEXT, checkReasonsProse } from '../domain/check-reasons.ts';
import 'zod-openapi';
import { z } from 'zod';
import { ERROR_CODES, EXTENDED_ERROR_CODES } from '../error-codes.ts';
import { CHECK_REASONS } from '../domain/readings.ts';

const wholeDollars = (description: string) => z.number().int().min(0).meta({ description });
const signedDollars = (description: string) => z.number().int().meta({ description });
const percent = (description: string) => z.number().int().min(0).max(100).meta({ description });

export const DisbursementOptionSchema = z
  .strictObject({
    subsidized: wholeDollars('Direct Subsidized dollars (whole dollars).'),
    unsubsidized: wholeDollars('Direct Unsubsidized dollars (whole dollars).'),
    grad_plus: wholeDollars('Grad PLUS dollars (whole dollars).'),
  })
  .meta({
    id: 'DisbursementOption',
    description: 'Amounts of the three loan kinds under one distribution option, in whole dollars.',
  });

export const ENROLLMENT_STATUSES = [
  'full_time',
  'three_quarter_time',
  'half_time',
  'less_than_half_time',
  'not_enrolled',
] as const;

export const TermResultSchema = z
  .strictObject({
    label: z.string().meta({ description: 'The term’s label, echoed from the request.' }),
    enrollment_status: z.enum(ENROLLMENT_STATUSES).meta({
      description:
        'From credits ÷ full_time_credits (credits = actual_final_credits when present, else credits_enrolled): ' +
        '≥ 1 full_time; ≥ 0.75 three_quarter_time; ≥ 0.5 half_time; > 0 less_than_half_time; 0 not_enrolled.',
    }),
    enrollment_intensity_pct: percent(
      'The term’s own credit ratio: min(100, round half up(100 × credits ÷ full_time_credits)). Not necessarily ' +
        'COD’s "Direct Loan Enrollment Intensity" field, which vendors describe as the student’s reduction ' +
        'percentage for the payment period: on this service’s reading, reduced_annual_pct of the calculation in ' +
        'force when that disbursement is made.',
    ),
    disbursement_pct: percent(
      'Share of the annual amount scheduled for this term: round half up(100 × weight ÷ Σ weights) over the ' +
        'eligible terms (proportional weights when both options are shown, equal weights otherwise); 0 when ' +
        'ineligible. Rounded per term, so the values need not sum to exactly 100.',
    ),
    adjustment_sub: signedDollars('Change in this term’s equal-option subsidized amount caused by credit changes.'),
    adjustment_unsub: signedDollars('Same, for unsubsidized.'),
    adjustment_grad_plus: signedDollars('Same, for Grad PLUS.'),
    adjustment_explanation: z
      .string()
      .meta({ description: 'One sentence explaining a non-zero adjustment; empty string otherwise.' }),
    adjustment_source_index: z
      .number()
      .int()
      .min(0)
      .nullable()
      .meta({
        description:
          '0-based index into terms of the credit change that caused a non-zero adjustment (the last change at or ' +
          'before this term, else the first after it); null when every adjustment is 0.',
      }),
    credits_enrolled: z
      .number()
      .min(0)
      .meta({ description: 'credits_enrolled echoed from the request as a normalised JSON number (24, not 24.0).' }),
    full_time_credits: z
      .number()
      .gt(0)
      .meta({ description: 'full_time_credits echoed from the request as a normalised JSON number.' }),
    equal: DisbursementOptionSchema,
    proportional: DisbursementOptionSchema.nullable().meta({
      description: 'Proportional option; null exactly when show_both_options is false.',
    }),
    final_term_overdisbursement: z.boolean().meta({
      description:
        'True only on the last term, when it is closed and prior disbursements of all terms exceed the revised ' +
        'annual amount for some loan type (no later disbursement is left to reduce).',
    }),
    warning: z.string().meta({ description: 'Plain-English warning for this term; empty string when none.' }),
  })
  .meta({ id: 'TermResult', description: 'Per-term result. Every field is always present.' });

export const CalculationResultSchema = z
  .strictObject({
    annual_ft_credits: z
      .number()
      .gt(0)
      .meta({ description: 'Σ full_time_credits over the request’s terms, as a normalised JSON number.' }),
    reduced_annual_pct: percent(
      'min(100, round half up(100 × Σ credits ÷ annual_ft_credits)): the Schedule of Reductions percentage; 100 ' +
        'under the final-period proration (rules §2.3), which replaces the reduction. On this service’s reading, ' +
        'the value for COD’s "Direct Loan Enrollment Intensity" at a disbursement is this percentage of the ' +
        'calculation in force then.',
    ),
    annual_basic_eligibility_sub: wholeDollars('round half up(subsidized base × reduced_annual_pct ÷ 100).'),
    annual_basic_eligibility_unsub: wholeDollars('round half up(unsubsidized base × reduced_annual_pct ÷ 100).'),
    annual_basic_eligibility_grad_plus: wholeDollars(
      'Grad PLUS sized after the reduction: min(round half up(Grad PLUS base × reduced_annual_pct ÷ 100), ' +
        'floor(Grad PLUS base)), where Grad PLUS base = max(0, cost_of_attendance − the reduced subsidized and ' +
        'unsubsidized amounts), at most total_limit − the subsidized and unsubsidized starting amounts.',
    ),
    show_both_options: z.boolean().meta({
      description: 'True when reduced_annual_pct < 100 and at least two terms (open or closed) are eligible.',
    }),
    terms: z.array(TermResultSchema).meta({ description: 'One TermResult per request term, in request order.' }),
    total_equal: DisbursementOptionSchema.meta({
      description: 'Sum over all terms of the equal option, prior disbursements included.',
    }),
    total_proportional: DisbursementOptionSchema.meta({
      description:
        'Sum over all terms of the proportional option (equals total_equal when show_both_options is false).',
    }),
    warnings: z
      .array(z.string())
      .meta({ description: 'Plain-English sentences an aid officer can paste into the student’s file.' }),
  })
  .meta({ id: 'CalculationResult', description: 'Prorated loan limits for one student.' });

export const ErrorCodeSchema = z.enum(ERROR_CODES).meta({
  id: 'ErrorCode',
  description:
    'invalid_json, unsupported_media_type, validation_error and internal_error describe current failures. ' +
    'unauthenticated (401), invalid_token (401), expired_token (403), revoked_token (403) and quota_exceeded (429) ' +
    'are RESERVED for the planned authentication and rate limiting: no endpoint returns them while the API is open.',
});

export const ErrorSchema = z
  .strictObject({
    code: ErrorCodeSchema,
    message: z.string().meta({ description: 'Human-readable text. Never contains a stack trace.' }),
  })
  .meta({ id: 'Error', description: 'Standard v1 error envelope.' });

export const FieldErrorSchema = z
  .strictObject({
    field: z.string().meta({
      description:
        'Path of the offending field, e.g. `terms[1].credits_enrolled` (term-count errors at `terms`); a CSV ' +
        'column name in bulk results.',
    }),
    message: z.string(),
  })
  .meta({ id: 'FieldError' });

export const FieldValidationErrorBodySchema = z
  .strictObject({
    code: z.literal('validation_error'),
    message: z.string(),
    field_errors: z.array(FieldErrorSchema).min(1).meta({
      description:
        'Every offending field (at most 100 are listed; the message gives the full count when the list is cut).',
    }),
  })
  .meta({ id: 'FieldValidationErrorBody', description: 'A 422 naming every offending field by path.' });

/** Envelope for paths outside the interface’s own endpoints (unknown routes, wrong methods, async jobs). */
export const ExtendedErrorSchema = z
  .strictObject({
    code: z.enum([...ERROR_CODES, ...EXTENDED_ERROR_CODES]),
    message: z.string(),
  })
  .meta({
    id: 'ExtendedError',
    description: 'Error envelope of the operational and async-job paths; the same shape as Error with extra codes.',
  });

const CHECK_REASON_TEXT = `${checkReasonsProse()}. ${CHECK_POLICY_TEXT}`;

export const CheckReasonSchema = z.enum(CHECK_REASONS).meta({
  id: 'CheckReason',
  description: `Why a school's figures differ, the first in this order that reproduces them exactly. ${CHECK_REASON_TEXT}`,
});

export const ShadowCheckSchema = z
  .strictObject({
    status: z.enum(['match', 'mismatch', 'not_checked']).meta({
      description: 'mismatch: some sis_* figure differs from the rules; not_checked: every sis_* figure cell is empty.',
    }),
    detail: z.string().meta({
      description:
        'Each differing field under the rules, the school’s figure first (`pct 62.5 ≠ 63; Fall: sub 1102 ≠ 1103`); ' +
        'empty unless mismatch.',
    }),
    reason: CheckReasonSchema.nullable().meta({ description: 'null unless mismatch.' }),
  })
  .meta({
    id: 'ShadowCheck',
    description:
      'The shadow check of one student: the school system’s figures (sis_* columns) against the rules. Present ' +
      'only when the file has sis_* columns.',
  });

export const CheckSummarySchema = z
  .strictObject({
    checked: z.int().min(0).meta({ description: 'Students compared (match + mismatch).' }),
    match: z.int().min(0),
    mismatch: z.int().min(0),
    not_checked: z.int().min(0).meta({
      description: 'Calculated students with every sis_* figure empty; students with errors are not counted.',
    }),
    by_reason: z
      .strictObject(
        Object.fromEntries(CHECK_REASONS.map((r) => [r, z.int().min(0)])) as Record<
          (typeof CHECK_REASONS)[number],
          z.ZodInt
        >,
      )
      .meta({ description: `Mismatched students by check_reason (every reason listed). ${CHECK_REASON_TEXT}` }),
  })
  .meta({
    id: 'CheckSummary',
    description:
      'The shadow check’s counts, by student: present only when the file has sis_* columns (counted as the ' +
      'result is written, so it grows while the job runs).',
  });

export const BulkResultSchema = z
  .union([
    z.strictObject({
      student_id: z.string(),
      error: z.null(),
      result: CalculationResultSchema,
      check: ShadowCheckSchema.optional(),
    }),
    z.strictObject({
      student_id: z.string(),
      error: z.union([FieldValidationErrorBodySchema, ErrorSchema]),
      result: z.null(),
      check: z
        .null()
        .optional()
        .meta({ description: 'null (students with errors are not checked) with sis_* columns.' }),
    }),
  ])
  .meta({
    id: 'BulkResult',
    description:
      'One student of a bulk file (application/x-ndjson output, one per line): exactly one of `error` (the v1 ' +
      'error envelope; field errors name CSV columns) and `result` is non-null. student_id is kept verbatim.',
  });

export type WireError = z.output<typeof ErrorSchema>;
export type WireFieldValidationErrorBody = z.output<typeof FieldValidationErrorBodySchema>;
