/**
 * Fits a record to its layout when the header has unnamed columns (Excel's trailing empty columns): their cells
 * are dropped, so the rest of the pipeline sees the named columns only. The decision is made row by row (the file
 * is streamed): a row that has a value in an unnamed column is an error row naming the column by its number.
 * Without unnamed columns a record is returned as it is.
 */
import { recordCells, type CsvRecord } from './csv-record.ts';
import type { CsvLayout } from './csv-layout.ts';

function shortValue(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

export function shapeRecord(record: CsvRecord, layout: CsvLayout): CsvRecord {
  const ignored = layout.ignored;
  if (ignored === undefined || ignored.length === 0) return record;
  const cells = recordCells(record);
  const kept: string[] = [];
  const filled: string[] = [];
  let next = 0;
  for (let i = 0; i < cells.length; i++) {
    if (next < ignored.length && ignored[next] === i) {
      next++;
      if (cells[i] !== '')
        filled.push(`column ${i + 1} has no name in the header row but holds ${shortValue(cells[i]!)}`);
      continue;
    }
    kept.push(cells[i]!);
  }
  const error =
    record.error ??
    (filled.length === 0
      ? undefined
      : `${filled.join('; ')}: name the column in the header row (and add ?extra_columns=keep to keep it) or leave it empty`);
  return error === undefined ? { line: record.line, cells: kept } : { line: record.line, cells: kept, error };
}
