/**
 * What a worksheet shows, once, for both renderers (html.ts and pdf.ts): the student's inputs, the school policy in
 * force (every option of the policy table, src/domain/policy.ts), the results table
 * (both options side by side, adjustments), the explanations, the warnings and the steps, with the rule set, the
 * date and the request id. Values are plain text here; each renderer escapes or encodes them its own way.
 */
import { POLICY_OPTIONS, type PolicyOptionName, type SchoolPolicy } from '../../domain/policy.ts';
import type { WorksheetSummary } from '../../domain/summary.ts';
import type { TraceStep } from '../../domain/trace.ts';
import type { CalculationInput, CalculationResult, TermResult } from '../../domain/types.ts';
import { TERM_FIELDS, type TermFieldName } from '../../schema/fields.ts';

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

/** "Student: Ana Díaz (ID A00123456)", or with whichever of the two the request gave. */
export function studentLine(student: { name: string | null; id: string | null }): string {
  if (student.name !== null && student.id !== null) return `Student: ${student.name} (ID ${student.id})`;
  return student.name !== null ? `Student: ${student.name}` : `Student ID: ${student.id ?? ''}`;
}

/** 2026-11-23 23:10:05 UTC */
export function formatDate(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.map(formatValue).join(', ');
  return String(value);
}

/**
 * The student-level fields of the request, as [field, value], in the request's own order (every field of
 * CalculationInput but the terms, listed below, and the policy, which has its own section).
 */
export function studentRows(input: CalculationInput): [string, string][] {
  return (Object.keys(input) as (keyof CalculationInput)[])
    .filter((f) => f !== 'terms' && f !== 'policy')
    .map((f) => [f, formatValue(input[f])]);
}

/** One school-policy option as the worksheet lists it (rules.md §10). */
export interface PolicyRow {
  option: PolicyOptionName;
  /** The value the calculation used. */
  value: string;
  /** The option's default (the service's reading). */
  defaultValue: string;
  isDefault: boolean;
  /** What the option changes, in one sentence. */
  summary: string;
  section: string;
  citation: string;
}

/** Every option of the policy table, in its order, with the value in force: derived, never listed by hand. */
export function policyRows(policy: SchoolPolicy): PolicyRow[] {
  return POLICY_OPTIONS.map((o) => ({
    option: o.name,
    value: policy[o.name],
    defaultValue: o.values[0],
    isDefault: policy[o.name] === o.values[0],
    summary: o.summary,
    section: o.section,
    citation: o.citation,
  }));
}

/** The JSON worksheet's `policy`: option → value in force, in the table's order. */
export function wirePolicy(policy: SchoolPolicy): Record<PolicyOptionName, string> {
  return Object.fromEntries(POLICY_OPTIONS.map((o) => [o.name, policy[o.name]])) as Record<PolicyOptionName, string>;
}

/** The school-policy table's columns: option, value in force, defaultText, what it changes (summary and source). */
export const POLICY_HEADERS = ['Option', 'In force', 'Default', 'What it changes'] as const;

/** What the policy table's last column says of an option: its summary, rules.md section and citation. */
export function policyNote(row: PolicyRow): string {
  return `${row.summary} (${row.section}; ${row.citation})`;
}

/** "default" or "not the default (default: exact)". */
export function defaultText(row: PolicyRow): string {
  return row.isDefault ? 'default' : `not the default (default: ${row.defaultValue})`;
}

/** The term inputs' columns: every field of Term, in the request-field table's order. */
export const TERM_INPUT_COLUMNS: readonly TermFieldName[] = TERM_FIELDS.map((f) => f.name);

export function termInputRows(input: CalculationInput): string[][] {
  return input.terms.map((t) => TERM_INPUT_COLUMNS.map((c) => formatValue(t[c])));
}

