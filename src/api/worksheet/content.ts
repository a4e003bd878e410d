/**
 * What a worksheet shows, once, for both renderers (html.ts and pdf.ts). Page 1 is the summary
 * (src/domain/summary.ts): the student, the award year, the rule set and the school policy, the percentage with its
 * arithmetic, each annual amount with its citation, the schedule per term under both options, the adjustments and
 * warnings, and the lines to sign. The appendices follow (appendix.ts): the inputs, every step, the sources. Values
 * are plain text here; each renderer escapes or encodes them its own way.
 */
import { Dec } from '../../domain/decimal.ts';
import { POLICY_OPTIONS, type PolicyOptionName, type SchoolPolicy } from '../../domain/policy.ts';
import type { SummaryLoan, SummaryStudent, WorksheetSummary } from '../../domain/summary.ts';
import type { TraceStep } from '../../domain/trace.ts';
import type { CalculationInput, CalculationResult } from '../../domain/types.ts';
import { formatDollars } from '../../domain/warning-text.ts';

export interface WorksheetDocument {
  ruleSet: string;
  /** When the worksheet was made (the only part that differs between two identical requests). */
  generatedAt: Date;
  requestId: string;
  input: CalculationInput;
  /** Page 1 (src/domain/summary.ts), with the student the worksheet is for. */
  summary: WorksheetSummary;
  result: CalculationResult;
  steps: readonly TraceStep[];
}

export const WORKSHEET_TITLE = 'Schedule of Reductions worksheet';

/**
 * The Unicode bidirectional-control characters: embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069),
 * the left-to-right and right-to-left marks (U+200E, U+200F) and the Arabic letter mark (U+061C). In a student id
 * or a term label they reorder what a reader sees (a right-to-left override shows "1234" as "4321").
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/**
 * `text` with each bidirectional-control character shown as a visible, inert escape (‹U+202E›), for the HTML and
 * PDF worksheets; the JSON worksheet keeps the text byte for byte.
 */
export function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, (ch) => `‹U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}›`);
}

/** 2026-11-23 23:10:05 UTC */
export function formatDate(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** $1,103 */
export function dollars(amount: number): string {
  return formatDollars(new Dec(amount));
}

/** The JSON worksheet's `policy`: option → value in force, in the table's order. */
export function wirePolicy(policy: SchoolPolicy): Record<PolicyOptionName, string> {
  return Object.fromEntries(POLICY_OPTIONS.map((o) => [o.name, policy[o.name]])) as Record<PolicyOptionName, string>;
}

/** The student's two lines on page 1: what the request gave, else a blank to fill in by hand. */
export function studentFields(student: SummaryStudent | null): [string, string][] {
  return [
    ['Student', student?.name ?? ''],
    ['Student ID', student?.id ?? ''],
  ];
}

/** "Award year 2026-27", "Rule set 2026-27.3", the date and the request id: the worksheet's identity. */
export function metaFields(doc: WorksheetDocument): [string, string][] {
  return [
    ['Award year', doc.summary.award_year],
    ['Rule set', doc.ruleSet],
    ['Prepared', formatDate(doc.generatedAt)],
    ['Request id', doc.requestId],
  ];
}

/** One option of the school policy on page 1: its name, the value in force in words, default or the school's. */
export interface PolicyLine {
  option: PolicyOptionName;
  label: string;
  value: string;
  note: string;
}

export const SERVICE_DEFAULT = 'service default';

/**
 * Page 1's school policy: the options the school set apart from the service default, and one sentence for the
 * others (Appendix A lists every option).
 */
export function policyOnPage1(summary: WorksheetSummary): { chosen: PolicyLine[]; rest: string } {
  const chosen = policyLines(summary).filter((p) => p.note !== SERVICE_DEFAULT);
  return {
    chosen,
    rest:
      chosen.length === 0
        ? 'Every option at the service default (listed in Appendix A).'
        : 'Every other option at the service default (listed in Appendix A).',
  };
}

export function policyLines(summary: WorksheetSummary): PolicyLine[] {
  return summary.policy.map((p) => ({
    option: p.option,
    label: p.label,
    value: p.value_label,
    note: p.is_default ? SERVICE_DEFAULT : `school’s choice; the default: ${p.default_label}`,
  }));
}

/** The loans the schedule shows: Grad PLUS only for a student who can have it. */
export function scheduleLoans(summary: WorksheetSummary): SummaryLoan[] {
  return summary.annual.map((a) => a.loan);
}

/**
 * The schedule's term and status columns, in percent of the width, for `amounts` amount columns: narrower with six
 * (so that "Unsubsidized" fits its column), wider with fewer (the status cell holds the term's notes).
 */
export function scheduleShares(amounts: number): [number, number] {
  return amounts > 4 ? [11, 17] : [12, 24];
}

export const LOAN_SHORT: Readonly<Record<SummaryLoan, string>> = {
  subsidized: 'Subsidized',
  unsubsidized: 'Unsubsidized',
  grad_plus: 'Grad PLUS',
};

/** The citations of the annual amounts, each once. */
export function annualCitations(summary: WorksheetSummary): string[] {
  return [...new Set(summary.annual.map((a) => a.citation))];
}

/** The lines to sign at the end of page 1. */
export const SIGNATURES = ['Prepared by', 'Reviewed by'] as const;

export const NONE = 'None.';
