/**
 * The OpenAPI prose about the statutory limits, generated from the limit table (src/domain/limits.ts) so that no
 * loan-limit figure or citation is written twice: the award years, a table of every row with its effective date,
 * citation and links, the graduate and professional figures of the legal basis, and the sample CSV's amounts.
 */
import { type LimitTable, STATUTORY_LIMIT_TABLE, type StatutoryLimitRow } from '../../domain/limits.ts';

/** "1234567" → "$1,234,567" (the table holds whole dollars as decimal strings). */
export function wholeDollars(amount: string): string {
  return `$${amount.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

/** "2026-27" or "2026-27, 2027-28" with "award year(s)" before it. */
export function awardYearsPhrase(table: LimitTable = STATUTORY_LIMIT_TABLE): string {
  const years = table.map((y) => y.awardYear);
  return `award year${years.length === 1 ? '' : 's'} ${years.join(', ')}`;
}

const GRADES: Readonly<Record<string, string>> = {
  first_year: 'first year',
  second_year: 'second year',
  third_year_and_beyond: 'third year and beyond',
};

function studentOf(row: StatutoryLimitRow): string {
  if (row.degree === 'undergraduate') {
    const who = row.dependency === 'dependent' ? 'dependent' : 'independent, or dependent with plus_denied';
    return `Undergraduate, ${who}, ${GRADES[row.grade ?? ''] ?? String(row.grade)}`;
  }
  const degree = row.degree === 'graduate' ? 'Graduate' : 'Professional';
  return `${degree}, ${row.legacy === true ? 'is_legacy_borrower (interim exception)' : 'not legacy'}`;
}

function gradPlusOf(row: StatutoryLimitRow): string {
  return row.gradPlus === 'none' ? 'none' : 'up to cost of attendance (after the reduction), unless plus_denied';
}

function referencesOf(row: StatutoryLimitRow): string {
  return row.references.map((r) => `[${r.title}](${r.href})`).join('; ');
}

/** Every award year of the table as a Markdown table: figures, effective date, citation and links per row. */
export function limitTableMarkdown(table: LimitTable = STATUTORY_LIMIT_TABLE): string {
  const parts: string[] = [];
  for (const year of table) {
    parts.push(
      `**Award year ${year.awardYear}** (from ${year.start}; request \`"award_year": "${year.awardYear}"\`)`,
      '',
      '| Student | Subsidized max | Combined Sub + Unsub max | Grad PLUS | Effective | Citation | References |',
      '|---|---|---|---|---|---|---|',
      ...year.rows.map(
        (r) =>
          `| ${studentOf(r)} | ${wholeDollars(r.subsidizedMax)} | ${wholeDollars(r.combinedMax)} | ${gradPlusOf(r)} | ` +
          `${r.effective} | ${r.citation} | ${referencesOf(r)} |`,
      ),
      '',
    );
  }
  return parts.join('\n').trimEnd();
}

function firstRow(table: LimitTable, match: (r: StatutoryLimitRow) => boolean, what: string): StatutoryLimitRow {
  const row = table[0]?.rows.find(match);
  if (row === undefined) throw new Error(`limits-prose: the limit table has no ${what} row`);
  return row;
}

/** The combined limits of a non-legacy graduate and professional student in the table's first award year. */
export function graduateFigures(table: LimitTable = STATUTORY_LIMIT_TABLE): { graduate: string; professional: string } {
  const nonLegacy = (degree: string) => (r: StatutoryLimitRow) => r.degree === degree && r.legacy === false;
  return {
    graduate: wholeDollars(firstRow(table, nonLegacy('graduate'), 'graduate').combinedMax),
    professional: wholeDollars(firstRow(table, nonLegacy('professional'), 'professional').combinedMax),
  };
}

/**
 * The sample amounts of a dependent first-year undergraduate (the first award year's row): full need is the
 * subsidized maximum, and the combined maximum serves as the program limit.
 */
export function dependentFirstYear(table: LimitTable = STATUTORY_LIMIT_TABLE): {
  subsidizedMax: string;
  combinedMax: string;
} {
  const row = firstRow(
    table,
    (r) => r.degree === 'undergraduate' && r.dependency === 'dependent' && r.grade === 'first_year',
    'dependent first-year',
  );
  return { subsidizedMax: row.subsidizedMax, combinedMax: row.combinedMax };
}
