/**
 * The worksheet's appendices, for both renderers (html.ts and pdf.ts): the student's inputs under their names in
 * words (the request-field table's page labels, src/schema/fields.ts), and every step of the trace as a row an
 * auditor reads — its title, the rule in words (the JSON steps keep `section`), the formula, what it produced in
 * dollars and words instead of JSON paths, and a numbered reference to its source, each distinct citation listed
 * once at the end. Values are plain text here; each renderer escapes or encodes them its own way.
 */
import { Dec } from '../../domain/decimal.ts';
import type { TraceStep } from '../../domain/trace.ts';
import type { CalculationInput, CalculationResult } from '../../domain/types.ts';
import { STATUS_WORDS } from '../../domain/summary-words.ts';
import { formatDollars, formatSignedDollars } from '../../domain/warning-text.ts';
import { STUDENT_FIELDS, TERM_FIELDS } from '../../schema/fields.ts';
import type { RequestField } from '../../schema/field-types.ts';

/** The rule each section of the rule set states, in words (the worksheet's "Rule" column). */
const RULES: Readonly<Record<string, string>> = {
  '§1': 'Rounding and splits',
  '§2.1': 'Annual loan limits',
  '§2.2': 'Starting amounts and caps',
  '§2.3': 'Final-period proration',
  '§3': 'Less-than-full-time reduction',
  '§4': 'Enrollment in each term',
  '§5': 'Disbursement options',
  '§6': 'Recalculation after disbursements',
  '§7': 'Warnings',
  '§10': 'School policy',
};

/** A section's rule in words; the section itself for one this table does not know. */
export function ruleName(section: string): string {
  return RULES[section] ?? section;
}

const LOAN_WORDS: Readonly<Record<string, string>> = {
  subsidized: 'subsidized',
  unsubsidized: 'unsubsidized',
  grad_plus: 'Grad PLUS',
  sub: 'subsidized',
  unsub: 'unsubsidized',
};

const money = (value: unknown) => (typeof value === 'number' ? formatDollars(new Dec(value)) : String(value));
const signedMoney = (value: unknown) =>
  typeof value === 'number' ? formatSignedDollars(new Dec(value)) : String(value);
const yesNo = (value: unknown) => (value === true ? 'yes' : 'no');
const textOrNone = (value: unknown) => (value === '' || value === null ? 'none' : String(value));

/** The longest label the results column repeats; a longer one is named by its position (the step names it). */
const MAX_REPEATED_LABEL = 40;

function termName(result: CalculationResult, index: number): string {
  const label = result.terms[index]?.label;
  return label !== undefined && [...label].length <= MAX_REPEATED_LABEL ? label : `Term ${index + 1}`;
}

/** One output of a step in words: ["Fall, proportional subsidized", "$882"]. */
export function outputWords(path: string, value: unknown, result: CalculationResult): [string, string] {
  let m: RegExpExecArray | null;
  if (path === 'reduced_annual_pct') return ['Academic-year percentage', `${String(value)}%`];
  if (path === 'annual_ft_credits') return ['Full-time credits of the year', String(value)];
  if (path === 'show_both_options') return ['Proportional option offered', yesNo(value)];
  if ((m = /^annual_basic_eligibility_(\w+)$/.exec(path))) return [`Annual ${LOAN_WORDS[m[1]!]} amount`, money(value)];
  if ((m = /^total_(equal|proportional)\.(\w+)$/.exec(path))) {
    return [`Total, ${m[1]} ${LOAN_WORDS[m[2]!]}`, money(value)];
  }
  if ((m = /^warnings\[(\d+)\]$/.exec(path))) return [`Warning ${Number(m[1]) + 1}`, String(value)];
  if ((m = /^terms\[(\d+)\]\.(.+)$/.exec(path))) {
    const term = termName(result, Number(m[1]));
    const field = m[2]!;
    const [what, shown] = termOutput(field, value, result);
    return [`${term}, ${what}`, shown];
  }
  return [path, value === null ? 'none' : String(value)];
}