/** The student-level results, as [JSON path, value]. */
export function summaryRows(result: CalculationResult): [string, string][] {
  return [
    ['annual_ft_credits', formatValue(result.annual_ft_credits)],
    ['reduced_annual_pct', formatValue(result.reduced_annual_pct)],
    ['annual_basic_eligibility_sub', formatValue(result.annual_basic_eligibility_sub)],
    ['annual_basic_eligibility_unsub', formatValue(result.annual_basic_eligibility_unsub)],
    ['annual_basic_eligibility_grad_plus', formatValue(result.annual_basic_eligibility_grad_plus)],
    ['show_both_options', formatValue(result.show_both_options)],
  ];
}

export interface ResultColumn {
  header: string;
  /** The path under the term (`equal.subsidized`); the cell's JSON path is `terms[i].` + this. */
  field: string;
  value(term: TermResult): unknown;
}

export const RESULT_COLUMNS: readonly ResultColumn[] = [
  { header: 'Term', field: 'label', value: (t) => t.label },
  { header: 'Status', field: 'enrollment_status', value: (t) => t.enrollment_status },
  { header: 'Intensity %', field: 'enrollment_intensity_pct', value: (t) => t.enrollment_intensity_pct },
  { header: 'Disb. %', field: 'disbursement_pct', value: (t) => t.disbursement_pct },
  { header: 'Equal Sub', field: 'equal.subsidized', value: (t) => t.equal.subsidized },
  { header: 'Equal Unsub', field: 'equal.unsubsidized', value: (t) => t.equal.unsubsidized },
  { header: 'Equal Grad PLUS', field: 'equal.grad_plus', value: (t) => t.equal.grad_plus },
  { header: 'Prop. Sub', field: 'proportional.subsidized', value: (t) => t.proportional?.subsidized ?? null },
  { header: 'Prop. Unsub', field: 'proportional.unsubsidized', value: (t) => t.proportional?.unsubsidized ?? null },
  { header: 'Prop. Grad PLUS', field: 'proportional.grad_plus', value: (t) => t.proportional?.grad_plus ?? null },
  { header: 'Adj. Sub', field: 'adjustment_sub', value: (t) => t.adjustment_sub },
  { header: 'Adj. Unsub', field: 'adjustment_unsub', value: (t) => t.adjustment_unsub },
  { header: 'Adj. Grad PLUS', field: 'adjustment_grad_plus', value: (t) => t.adjustment_grad_plus },
  { header: 'Adj. source', field: 'adjustment_source_index', value: (t) => t.adjustment_source_index },
];

/** The totals row under the same columns (empty where a column has no total; total_proportional equals
 * total_equal when the proportional option is not offered). */
export function totalCells(result: CalculationResult): { text: string; path: string | null }[] {
  const proportional = result.total_proportional;
  const cell = (path: string, value: unknown) => ({ text: formatValue(value), path });
  return RESULT_COLUMNS.map((c) => {
    switch (c.field) {
      case 'label':
        return { text: 'Total', path: null };
      case 'equal.subsidized':
        return cell('total_equal.subsidized', result.total_equal.subsidized);
      case 'equal.unsubsidized':
        return cell('total_equal.unsubsidized', result.total_equal.unsubsidized);
      case 'equal.grad_plus':
        return cell('total_equal.grad_plus', result.total_equal.grad_plus);
      case 'proportional.subsidized':
        return cell('total_proportional.subsidized', proportional.subsidized);
      case 'proportional.unsubsidized':
        return cell('total_proportional.unsubsidized', proportional.unsubsidized);
      case 'proportional.grad_plus':
        return cell('total_proportional.grad_plus', proportional.grad_plus);
      default:
        return { text: '', path: null };
    }
  });
}

/** The adjusted terms' explanations: [term label, sentence]. */
export function adjustmentNotes(result: CalculationResult): [string, string][] {
  return result.terms.filter((t) => t.adjustment_explanation !== '').map((t) => [t.label, t.adjustment_explanation]);
}

/** A step's output as "path = value" lines. */
export function outputLines(step: TraceStep): string[] {
  return Object.entries(step.output).map(([path, value]) => `${path} = ${formatValue(value)}`);
}

/** A step's inputs as "name = value" pairs. */
export function inputLines(step: TraceStep): string[] {
  return Object.entries(step.inputs).map(([name, value]) => `${name} = ${formatValue(value)}`);
}
