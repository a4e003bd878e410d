/**
 * `sor bulk --sort` (src/cli/sort-by-student.ts): a file sorted by term is put in student order — students in the
 * order of their first row, each student's rows in file order — moving each record as its own text (quoted cells
 * over several lines and a broken record included), in memory or through temporary runs merged (the same bytes
 * either way), with every line of the copy mapped back to the file's. Through the CLI, the sorted file gives
 * every worked example its published figures, and messages name the lines of the user's own file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DIALECT } from '../../src/bulk/csv-dialect.ts';
import { sortByStudent } from '../../src/cli/sort-by-student.ts';
import { EXAMPLES, examplesCsv, expectRowsMatchExample } from '../bulk/examples.ts';
import { HEADER, parseOutput, row } from '../bulk/helpers.ts';
import { encode } from '../bulk/registrar-files.ts';
import { startCli, tempDir } from './harness.ts';

const tmp = tempDir('sort');
afterAll(() => tmp.rm());
const spoolDir = join(tmp.dir, 'spool');
const limits = { maxRowChars: 65_536, maxCellChars: 1000 };

/** The worked examples sorted by term: every example's first term, then every second term, … */
function byTerm(csv: string): string {
  const [header, ...rows] = csv.trimEnd().split('\n');
  const terms = new Map<string, number>();
  const keyed = rows.map((line, i) => {
    const id = line.slice(0, line.indexOf(','));
    const t = terms.get(id) ?? 0;
    terms.set(id, t + 1);
    return { line, t, i };
  });
  keyed.sort((a, b) => a.t - b.t || a.i - b.i);
  return `${header}\n${keyed.map((k) => k.line).join('\n')}\n`;
}

async function sorted(text: string | Buffer, runChars?: number, dialect = DEFAULT_DIALECT) {
  const path = join(tmp.dir, `in-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(path, text);
  const copy = await sortByStudent({ path, dialect, spoolDir, ...limits, runChars });
  const out = readFileSync(copy.path, 'utf8');
  return { copy, out };
}

describe('sortByStudent', () => {
  const file = [
    HEADER,
    row('A', 'Fall', '6'),
    row('B', 'Fall', '6'),
    '',
    row('A', 'Spring', '9'),
    // A quoted cell over two lines, and a broken record (a quote never closed): each moves as its own text.
    row('C', '"Fall\nlate"', '6'),
    row('B', 'Spring', '9'),
    row('C', 'Spring "x', '6').replace('Spring "x', '"Spring'),
    row('A', 'Summer', '3'),
  ].join('\n');

  it('puts each student’s rows together in file order, students in order of their first row', async () => {
    const { copy, out } = await sorted(`${file}\n`);
    expect(out).toBe(
      [
        HEADER,
        row('A', 'Fall', '6'),
        row('A', 'Spring', '9'),
        row('A', 'Summer', '3'),
        row('B', 'Fall', '6'),
        '', // the blank line goes with the record before it, which it followed
        row('B', 'Spring', '9'),
        row('C', '"Fall\nlate"', '6'),
        row('C', '"Spring', '6'),
      ].join('\n') + '\n',
    );
    expect(copy.rows).toBe(7); // the broken record is one row (its first line), as the pipeline reads it
    // Lines of the copy → lines of the file, for the first line of every record.
    expect([2, 3, 4, 5, 7, 8, 10].map((l) => copy.lineOf(l))).toEqual([2, 5, 10, 3, 8, 6, 9]);
    await copy.remove();
  });

  it('gives the same bytes through temporary runs (an external merge sort) as in memory, and leaves no run behind', async () => {
    const big = byTerm(examplesCsv([...EXAMPLES, ...EXAMPLES.map((e) => ({ ...e, id: `${e.id}-b` }))]));
    const inMemory = await sorted(big);
    expect(inMemory.copy.runs).toBe(0);
    const merged = await sorted(big, 300); // a run of at most ~300 characters: a few rows each
    expect(merged.copy.runs).toBeGreaterThan(5);
    expect(merged.out).toBe(inMemory.out);
    for (const l of [2, 3, 10, 40]) expect(merged.copy.lineOf(l)).toBe(inMemory.copy.lineOf(l));
    await inMemory.copy.remove();
    await merged.copy.remove();
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('leaves a file already grouped by student as it is; reads another charset and writes UTF-8', async () => {
    const grouped = examplesCsv();
    const same = await sorted(grouped);
    expect(same.out).toBe(grouped);
    await same.copy.remove();
    const latin = `${HEADER}\n${row('É1', 'Fall', '6')}\n${row('É2', 'Fall', '6')}\n${row('É1', 'Spring', '6')}\n`;
    const { copy, out } = await sorted(encode(latin, 'windows-1252'), undefined, {
      ...DEFAULT_DIALECT,
      charset: 'windows-1252',
    });
    expect(copy.dialect.charset).toBe('utf-8');
    expect(out).toBe(`${HEADER}\n${row('É1', 'Fall', '6')}\n${row('É1', 'Spring', '6')}\n${row('É2', 'Fall', '6')}\n`);
    await copy.remove();
    expect(readdirSync(spoolDir)).toEqual([]);
  });
});

describe('sor bulk --sort', () => {
  const termSorted = join(tmp.dir, 'term-sorted.csv');
  writeFileSync(termSorted, byTerm(examplesCsv()));

  it('without --sort a file sorted by term is refused in one sentence (exit 1) that names --sort', async () => {
    const run = await startCli(['bulk', termSorted, '-o', join(tmp.dir, 'never.csv')]).done;
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^sor: error: The CSV file seems to be sorted by term, not by student: .*sor bulk --sort/,
    );
  });

  it('with --sort every worked example gets its published figures (examples.json)', async () => {
    const out = join(tmp.dir, 'sorted.out.csv');
    const run = await startCli(['bulk', termSorted, '-o', out, '--sort'], { env: { SPOOL_DIR: spoolDir } }).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/sor: sorted \d+ rows by student in .* s \(\d+ students had rows apart\)/);
    const rows = parseOutput(readFileSync(out, 'utf8'));
    for (const ex of EXAMPLES)
      expectRowsMatchExample(
        rows.filter((r) => r.student_id === ex.id),
        ex,
      );
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('messages name the lines of the user’s file, not of the sorted copy', async () => {
    const file = join(tmp.dir, 'bad.csv');
    writeFileSync(
      file,
      [HEADER, row('A', 'Fall', '6'), row('B', 'Fall', '6'), row('A', 'Spring', 'x'), row('B', 'Spring', '6')].join(
        '\n',
      ),
    );
    const run = await startCli(['bulk', file, '--sort', '--format', 'ndjson'], { env: { SPOOL_DIR: spoolDir } }).done;
    expect(run.code).toBe(2);
    const a = JSON.parse(run.stdout.split('\n')[0]!) as { error: { field_errors: { message: string }[] } };
    expect(a.error.field_errors.map((f) => f.message)).toEqual([expect.stringMatching(/^line 4: /)]);
  });
});
