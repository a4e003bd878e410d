/**
 * The school's own figures of the shadow check, read from the optional sis_* columns (architecture.md "Shadow
 * check"): `sis_reduced_annual_pct` and `sis_option` per student, `sis_sub`, `sis_unsub`, `sis_grad_plus` per term.
 * Empty cells are not compared; an invalid value is an error naming its row and column, like any other cell.
 */
import { Dec } from '../domain/decimal.ts';
import { MESSAGES, toCanonicalDecimal } from '../schema/decimal.ts';
import {
  SIS_STUDENT_COLUMNS,
  SIS_TERM_COLUMNS,
  studentCell,
  type CsvLayout,
  type RowFieldError,
} from './csv-layout.ts';

export const SIS_LOANS = ['sub', 'unsub', 'grad_plus'] as const;
export type SisLoan = (typeof SIS_LOANS)[number];
const LOANS = SIS_LOANS;

export type SisOption = 'equal' | 'proportional';

/** The school's figures for one student, as canonical decimal strings (null: the cell is empty). */
export interface SisFigures {
  option: SisOption;
  percent: string | null;
  terms: { sub: string | null; unsub: string | null; grad_plus: string | null }[];
}

const TERM_COLUMN: Record<SisLoan, (typeof SIS_TERM_COLUMNS)[number]> = {
  sub: 'sis_sub',
  unsub: 'sis_unsub',
  grad_plus: 'sis_grad_plus',
};

/** True when the file's header has any sis_* column: the check runs and its three columns are written. */
export function hasSisColumns(layout: CsvLayout): boolean {
  for (const c of SIS_STUDENT_COLUMNS) if (layout.col[c] >= 0) return true;
  for (const c of SIS_TERM_COLUMNS) if (layout.col[c] >= 0) return true;
  return false;
}

function cellOf(cells: readonly string[], index: number): string {
  return index < 0 ? '' : (cells[index] ?? '');
}

const MONEY = { kind: 'money', positive: false } as const;

/**
 * Reads and checks a student's sis_* cells. `figures` is null when every figure cell is empty (not checked) or
 * when there are errors; `errors` name the row and column of each invalid value.
 */
export function readSisFigures(
  rows: readonly (readonly string[])[],
  lines: readonly number[],
  layout: CsvLayout,
): { figures: SisFigures | null; errors: RowFieldError[] } {
  const errors: RowFieldError[] = [];
  let any = false;

  let option: SisOption = 'equal';
  const optionCell = studentCell(rows, lines, layout.col.sis_option, 'sis_option', errors);
  if (optionCell !== '') {
    const lower = optionCell.toLowerCase();
    if (lower === 'equal' || lower === 'proportional') option = lower;
    else errors.push({ row: 0, field: 'sis_option', message: 'must be equal or proportional, or empty (equal)' });
  }

  let percent: string | null = null;
  const pctCell = studentCell(rows, lines, layout.col.sis_reduced_annual_pct, 'sis_reduced_annual_pct', errors);
  if (pctCell !== '') {
    // Read with the money bounds (its messages say nothing of credits), then held to 0–100.
    const parsed = toCanonicalDecimal(pctCell, MONEY);
    if (!parsed.ok && parsed.message === MESSAGES.maxMoney) {
      errors.push({ row: 0, field: 'sis_reduced_annual_pct', message: 'must be a percentage from 0 to 100' });
    } else if (!parsed.ok) errors.push({ row: 0, field: 'sis_reduced_annual_pct', message: parsed.message });
    else if (new Dec(parsed.value).gt(100)) {
      errors.push({ row: 0, field: 'sis_reduced_annual_pct', message: 'must be a percentage from 0 to 100' });
    } else {
      percent = parsed.value;
      any = true;
    }
  }

  const terms: SisFigures['terms'] = [];
  for (let r = 0; r < rows.length; r++) {
    const term: SisFigures['terms'][number] = { sub: null, unsub: null, grad_plus: null };
    for (const loan of LOANS) {
      const column = TERM_COLUMN[loan];
      const cell = cellOf(rows[r]!, layout.col[column]);
      if (cell === '') continue;
      const parsed = toCanonicalDecimal(cell, MONEY);
      if (!parsed.ok) {
        errors.push({ row: r, field: column, message: parsed.message });
      } else {
        term[loan] = parsed.value;
        any = true;
      }
    }
    terms.push(term);
  }
  return { figures: errors.length > 0 || !any ? null : { option, percent, terms }, errors };
}
