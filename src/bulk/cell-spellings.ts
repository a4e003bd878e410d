/**
 * How a bulk CSV file may spell a value, besides the JSON API's own spelling: files come from registrar and SIS
 * exports, which write `Dependent`, `Y` and COD grade level codes. These spellings belong to the CSV layout only;
 * the JSON API (POST /v1/calculate, the fields of src/schema/fields.ts) stays as strict as the interface says.
 *
 *  - Booleans: true/false, yes/no, y/n, 1/0, in any letter case.
 *  - Enum values (dependency_status, degree_level, grade_level, health_professions_program): the table's values in
 *    any letter case (`Dependent`, `INDEPENDENT`, `Graduate`).
 *  - grade_level: also the COD student level code of an undergraduate (COD Technical Reference, Volume II,
 *    Direct Loan award <StudentLevelCode>): 0 (first year, never attended college) and 1 (first year, attended
 *    college before) → first_year, 2 → second_year, 3, 4 and 5 (fifth year or other undergraduate) →
 *    third_year_and_beyond, the grade levels of the annual loan limits (34 CFR 685.203(a)). Codes 6 and 7 are
 *    graduate and professional levels: they are refused with a message saying to set degree_level instead.
 *
 * Every spelling is read by one Map lookup per cell (the canonical spelling first, then the lower-cased cell),
 * never a regular expression per cell.
 */
import type { RequestField } from '../schema/field-types.ts';
import type { GRADE_LEVELS } from '../schema/fields.ts';

/** A boolean cell's spellings, in any letter case: [true, false] pairs, the JSON spelling first. */
export const BOOLEAN_CELLS = [
  ['true', 'false'],
  ['yes', 'no'],
  ['y', 'n'],
  ['1', '0'],
] as const;

/** "yes/no, y/n, 1/0": the spellings besides true/false, as messages and the OpenAPI column table say them. */
export const BOOLEAN_SPELLINGS = BOOLEAN_CELLS.slice(1)
  .map(([t, f]) => `${t}/${f}`)
  .join(', ');

const BOOLEAN_VALUES: ReadonlyMap<string, boolean> = new Map(
  BOOLEAN_CELLS.flatMap(([t, f]) => [
    [t, true],
    [f, false],
  ]),
);

/** true/false, yes/no, y/n, 1/0 in any letter case; undefined for anything else. */
export function parseBoolean(cell: string): boolean | undefined {
  return BOOLEAN_VALUES.get(cell) ?? BOOLEAN_VALUES.get(cell.toLowerCase());
}

type GradeLevel = (typeof GRADE_LEVELS)[number];

/** COD student level codes of an undergraduate → the grade level of the loan limits (see above). */
export const COD_GRADE_LEVEL_CODES: Readonly<Record<string, GradeLevel>> = {
  '0': 'first_year',
  '1': 'first_year',
  '2': 'second_year',
  '3': 'third_year_and_beyond',
  '4': 'third_year_and_beyond',
  '5': 'third_year_and_beyond',
};

/** COD codes that are not undergraduate grade levels, and what to write instead. */
const COD_GRADUATE_CODES: ReadonlySet<string> = new Set(['6', '7']);

/** Codes a column accepts besides its values (only grade_level has any). */
const COLUMN_CODES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  grade_level: COD_GRADE_LEVEL_CODES,
};

/** The codes of a column as the docs and the OpenAPI table say them: "0 and 1 = first_year, 2 = second_year, …". */
function codesText(codes: Readonly<Record<string, string>>): string {
  const byValue = new Map<string, string[]>();
  for (const [code, value] of Object.entries(codes)) byValue.set(value, [...(byValue.get(value) ?? []), code]);
  return [...byValue]
    .map(([value, list]) => {
      const numbers = list.map(Number);
      const run = numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1);
      const names =
        list.length === 1
          ? list[0]
          : list.length === 2 || !run
            ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`
            : `${list[0]}–${list.at(-1)}`;
      return `${names} = ${value}`;
    })
    .join(', ');
}

/** How an enum cell is read: its spellings, and the message of a cell that is none of them. */
export interface EnumCell {
  /** Spelling (canonical value, lower-cased value, code) → the field's value. */
  readonly spellings: ReadonlyMap<string, string>;
  /** The error message of a cell that is not a spelling of a value. */
  readonly message: string;
}

/** The spellings of an enum column: its values in any letter case, and its codes (grade_level: COD's). */
export function enumCell(column: string, values: readonly string[]): EnumCell {
  const codes = COLUMN_CODES[column] ?? {};
  const spellings = new Map<string, string>();
  for (const value of values) spellings.set(value.toLowerCase(), value);
  for (const [code, value] of Object.entries(codes)) spellings.set(code, value);
  const codeNote = Object.keys(codes).length === 0 ? '' : `, or a COD grade level code (${codesText(codes)})`;
  return { spellings, message: `must be one of: ${values.join(', ')} (any letter case)${codeNote}` };
}

/** The value an enum cell spells, or undefined (then `enumMessage` says why). */
export function readEnumCell(cell: EnumCell, value: string): string | undefined {
  return cell.spellings.get(value) ?? cell.spellings.get(value.toLowerCase());
}

/** The message of an enum cell that spells no value: a COD graduate code gets its own. */
export function enumMessage(column: string, cell: EnumCell, value: string): string {
  if (column === 'grade_level' && COD_GRADUATE_CODES.has(value)) {
    return (
      `is COD grade level code ${value}, a graduate or professional level: set degree_level to graduate or ` +
      'professional and leave grade_level empty'
    );
  }
  return cell.message;
}

/**
 * How a CSV cell of a request field may be written besides its JSON spelling, for the OpenAPI column table and the
 * docs ('' when only the JSON spelling is read).
 */
export function cellSpellingNote(field: Pick<RequestField, 'column' | 'type'>): string {
  if (field.type.kind === 'boolean') return `true/false, ${BOOLEAN_SPELLINGS}, any letter case`;
  if (field.type.kind !== 'enum') return '';
  const codes = COLUMN_CODES[field.column];
  return codes === undefined ? 'any letter case' : `any letter case; COD grade level codes ${codesText(codes)}`;
}
