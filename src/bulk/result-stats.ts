/**
 * What a bulk run's results add up to: students calculated and students with errors, how many were reduced, the
 * dollars scheduled under each option, the reduced_annual_pct distribution, and the error rows grouped by field and
 * message. Counted where each chunk is calculated (process-chunk.ts: a few additions per student, next to the
 * output it writes anyway), carried with the chunk's outcome (through the queue too, covered by the output's MAC)
 * and added up on the pipeline's thread in chunk order (chunk-scheduler.ts), as the shadow check's counts are.
 * The async job shows them as `summary`, `error_groups` and its student counts (src/api/jobs-route.ts).
 *
 * Error groups keep input order: a group is listed where its first row is, with the first FIRST_LINES lines of its
 * rows, so the result is the same whichever runner ran which chunk. At most MAX_ERROR_GROUPS kinds are listed; rows
 * of any further kind are counted in one last group (OVERFLOW_MESSAGE), so every error row is counted once per
 * problem it has.
 */
import type { CalculationResult, DisbursementOption } from '../domain/types.ts';

/** reduced_annual_pct buckets: 0–9, 10–19, …, 90–99, and 100 alone (not reduced). */
export const PCT_BUCKETS = 11;
/** Lines listed per error group. */
export const FIRST_LINES = 5;
/** Kinds of error listed at most; the rows of further kinds are counted in the overflow group. */
export const MAX_ERROR_GROUPS = 50;
export const OVERFLOW_MESSAGE = 'errors of other kinds (the errors-only CSV lists every row)';
/** The group of a row without a problem of its own, in a student that has one. */
export const SIBLING_ERROR_MESSAGE = 'not calculated: another row of the same student has an error';

export interface ErrorGroup {
  /** The CSV column the problem is about; `row` for the row as a whole. */
  field: string;
  message: string;
  rows: number;
  /** The physical lines of the group's first rows, in input order. */
  first_lines: number[];
}

export interface ResultStats {
  students_ok: number;
  students_with_errors: number;
  /** Calculated students whose reduced_annual_pct is below 100. */
  students_reduced: number;
  /** Sums of total_equal and total_proportional (proportional is the equal amount where it is not offered). */
  equal: DisbursementOption;
  proportional: DisbursementOption;
  /** Calculated students per reduced_annual_pct bucket (PCT_BUCKETS). */
  pct: number[];
  error_groups: ErrorGroup[];
}

const zeroOption = (): DisbursementOption => ({ subsidized: 0, unsubsidized: 0, grad_plus: 0 });

export function emptyResultStats(): ResultStats {
  return {
    students_ok: 0,
    students_with_errors: 0,
    students_reduced: 0,
    equal: zeroOption(),
    proportional: zeroOption(),
    pct: new Array<number>(PCT_BUCKETS).fill(0),
    error_groups: [],
  };
}

/** The bucket of a percentage: 0–9 → 0, …, 90–99 → 9, 100 → 10. */
export function pctBucket(pct: number): number {
  if (pct >= 100) return PCT_BUCKETS - 1;
  return pct <= 0 ? 0 : Math.floor(pct / 10);
}

function addOption(into: DisbursementOption, more: DisbursementOption): void {
  into.subsidized += more.subsidized;
  into.unsubsidized += more.unsubsidized;
  into.grad_plus += more.grad_plus;
}

/** Counts one chunk's students (process-chunk.ts): one call per student, then `finish`. */
export class StatsCounter {
  readonly stats = emptyResultStats();
  readonly #groups = new Map<string, ErrorGroup>();

  ok(result: CalculationResult): void {
    const s = this.stats;
    s.students_ok++;
    if (result.reduced_annual_pct < 100) s.students_reduced++;
    s.pct[pctBucket(result.reduced_annual_pct)]!++;
    addOption(s.equal, result.total_equal);
    addOption(s.proportional, result.total_proportional);
  }