function termOutput(field: string, value: unknown, result: CalculationResult): [string, string] {
  let m: RegExpExecArray | null;
  if ((m = /^(equal|proportional)\.(\w+)$/.exec(field))) return [`${m[1]} ${LOAN_WORDS[m[2]!]}`, money(value)];
  if ((m = /^adjustment_(sub|unsub|grad_plus)$/.exec(field))) {
    return [`adjustment, ${LOAN_WORDS[m[1]!]}`, signedMoney(value)];
  }
  switch (field) {
    case 'enrollment_status':
      return ['status', STATUS_WORDS[value as keyof typeof STATUS_WORDS] ?? String(value)];
    case 'enrollment_intensity_pct':
      return ['enrollment intensity', `${String(value)}%`];
    case 'disbursement_pct':
      return ['share of the year', `${String(value)}%`];
    case 'credits_enrolled':
      return ['credits enrolled', String(value)];
    case 'full_time_credits':
      return ['full-time credits', String(value)];
    case 'adjustment_source_index':
      return ['adjustment caused by', typeof value === 'number' ? termName(result, value) : 'none'];
    case 'adjustment_explanation':
      return ['adjustment explained', textOrNone(value)];
    case 'final_term_overdisbursement':
      return ['over-disbursed after the final disbursement', yesNo(value)];
    case 'warning':
      return ['warning', textOrNone(value)];
    default:
      return [field, value === null ? 'none' : String(value)];
  }
}

/** One row of the appendix's table of steps. */
export interface StepRow {
  /** The step's stable id (the HTML row's anchor). */
  id: string;
  number: number;
  title: string;
  rule: string;
  /** 1-based index into the sources list. */
  source: number;
  formula: string;
  /** What the step produced, in words: [what, value]. */
  outputs: [string, string][];
}

export interface StepAppendix {
  rows: StepRow[];
  /** Each distinct citation, once, in the order first cited. */
  sources: string[];
}

const NOTHING = new Set(['$0', 'none', 'no']);

/** A long list of results that are all $0, none or no (a step that sets every term's adjustment to 0): one line. */
function collapsed(outputs: [string, string][]): [string, string][] {
  if (outputs.length <= 3 || !outputs.every(([, value]) => NOTHING.has(value))) return outputs;
  const values = [...new Set(outputs.map(([, value]) => value))];
  return [[`All ${outputs.length} results`, values.join(', ')]];
}

export function stepAppendix(steps: readonly TraceStep[], result: CalculationResult): StepAppendix {
  const sources: string[] = [];
  // A label too long to repeat in every row (it can hold 100 characters) is named by its term's position there;
  // the summary's schedule and Appendix A show it in full.
  const long = result.terms
    .map((t, i) => [t.label, `Term ${i + 1}`] as const)
    .filter(([label]) => [...label].length > MAX_REPEATED_LABEL)
    .sort(([a], [b]) => b.length - a.length);
  const shorten = (text: string) => long.reduce((out, [label, name]) => out.replaceAll(label, name), text);
  const rows = steps.map((step, k): StepRow => {
    let source = sources.indexOf(step.citation);
    if (source < 0) source = sources.push(step.citation) - 1;
    return {
      id: step.id,
      number: k + 1,
      title: shorten(step.title),
      rule: ruleName(step.section),
      source: source + 1,
      formula: shorten(step.formula),
      outputs: collapsed(Object.entries(step.output).map(([path, value]) => outputWords(path, value, result))),
    };
  });
  return { rows, sources };
}

// ----------------------------------------------------------------------------------------------- inputs

function label(field: RequestField): string {
  return field.page?.label ?? field.name;
}

/** An enum value as a reader writes it: `third_year_and_beyond` → "Third year and beyond". */
function words(value: string): string {
  const text = value.replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A request value in words: dollars, yes/no, enum values without underscores, "not given" for null. */
function valueWords(field: RequestField, value: unknown): string {
  if (value === null || value === undefined) return 'not given';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (field.type.kind === 'decimal' && field.type.rule.kind === 'money' && typeof value === 'string') {
    return formatDollars(new Dec(value));
  }
  if (field.type.kind === 'enum' && typeof value === 'string') return words(value);
  return String(value);
}

/** Rows of two [label, value] pairs side by side (the inputs table in half the height). */
export function pairedRows(rows: readonly [string, string][]): string[][] {
  const half = Math.ceil(rows.length / 2);
  return rows.slice(0, half).map((left, i) => [...left, ...(rows[half + i] ?? ['', ''])]);
}

/** The student-level inputs as [label, value], in the request's order (terms and policy have their own tables). */
export function inputRows(input: CalculationInput): [string, string][] {
  return STUDENT_FIELDS.filter((f) => f.name !== 'terms' && f.name !== 'policy').map((f) => [
    label(f),
    valueWords(f, input[f.name as keyof CalculationInput]),
  ]);
}

/** The term inputs' column headers, in the request-field table's order. */
export const TERM_INPUT_HEADERS: readonly string[] = TERM_FIELDS.map(label);

/** The term inputs, one row per term, in words. */
export function termInputRows(input: CalculationInput): string[][] {
  return input.terms.map((t) => TERM_FIELDS.map((f) => valueWords(f, t[f.name])));
}
