/**
 * A registrar's Excel "CSV" export, made for the file tab's tests from the worked examples (examples.json): one
 * student per example in turn, `students` of them, written as Excel on a European Windows writes it — Windows-1252,
 * semicolons, CRLF, TRUE/FALSE — with three columns of the registrar's own (an advisor with an accented name, a note
 * holding a semicolon, a campus) around the layout's columns. Every `errorEvery`-th student has its last term's
 * credits_enrolled left empty. What each student must become is the example's published result.
 */
import iconv from 'iconv-lite';
import { STUDENT_COLUMNS, TERM_COLUMNS } from '../../src/bulk/csv-layout.ts';
import { EXAMPLES, type Example } from './form-helpers.ts';

/** The examples a file can carry: one file has one school policy, so those with a policy of their own are left out. */
export const FILE_EXAMPLES: readonly Example[] = EXAMPLES.filter((e) => e.request['policy'] === undefined);

/** The registrar's own columns, kept in the results as they are. */
export const EXTRA_COLUMNS = ['Advisor', 'Notes', 'Campus'];

export interface ExportFile {
  bytes: Buffer;
  /** Students in the file, in order: their id, the example they are, whether a cell was left empty. */
  students: { id: string; example: Example; broken: boolean; lines: number[] }[];
  /** The file's line numbers (header = 1) whose credits_enrolled was left empty. */
  emptyLines: number[];
  rows: number;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  const text = String(value);
  return /[;"\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function excelExport(students: number, errorEvery: number): ExportFile {
  const header = ['Advisor', 'student_id', ...TERM_COLUMNS, ...STUDENT_COLUMNS, 'Notes', 'Campus'];
  const lines = [header.join(';')];
  const out: ExportFile['students'] = [];
  const emptyLines: number[] = [];
  for (let s = 0; s < students; s++) {
    const example = FILE_EXAMPLES[s % FILE_EXAMPLES.length]!;
    const id = `S${String(s + 1).padStart(5, '0')}`;
    const broken = (s + 1) % errorEvery === 0;
    const own: number[] = [];
    example.request.terms.forEach((term, t) => {
      const last = t === example.request.terms.length - 1;
      const values = [
        s % 2 === 0 ? 'José Muñoz' : 'Zoë Brontë',
        id,
        ...TERM_COLUMNS.map((c) =>
          broken && last && c === 'credits_enrolled' ? '' : cell(term[c === 'term_label' ? 'label' : c]),
        ),
        ...STUDENT_COLUMNS.map((c) => cell(example.request[c])),
        cell('Pièces reçues; dossier complet'),
        'Nord',
      ];
      lines.push(values.join(';'));
      own.push(lines.length);
      if (broken && last) emptyLines.push(lines.length);
    });
    out.push({ id, example, broken, lines: own });
  }
  const text = `${lines.join('\r\n')}\r\n`;
  return { bytes: iconv.encode(text, 'windows-1252'), students: out, emptyLines, rows: lines.length - 1 };
}
