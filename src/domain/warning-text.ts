/**
 * How the warning sentences (rules.md §7) write their figures and names: dollars exact with thousands separators
 * ($1,840; $2,000.50), credits as given (10.5), loan and grade names, lists ("a, b and c") and term names.
 */

import type { Dec } from './decimal.ts';
import type { GradeLevel, LoanType } from './types.ts';

function groupThousands(digits: string): string {
  const length = digits.length;
  if (length <= 3) return digits;
  const head = length % 3 === 0 ? 3 : length % 3;
  let out = digits.slice(0, head);
  for (let i = head; i < length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}

/** $1,840 for whole dollars; $2,000.50 or $0.125 for fractional inputs (exact, never rounded). */
export function formatDollars(amount: Dec): string {
  const negative = amount.isNegative() && !amount.isZero();
  const text = amount.abs().toFixed();
  const point = text.indexOf('.');
  if (point < 0) return `${negative ? '-' : ''}$${groupThousands(text)}`;
  let fraction = text.slice(point + 1);
  if (fraction.length === 1) fraction += '0';
  return `${negative ? '-' : ''}$${groupThousands(text.slice(0, point))}.${fraction}`;
}

/** A signed dollar change: +$875, -$90, $0. */
export function formatSignedDollars(amount: Dec): string {
  if (amount.isZero()) return '$0';
  return amount.isNegative() ? formatDollars(amount) : `+${formatDollars(amount)}`;
}

/** A credit count as written in normal notation without trailing zeros: 24, 10.5, 0.000001. */
export function formatCredits(credits: Dec): string {
  return credits.toFixed();
}

export function formatPercent(percent: Dec): string {
  return `${percent.toFixed()}%`;
}

const LOAN_NAMES: Readonly<Record<LoanType, string>> = {
  sub: 'subsidized',
  unsub: 'unsubsidized',
  grad_plus: 'Grad PLUS',
};

export function loanName(loan: LoanType): string {
  return LOAN_NAMES[loan];
}

export const GRADE_NAMES: Readonly<Record<GradeLevel, string>> = {
  first_year: 'first-year',
  second_year: 'second-year',
  third_year_and_beyond: 'third-year-and-beyond',
};

/** "a, b and c" */
export function joinList(items: readonly string[]): string {
  const n = items.length;
  if (n <= 1) return n === 0 ? '' : items[0]!;
  let out = items[0]!;
  for (let i = 1; i < n - 1; i++) out += `, ${items[i]!}`;
  return `${out} and ${items[n - 1]!}`;
}

export function termName(label: string, index: number): string {
  return `Term ${index + 1} ("${label}")`;
}

/** The sentence with its first letter in capitals. */
export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
