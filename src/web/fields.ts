/**
 * The fields of a CalculationRequest as the form shows them, made from the service's request-field table
 * (src/schema/fields.ts, through service-tables.js written at build time): labels, hints, choices and ranges. Each
 * input's `name` is the API field path (`dependency_status`, `terms[1].credits_enrolled`), so an API field error
 * finds its input by name, and the help text under each field is the field's description in the OpenAPI document.
 */
import { HEALTH_PROFESSIONS, REQUEST_FIELDS, type RequestFieldTable } from './service-tables.js';

export type FieldKind = 'select' | 'decimal' | 'checkbox' | 'text';

export interface FieldDef {
  /** The request field (for a term field, the name within the term). */
  key: string;
  label: string;
  kind: FieldKind;
  /** Select options: [value, label]; the value '' leaves the field out of the request. */
  options?: readonly (readonly [string, string])[];
  /** A select whose values are whole numbers in the request (academic_year_terms). */
  integer?: boolean;
  /** Values come from the OpenAPI enum of the field, after these fixed options. */
  enumFromApi?: boolean;
  required?: boolean;
  /** A hint under the label (units, examples). */
  hint?: string;
  /**
   * Meaningful only for a legacy graduate or professional student (the service ignores it with a warning for
   * anyone else): the form says so beside a value it would ignore, and keeps the value.
   */
  legacyOnly?: boolean;
}

const dollars = (n: number): string => `$${n.toLocaleString('en-US')}`;

/** `osteopathic_medicine` → "Osteopathic medicine". */
export function programName(program: string): string {
  const words = program.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An enum value's choice: a health professions program with its table and amount, any other value in words. */
function optionText(value: string): string {
  const program = HEALTH_PROFESSIONS.find((p) => p.program === value);
  if (program === undefined) return programName(value);
  return `${programName(value)} — table ${program.table}, +${dollars(program.nineMonths)} for 9 months`;
}

const KIND: Readonly<Record<string, FieldKind>> = {
  decimal: 'decimal',
  boolean: 'checkbox',
  label: 'text',
  enum: 'select',
  integer: 'select',
  award_year: 'select',
};

/** One row of the request-field table as the form's field. */
function fieldDef(field: RequestFieldTable): FieldDef {
  const kind = KIND[field.kind] ?? 'text';
  const def: FieldDef = { key: field.name, label: field.label, kind };
  if (field.required) def.required = true;
  if (field.hint !== undefined) def.hint = field.hint;
  if (field.legacyOnly) def.legacyOnly = true;
  if (kind !== 'select') return def;
  const options: [string, string][] = field.empty === undefined ? [] : [['', field.empty]];
  if (field.kind === 'enum') for (const v of field.values ?? []) options.push([v, optionText(v)]);
  if (field.kind === 'integer') {
    def.integer = true;
    for (let n = field.min ?? 0; n <= (field.max ?? -1); n++) options.push([String(n), String(n)]);
  }
  if (field.kind === 'award_year') def.enumFromApi = true;
  def.options = options;
  return def;
}

/** The student's fields, in the request's order (the terms have their own section, the policy its own). */
export const STUDENT_FIELDS: readonly FieldDef[] = REQUEST_FIELDS.filter((f) => f.level === 'student').map(fieldDef);
export const TERM_FIELDS: readonly FieldDef[] = REQUEST_FIELDS.filter((f) => f.level === 'term').map(fieldDef);

export const MAX_TERMS = 4;

export const termPath = (index: number, key: string): string => `terms[${index}].${key}`;
