/**
 * Hints for a rejected header row: the layout column an unknown name probably meant (`credit_enrolled` → did you
 * mean `credits_enrolled`), and the delimiter a file seems to use when its header does not split on the one
 * declared (a European Excel export with `;`, "text (tab delimited)").
 */
import { CSV_DELIMITERS, delimiterName, type CsvDelimiterName } from './csv-dialect.ts';

/** Levenshtein distance, stopping early once it is over `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < best) best = value;
    }
    if (best > max) return max + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/** The known column nearest to `name` (at most 2 edits, or one name containing the other), if any. */
export function nearestColumn(name: string, known: readonly string[]): string | undefined {
  const wanted = name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  let best: string | undefined;
  let bestDistance = 3;
  for (const column of known) {
    const d = wanted === column ? 0 : distance(wanted, column, 2);
    if (d < bestDistance) {
      best = column;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The delimiter a header row seems to use when it was split on `used`: one under which the row (its cells joined
 * back) splits into several cells, one of them `student_id`.
 */
export function guessDelimiter(cells: readonly string[], used: string): CsvDelimiterName | undefined {
  const text = cells.join(used);
  for (const name of Object.keys(CSV_DELIMITERS) as CsvDelimiterName[]) {
    const candidate = CSV_DELIMITERS[name];
    if (candidate === used) continue;
    const parts = text.split(candidate).map((c) =>
      c
        .trim()
        .toLowerCase()
        .replace(/^\ufeff/, ''),
    );
    if (parts.length > 1 && parts.includes('student_id')) return name;
  }
  return undefined;
}

/** The sentence a header error ends with when the file seems to use another delimiter ('' when not). */
export function delimiterHint(cells: readonly string[], used: string): string {
  const name = guessDelimiter(cells, used);
  if (name === undefined) return '';
  const shown = name === 'tab' ? 'tabs' : `"${CSV_DELIMITERS[name]}"`;
  const current = delimiterName(used) ?? 'comma';
  return (
    ` This file seems to use ${shown} between cells, not ${current === 'tab' ? 'tabs' : `"${used}"`}: add ` +
    `?delimiter=${name} to the URL (command line: --delimiter ${name}).`
  );
}
