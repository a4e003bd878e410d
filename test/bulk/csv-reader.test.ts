import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { CsvRecordReader } from '../../src/bulk/csv-reader.ts';
import { lenientSplit, recordCell, recordCells, type CsvRecord } from '../../src/bulk/csv-record.ts';

function readAll(
  text: string,
  pieces?: number[],
  expectedCells = 0,
  maxRecordChars?: number,
  rawLines = false,
): CsvRecord[] {
  const reader = new CsvRecordReader(maxRecordChars, { rawLines });
  reader.expectedCells = expectedCells;
  const out: CsvRecord[] = [];
  if (pieces === undefined) {
    reader.push(text, out);
  } else {
    let i = 0;
    for (let k = 0; i < text.length; k++) {
      const n = Math.max(1, pieces[k % pieces.length]!);
      reader.push(text.slice(i, i + n), out);
      i += n;
    }
  }
  reader.end(out);
  return out;
}

const cells = (records: CsvRecord[]) => records.map((r) => r.cells);

/** RFC 4180 writer used to build well-formed files from arbitrary cell values. */
function quote(cell: string): string {
  return /[",\r\n]/.test(cell) || cell.startsWith('"') ? `"${cell.replaceAll('"', '""')}"` : cell;
}

describe('CsvRecordReader: well-formed files', () => {
  it('reads BOM, CRLF, quoted commas, quotes and newlines, blank lines and a missing final newline', () => {
    const text = '\uFEFFa,b,c\r\n1,"x, y",3\r\n\r\n4,"say ""hi""",6\n7,"two\nlines",9\n\n10,11,12';
    const records = readAll(text, undefined, 3);
    expect(cells(records)).toEqual([
      ['a', 'b', 'c'],
      ['1', 'x, y', '3'],
      ['4', 'say "hi"', '6'],
      ['7', 'two\nlines', '9'],
      ['10', '11', '12'],
    ]);
    expect(records.map((r) => r.line)).toEqual([1, 2, 4, 5, 8]);
    expect(records.every((r) => r.error === undefined)).toBe(true);
  });

  it('ignores lines whose cells are all empty, and keeps empty cells elsewhere', () => {
    expect(cells(readAll('a,b\n,\n"",""\n,x\n'))).toEqual([
      ['a', 'b'],
      ['', 'x'],
    ]);
  });

  it('treats a quote inside an unquoted field as an ordinary character', () => {
    expect(cells(readAll('a,b\n5\'10",x\n'))).toEqual([
      ['a', 'b'],
      ['5\'10"', 'x'],
    ]);
  });

  it('keeps CR inside quoted fields and strips only the CRLF terminator', () => {
    expect(cells(readAll('a,b\r\n"x\r\ny",z\r\n', undefined, 2))).toEqual([
      ['a', 'b'],
      ['x\r\ny', 'z'],
    ]);
  });

  it('matches csv-parse on random well-formed files, whatever the chunk boundaries', () => {
    const cell = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('', ',', '"', '""', '\n', '\r\n', ' x ', 'a,b', '=1+2'),
    );
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((width) =>
            fc.tuple(
              fc.constant(width),
              fc.array(fc.array(cell, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 12 }),
              fc.constantFrom('\n', '\r\n'),
              fc.boolean(),
              fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }),
            ),
          ),
        ([width, rows, eol, finalEol, pieces]) => {
          const text = rows.map((r) => r.map(quote).join(',')).join(eol) + (finalEol ? eol : '');
          const expected = (parse(text, { relax_column_count: true }) as string[][]).filter((r) =>
            r.some((c) => c !== ''),
          );
          expect(cells(readAll(text, undefined, width))).toEqual(expected);
          expect(cells(readAll(text, pieces, width))).toEqual(expected);
          // rawLines mode (the pipeline's): same records, quote-free lines delivered as raw text.
          const raw = readAll(text, pieces, width, undefined, true);
          expect(raw.map(recordCells)).toEqual(expected);
          for (const r of raw) {
            const all = recordCells(r);
            for (let k = 0; k <= width; k++) expect(recordCell(r, k)).toBe(all[k] ?? '');
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads a 1 MB cell, quoted or not', () => {
    const big = 'x'.repeat(1024 * 1024);
    const text = `a,b\n1,${big}\n2,"${big},"\n3,z\n`;
    const records = readAll(text, [65_536], 2);
    expect(records.map((r) => [r.cells[0], r.cells[1]!.length])).toEqual([
      ['a', 1],
      ['1', big.length],
      ['2', big.length + 1],
      ['3', 1],
    ]);
  });
});

describe('CsvRecordReader: recovery rule (a broken record costs exactly its first line)', () => {
  it('an unclosed quote at the end of the file: that line is an error row, the lines it swallowed are read', () => {
    const text = 'a,b,c\n1,"open,3\n4,5,6\n7,8,9\n';
    for (const pieces of [undefined, [1], [3, 7]]) {
      const records = readAll(text, pieces, 3);
      expect(records.map((r) => [r.line, r.cells, r.error === undefined])).toEqual([
        [1, ['a', 'b', 'c'], true],
        [2, ['1', 'open', '3'], false],
        [3, ['4', '5', '6'], true],
        [4, ['7', '8', '9'], true],
      ]);
      expect(records[1]!.error).toMatch(/quoted field is not closed/);
    }
  });

  it('a closing quote followed by text breaks only its line', () => {
    const records = readAll('a,b,c\n1,"x"y,3\n4,5,6\n', undefined, 3);
    expect(records[1]).toMatchObject({ line: 2, cells: ['1', 'x"y', '3'] });
    expect(records[1]!.error).toMatch(/closing quote is followed by "y"/);
    expect(records[2]).toEqual({ line: 3, cells: ['4', '5', '6'] });
  });

  it('a quote that swallows lines until another quote breaks only its first line', () => {
    const text = 'a,b,c\n1,"open,3\n4,5,6\n7,"8",9\n10,11,12\n';
    const records = readAll(text, undefined, 3);
    expect(records.map((r) => [r.line, r.error === undefined])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [4, true],
      [5, true],
    ]);
    expect(records[3]!.cells).toEqual(['7', '8', '9']);
  });

  it('a multi-line record with the wrong number of cells is broken (its first line), not merged', () => {
    // Line 2 opens a quote that closes validly on line 3: one record of 4 cells where the header has 3.
    const text = 'a,b,c\n1,"x,2\nq",3,4\n5,6,7\n';
    const records = readAll(text, undefined, 3);
    expect(records.map((r) => [r.line, r.error === undefined])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [4, true],
    ]);
    expect(records[1]!.error).toMatch(/spans 2 lines/);
    expect(records[2]!.cells).toEqual(['q"', '3', '4']);
  });

  it('a valid multi-line record with the right width is kept', () => {
    const records = readAll('a,b,c\n1,"x\ny",3\n4,5,6\n', undefined, 3);
    expect(records.map((r) => [r.line, r.cells])).toEqual([
      [1, ['a', 'b', 'c']],
      [2, ['1', 'x\ny', '3']],
      [4, ['4', '5', '6']],
    ]);
  });

  it('an unclosed quote that would exceed the record limit is broken at its first line while streaming', () => {
    const filler = Array.from({ length: 20_000 }, (_, i) => `${i},y,z`).join('\n');
    const text = `a,b,c\n1,"open,3\n${filler}\n`;
    const records = readAll(text, [4096], 3, 1000);
    expect(records[1]).toMatchObject({ line: 2, cells: ['1', 'open', '3'] });
    expect(records[1]!.error).toMatch(/record size limit/);
    expect(records.length).toBe(2 + 20_000);
    expect(records.slice(2).every((r) => r.error === undefined)).toBe(true);
    expect(records.at(-1)).toEqual({ line: 20_002, cells: ['19999', 'y', 'z'] });
  });

  it('a physical line over the limit becomes one error row without being kept, and reading resumes after it', () => {
    const text = `a,b\nID7,${'x'.repeat(5000)}\nID8,ok\n`;
    for (const pieces of [[64], [1000], [100_000]]) {
      const records = readAll(text, pieces, 2, 1000);
      expect(records.map((r) => [r.line, r.cells[0], r.error === undefined])).toEqual([
        [1, 'a', true],
        [2, 'ID7', false],
        [3, 'ID8', true],
      ]);
    }
  });

  it('every physical line is in exactly one record or is blank, whatever is inserted, at any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            '1,2,3',
            '"a",b,c',
            'x,"y',
            'p"q",r,s',
            '"',
            ',,',
            '',
            'u,"v\nw",z',
            '"m""n",o,p',
            '1,2',
            '"",""',
          ),
          { minLength: 1, maxLength: 15 },
        ),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (lines, pieces, finalEol) => {
          const text = `h1,h2,h3\n${lines.join('\n')}${finalEol ? '\n' : ''}`;
          const whole = readAll(text, undefined, 3);
          expect(readAll(text, pieces, 3)).toEqual(whole);
          const raw = readAll(text, pieces, 3, undefined, true);
          expect(raw.map((r) => ({ line: r.line, cells: recordCells(r), error: r.error }))).toEqual(
            whole.map((r) => ({ line: r.line, cells: r.cells, error: r.error })),
          );
          const physical = text.split('\n');
          if (finalEol) physical.pop();
          const owner = new Array<number>(physical.length + 1).fill(-1);
          whole.forEach((r, k) => {
            const span = r.error === undefined ? r.cells.join(',').split('\n').length : 1;
            for (let l = r.line; l < r.line + span; l++) {
              expect(owner[l]).toBe(-1); // disjoint
              owner[l] = k;
            }
          });
          physical.forEach((content, i) => {
            if (owner[i + 1] === -1) expect(content.split(',').every((c) => c === '' || c === '""')).toBe(true);
          });
          expect(whole[0]!.cells).toEqual(['h1', 'h2', 'h3']);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('lenientSplit', () => {
  it('splits a broken line for echoing', () => {
    expect(lenientSplit('S1,"open,3')).toEqual(['S1', 'open', '3']);
    expect(lenientSplit('S1,"a"b,c')).toEqual(['S1', 'a"b', 'c']);
    expect(lenientSplit('S1,"a""b')).toEqual(['S1', 'a""b']);
    expect(lenientSplit('"S""1",x,')).toEqual(['S"1', 'x', '']);
    expect(lenientSplit('')).toEqual(['']);
  });
});

describe('CsvRecordReader: header option and cell limit', () => {
  const read = (text: string, pieces: number[], maxRecordChars = 200) => {
    const reader = new CsvRecordReader(maxRecordChars, { header: true, maxCellChars: 10, rawLines: true });
    const out: CsvRecord[] = [];
    let i = 0;
    for (let k = 0; i < text.length; k++) {
      const n = pieces[k % pieces.length]!;
      reader.push(text.slice(i, i + n), out);
      i += n;
    }
    reader.end(out);
    return out;
  };

  it('checks the width of multi-line records from the first data record, even when the file arrives whole', () => {
    const text = 'id,label,n\n1,"open,3\n2,x,4\n3,5"\n';
    for (const pieces of [[text.length], [1], [11, 1000]]) {
      const records = read(text, pieces);
      expect(records.map((r) => [r.line, recordCells(r), r.error !== undefined])).toEqual([
        [1, ['id', 'label', 'n'], false],
        [2, ['1', 'open', '3'], true],
        [3, ['2', 'x', '4'], false],
        [4, ['3', '5"'], false],
      ]);
      expect(records[1]!.error).toMatch(/spans 3 lines and leaves the record with 2 cells instead of 3/);
    }
  });

  it('a cell over the limit makes its row an error naming the column, every cell echoed cut to the limit', () => {
    const text = 'id,label,n\nA1,abcdefghijklmnop,3\n"A2",q,"0123456789xyz"\nA3,ok,4\n';
    const records = read(text, [7]);
    expect(records[1]).toMatchObject({ line: 2, cells: ['A1', 'abcdefghij', '3'] });
    expect(records[1]!.error).toBe(
      'the label cell has more than 10 characters (16), the most a cell may have; this row was not processed and ' +
        'its cells are echoed cut to 10 characters',
    );
    expect(records[2]).toMatchObject({ line: 3, cells: ['A2', 'q', '0123456789'] });
    expect(records[2]!.error).toMatch(/^the n cell has more than 10 characters \(13\)/);
    expect(records[3]).toEqual({ line: 4, cells: [], raw: 'A3,ok,4' });
  });

  it('a line over the row limit names the over-long cell and is never kept whole', () => {
    const text = `id,label,n\nA1,${'z'.repeat(5000)},3\nA2,ok,4\n`;
    for (const pieces of [[64], [text.length]]) {
      const records = read(text, pieces);
      expect(records[1]).toMatchObject({ line: 2, cells: ['A1', 'zzzzzzzzzz'] });
      expect(records[1]!.error).toMatch(
        /^malformed CSV: the line is longer than 200 characters, the most a row may have \(the label cell has more than 10 characters/,
      );
      expect(records[2]).toEqual({ line: 3, cells: [], raw: 'A2,ok,4' });
    }
  });
});
