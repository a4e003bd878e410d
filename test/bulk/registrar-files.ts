/**
 * Files as registrars export them, made by the tests from the spec's worked examples (examples.json): accents in
 * student_id and term_label, another charset, another delimiter, an extra column, Excel's trailing empty columns,
 * gzip. Expected figures come from examples.json (expectRowsMatchExample), never from the code.
 */
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { EXAMPLES, EXAMPLES_HEADER, examplesCsv, expectRowsMatchExample } from './examples.ts';
import { parseOutput, type OutputRow } from './helpers.ts';
import { expect } from 'vitest';

/** The student_id a file gives an example: accents that Windows-1252 and UTF-16 hold, and UTF-8 spells differently. */
export function accentedId(id: string): string {
  return `${id}-Zoë-Ñ`;
}

/** The examples' term labels get accents too (échéance). */
function accentedLabel(label: string): string {
  return `${label} échéance`;
}

/** A name cell for the extra `student_name` column, with the delimiter and a comma inside (quoted where needed). */
export function studentName(id: string): string {
  return `Müller, Anna; ${id}`;
}

export interface FileShape {
  delimiter?: ',' | ';' | '\t';
  /** Adds a `student_name` column (the second column). */
  extraColumn?: boolean;
  /** Adds this many unnamed, empty columns at the end of every line (Excel). */
  trailingEmpty?: number;
  eol?: string;
}

function quoted(cell: string, delimiter: string): string {
  return cell.includes(delimiter) || cell.includes('"') || cell.includes(',')
    ? `"${cell.replaceAll('"', '""')}"`
    : cell;
}

/**
 * The worked examples as one bulk file (text), shaped as asked. The examples' cells hold no comma, so the
 * comma-separated text of examplesCsv() is split on commas.
 */
export function examplesFile(shape: FileShape = {}): string {
  const delimiter = shape.delimiter ?? ',';
  const eol = shape.eol ?? '\r\n';
  const lines = examplesCsv().trimEnd().split('\n');
  const columns = EXAMPLES_HEADER.split(',');
  const idAt = columns.indexOf('student_id');
  const labelAt = columns.indexOf('term_label');
  return (
    lines
      .map((line, n) => {
        const cells = line.split(',');
        if (n > 0) {
          cells[idAt] = accentedId(cells[idAt]!);
          cells[labelAt] = accentedLabel(cells[labelAt]!);
        }
        if (shape.extraColumn) cells.splice(1, 0, n === 0 ? 'student_name' : studentName(cells[idAt]!));
        for (let k = 0; k < (shape.trailingEmpty ?? 0); k++) cells.push('');
        return cells.map((c) => quoted(c, delimiter)).join(delimiter);
      })
      .join(eol) + eol
  );
}

/** How a SIS export spells what examplesCsv() writes canonically (the n-th occurrence picks among the spellings). */
const SIS_SPELLINGS: Readonly<Record<string, readonly string[]>> = {
  dependent: ['Dependent', 'DEPENDENT'],
  independent: ['Independent', 'INDEPENDENT'],
  undergraduate: ['Undergraduate'],
  graduate: ['Graduate'],
  professional: ['PROFESSIONAL'],
  first_year: ['0', '1'],
  second_year: ['2'],
  third_year_and_beyond: ['3', '4', '5'],
  true: ['Y', 'y'],
  false: ['N', 'n'],
  dentistry: ['Dentistry'],
};
const SPELLED_COLUMNS = [
  'dependency_status',
  'degree_level',
  'grade_level',
  'is_legacy_borrower',
  'plus_denied',
  'final_period_of_program',
  'health_professions_program',
];

/**
 * The worked examples as a registrar's file writes them: `Dependent`, `INDEPENDENT`, `Graduate`, `Y`/`N` and COD
 * grade level codes (0–5) instead of the JSON spellings; every other cell as examplesCsv() writes it.
 */
export function sisSpelledExamplesCsv(): string {
  const lines = examplesCsv().trimEnd().split('\n');
  const columns = lines[0]!.split(',');
  const spelled = SPELLED_COLUMNS.map((c) => columns.indexOf(c)).filter((i) => i >= 0);
  let n = 0;
  const out = lines.map((line, i) => {
    if (i === 0) return line;
    const cells = line.split(',');
    for (const at of spelled) {
      const ways = SIS_SPELLINGS[cells[at]!];
      if (ways !== undefined) cells[at] = ways[n++ % ways.length]!;
    }
    return cells.join(',');
  });
  return `${out.join('\n')}\n`;
}

export function encode(text: string, charset: string): Buffer {
  return iconv.encode(text, charset);
}

/**
 * Checks a CSV answer: every example's rows, with the accented id and label decoded right, written with
 * `delimiter` (the file's own unless another was asked for).
 */
export function expectExamplesOutput(csv: string, extraColumn = false, delimiter: ',' | ';' | '\t' = ','): OutputRow[] {
  const header = csv.slice(0, csv.indexOf('\n'));
  expect(header.startsWith(`student_id${delimiter}`), 'the output header is written with the expected delimiter').toBe(
    true,
  );
  const rows = parseOutput(csv, delimiter);
  for (const ex of EXAMPLES) {
    const own = rows.filter((r) => r.student_id === accentedId(ex.id));
    expectRowsMatchExample(own, ex);
    own.forEach((r, i) => {
      expect(r.term_label).toBe(accentedLabel(String((ex.request.terms[i] as { label: unknown }).label)));
      if (extraColumn) expect((r as Record<string, string>).student_name).toBe(studentName(accentedId(ex.id)));
    });
  }
  expect(rows.length).toBe(EXAMPLES.reduce((n, ex) => n + ex.request.terms.length, 0));
  return rows;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body bytes as they came on the wire (not decompressed). */
  body: Buffer;
  /** The body as text, gunzipped when Content-Encoding says gzip. */
  text: string;
}

/** One HTTP request with node:http (fetch would decompress on its own; these tests look at the wire). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(parts);
        const gz = res.headers['content-encoding'] === 'gzip';
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          text: (gz ? gunzipSync(body) : body).toString('utf8'),
        });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
