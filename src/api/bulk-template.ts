/**
 * GET /v1/calculate/bulk/template.csv: a file to start from — the header with every column of the bulk CSV layout
 * v1, and one example student, the FSA Schedule of Reductions example 1 (the spec's worked example FSA-1, read from
 * its verbatim copy in src/api/openapi/worked-examples.json, so no figure is retyped here), one row per term.
 */
import type { Request, Response } from 'express';
import { INPUT_COLUMNS, TERM_COLUMNS } from '../bulk/csv-layout.ts';
import { csvCell } from '../bulk/output-csv.ts';
import { WORKED_EXAMPLES } from './openapi/worked-examples.ts';

export const TEMPLATE_PATH = '/v1/calculate/bulk/template.csv';
/** The worked example the template shows. */
export const TEMPLATE_EXAMPLE_ID = 'FSA-1';

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return csvCell(String(value));
}

const TERM_LEVEL: ReadonlySet<string> = new Set(TERM_COLUMNS);

/** The template's text: header, then one row per term of the example, student-level values on every row. */
export function bulkTemplateCsv(): string {
  const example = WORKED_EXAMPLES.find((e) => e.id === TEMPLATE_EXAMPLE_ID);
  if (example === undefined) throw new Error(`worked example ${TEMPLATE_EXAMPLE_ID} is missing`);
  const request = example.request as unknown as Record<string, unknown> & { terms: Record<string, unknown>[] };
  const lines = [INPUT_COLUMNS.join(',')];
  for (const term of request.terms) {
    lines.push(
      INPUT_COLUMNS.map((column) => {
        if (column === 'student_id') return cell(example.id);
        if (column === 'term_label') return cell(term.label);
        return cell(TERM_LEVEL.has(column) ? term[column] : request[column]);
      }).join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

export function serveBulkTemplate(): (req: Request, res: Response) => void {
  const body = bulkTemplateCsv(); // built once: a missing example stops the service at start-up
  return (_req, res) => {
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', 'attachment; filename="sor-bulk-template.csv"');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.end(body);
  };
}
