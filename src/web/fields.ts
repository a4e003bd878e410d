/**
 * The fields of a CalculationRequest as the form shows them, made from the service's request-field table
 * (src/schema/fields.ts with its page words, src/schema/page-words.ts, through service-tables.js written at build
 * time): labels, help in the office's words, what an error asks for, choices and ranges. Each input's `name` is the
 * API field path (`dependency_status`, `terms[1].credits_enrolled`), so an API field error finds its input by name.
 */
import { AWARD_YEARS, HEALTH_PROFESSIONS, REQUEST_FIELDS, type RequestFieldTable } from './service-tables.js';
import { capitalWords } from './words.ts';

/** radio: a required choice shown as buttons, none preselected; select: a list with an empty first choice. */
export type FieldKind = 'radio' | 'select' | 'decimal' | 'checkbox' | 'text';

export interface FieldDef {
  /** The request field (for a term field, the name within the term). */
  key: string;
  label: string;
  kind: FieldKind;
  help: string;
  /** What an error beside the field asks for ("enter the credits the student is enrolled in"). */
  ask: string;
  /** Choices: [value, words]; the value '' leaves the field out of the request. */
  options?: readonly (readonly [string, string])[];
  /** A select whose values are whole numbers in the request (academic_year_terms). */
  integer?: boolean;
  /** The request needs it (the API refuses a request without it). */
  required?: boolean;
  /** The page asks for it with nothing preselected, though the API has a default. */
  choose?: boolean;
  /** Behind the "More details" disclosure. */
  more?: boolean;
  /** A hint beside the label (units, examples). */
  hint?: string;
  /**
   * Meaningful only for a legacy graduate or professional student (the service ignores it with a warning for
   * anyone else): the form says so beside a value it would ignore, and keeps the value.
   */
  legacyOnly?: boolean;
}

const dollars = (n: number): string => `$${n.toLocaleString('en-US')}`;

/** An enum value's words: a health professions program with its table and amount, any other value capitalised. */
function optionText(value: string): string {
  const program = HEALTH_PROFESSIONS.find((p) => p.program === value);
  if (program === undefined) return capitalWords(value);
  return `${capitalWords(value)} — table ${program.table}, +${dollars(program.nineMonths)} for 9 months`;
}

/** The most choices shown as buttons rather than a list. */
const MAX_RADIOS = 3;

function kindOf(field: RequestFieldTable): FieldKind {
  switch (field.kind) {
    case 'decimal':
      return 'decimal';
    case 'boolean':
      return 'checkbox';
    case 'enum':
      return (field.values?.length ?? 0) <= MAX_RADIOS && !field.more ? 'radio' : 'select';
    case 'integer':
    case 'award_year':
      return 'select';
    default:
      return 'text';
  }
}

/** One row of the request-field table as the form's field. */
function fieldDef(field: RequestFieldTable): FieldDef {
  const kind = kindOf(field);
  const def: FieldDef = { key: field.name, label: field.label, kind, help: field.help, ask: field.ask };
  if (field.required) def.required = true;
  if (field.choose) def.choose = true;
  if (field.more) def.more = true;
  if (field.hint !== undefined) def.hint = field.hint;
  if (field.legacyOnly) def.legacyOnly = true;
  if (kind !== 'select' && kind !== 'radio') return def;
  const options: [string, string][] = field.empty === undefined || kind === 'radio' ? [] : [['', field.empty]];
  if (field.kind === 'enum') for (const v of field.values ?? []) options.push([v, optionText(v)]);
  if (field.kind === 'integer') {
    def.integer = true;
    for (let n = field.min ?? 0; n <= (field.max ?? -1); n++) options.push([String(n), String(n)]);
  }
  if (field.kind === 'award_year') for (const year of AWARD_YEARS) options.push([year, year]);
  def.options = options;
  return def;
}

/** The student's fields, in the request's order (the terms have their own table, the policy its own section). */
export const STUDENT_FIELDS: readonly FieldDef[] = REQUEST_FIELDS.filter((f) => f.level === 'student').map(fieldDef);
export const TERM_FIELDS: readonly FieldDef[] = REQUEST_FIELDS.filter((f) => f.level === 'term').map(fieldDef);

export const MAX_TERMS = 4;

export const termPath = (index: number, key: string): string => `terms[${index}].${key}`;

/** The field of a path: `terms[1].credits_enrolled` → the term field `credits_enrolled` of term 1. */
export function fieldOf(path: string): { def: FieldDef; term: number | null } | undefined {
  const m = /^terms\[(\d+)\]\.(\w+)$/.exec(path);
  const def = m ? TERM_FIELDS.find((f) => f.key === m[2]) : STUDENT_FIELDS.find((f) => f.key === path);
  return def === undefined ? undefined : { def, term: m ? Number(m[1]) : null };
}

/**
 * An amount or a credit count as people type it, made ready for the service: `$2,750` → `2750`, `2,750.00` → `2750`,
 * ` 7.50 ` → `7.5`. Text that is not a number that way is returned trimmed, for the service to refuse in words.
 */
export function normaliseNumber(text: string): string {
  const trimmed = text.trim();
  const m = /^([-−]?)\s*\$?\s*([\d,]*\d)(?:\.(\d*))?$/.exec(trimmed);
  if (m === null) return trimmed;
  const [, sign, whole, fraction = ''] = m;
  if (whole!.includes(',') && !/^\d{1,3}(?:,\d{3})+$/.test(whole!)) return trimmed;
  const digits = whole!.replaceAll(',', '').replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  const value = decimals === '' ? digits : `${digits}.${decimals}`;
  return `${sign === '' || /^0(\.0*)?$/.test(value) ? '' : '-'}${value}`;
}
