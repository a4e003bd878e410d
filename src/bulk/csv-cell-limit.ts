/**
 * The cell size limit of the bulk CSV reader (csv-reader.ts, option `maxCellChars`): which cells of a record are
 * over it, how the offending columns are named in a row's message (by the header's names, or by position past
 * the header), and the cut copies of the cells that an error row echoes.
 */

/** The length of the longest cell. */
export function longestCell(cells: readonly string[]): number {
  let longest = 0;
  for (let i = 0; i < cells.length; i++) if (cells[i]!.length > longest) longest = cells[i]!.length;
  return longest;
}

export class CellLimit {
  /** The most characters a cell may have (infinite: no limit). */
  readonly max: number;
  #columnNames: readonly string[] = [];

  constructor(max: number = Number.POSITIVE_INFINITY) {
    this.max = max;
  }

  /** The header's cells name the columns of later messages. */
  nameColumns(header: readonly string[]): void {
    this.#columnNames = header.map((name) => name.trim());
  }

  /** Positions of the cells longer than the limit. */
  over(cells: readonly string[]): number[] {
    const over: number[] = [];
    cells.forEach((c, k) => {
      if (c.length > this.max) over.push(k);
    });
    return over;
  }

  /** "the term_label cell has" / "the cells term_label, x have"; a column past the header is named by position. */
  columnsHave(indexes: readonly number[]): string {
    const names = indexes.map((k) => {
      const name = this.#columnNames[k];
      return name === undefined || name === '' ? `column ${k + 1}` : name;
    });
    return names.length === 1 ? `the ${names[0]} cell has` : `the cells ${names.join(', ')} have`;
  }

  /** Cells of an error row, each cut to `limit` (by default the cell limit; none when there is none). */
  cut(cells: readonly string[], limit: number = this.max): string[] {
    return cells.map((c) => (c.length > limit ? c.slice(0, limit) : c));
  }
}