  /** An error student: `problems[r]` lists row r's own problems (empty: a row failed by its siblings). */
  error(lines: readonly number[], problems: readonly (readonly { field: string; message: string }[])[]): void {
    this.stats.students_with_errors++;
    for (let r = 0; r < lines.length; r++) {
      const own = problems[r] ?? [];
      if (own.length === 0) {
        this.#count('row', SIBLING_ERROR_MESSAGE, lines[r]!);
        continue;
      }
      for (let i = 0; i < own.length; i++) {
        const { field, message } = own[i]!;
        // A row with the same problem twice counts once in its group.
        if (own.findIndex((p) => p.field === field && p.message === message) !== i) continue;
        this.#count(field === '' ? 'row' : field, message, lines[r]!);
      }
    }
  }

  #count(field: string, message: string, line: number): void {
    let key = `${field}\u0000${message}`;
    let group = this.#groups.get(key);
    if (group === undefined && this.#groups.size >= MAX_ERROR_GROUPS) {
      key = `row\u0000${OVERFLOW_MESSAGE}`;
      group = this.#groups.get(key);
      field = 'row';
      message = OVERFLOW_MESSAGE;
    }
    if (group === undefined) {
      group = { field, message, rows: 0, first_lines: [] };
      this.#groups.set(key, group);
      this.stats.error_groups.push(group);
    }
    group.rows++;
    if (group.first_lines.length < FIRST_LINES) group.first_lines.push(line);
  }
}

/** Adds a chunk's stats (the later chunk) to `into`, keeping input order and the group cap. */
export function addResultStats(into: ResultStats, more: ResultStats): void {
  into.students_ok += more.students_ok;
  into.students_with_errors += more.students_with_errors;
  into.students_reduced += more.students_reduced;
  addOption(into.equal, more.equal);
  addOption(into.proportional, more.proportional);
  for (let i = 0; i < PCT_BUCKETS; i++) into.pct[i]! += more.pct[i] ?? 0;
  for (const g of more.error_groups) {
    let known = into.error_groups.find((k) => k.field === g.field && k.message === g.message);
    if (known === undefined) {
      const full = into.error_groups.filter((k) => k.message !== OVERFLOW_MESSAGE).length >= MAX_ERROR_GROUPS;
      known = full ? into.error_groups.find((k) => k.message === OVERFLOW_MESSAGE) : undefined;
      if (known === undefined) {
        known = full
          ? { field: 'row', message: OVERFLOW_MESSAGE, rows: 0, first_lines: [] }
          : { field: g.field, message: g.message, rows: 0, first_lines: [] };
        into.error_groups.push(known);
      }
    }
    known.rows += g.rows;
    for (const line of g.first_lines) {
      if (known.first_lines.length >= FIRST_LINES) break;
      known.first_lines.push(line);
    }
  }
}

/** A copy that shares nothing with `stats` (the progress the job store writes while the run goes on). */
export function copyResultStats(stats: ResultStats): ResultStats {
  const copy = emptyResultStats();
  addResultStats(copy, stats);
  return copy;
}

const count = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;

function isOption(v: unknown): v is DisbursementOption {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return count(o.subsidized) && count(o.unsubsidized) && count(o.grad_plus);
}

function isGroup(v: unknown): v is ErrorGroup {
  if (v === null || typeof v !== 'object') return false;
  const g = v as Record<string, unknown>;
  return (
    typeof g.field === 'string' &&
    typeof g.message === 'string' &&
    count(g.rows) &&
    Array.isArray(g.first_lines) &&
    g.first_lines.length <= FIRST_LINES &&
    g.first_lines.every(count)
  );
}

/** A chunk's stats as a queue worker reports them (checked before they are added up). */
export function isResultStats(v: unknown): v is ResultStats {
  if (v === null || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  return (
    count(s.students_ok) &&
    count(s.students_with_errors) &&
    count(s.students_reduced) &&
    isOption(s.equal) &&
    isOption(s.proportional) &&
    Array.isArray(s.pct) &&
    s.pct.length === PCT_BUCKETS &&
    s.pct.every(count) &&
    Array.isArray(s.error_groups) &&
    s.error_groups.length <= MAX_ERROR_GROUPS + 1 &&
    s.error_groups.every(isGroup)
  );
}
