/**
 * The request's `award_year`: the zod field (documented from the limit table), the check that the
 * table holds the named award year, and the default — the award year in force on today's UTC date, taken here at
 * the door and handed to the pure domain as data.
 */
import 'zod-openapi';
import { z } from 'zod';
import type { FieldError } from '../errors.ts';
import { type LimitTable, awardYearOn, findAwardYear, supportedAwardYears } from '../domain/limits.ts';

/** The award years of the shipped limit table, for messages and the OpenAPI schema. */
const AWARD_YEARS = supportedAwardYears();

const wrongType = (issue: { input?: unknown }): string =>
  `must be a string naming an award year (${AWARD_YEARS.join(', ')})${issue.input === null ? '; null is not allowed here' : ''}`;

export const AwardYearField = z
  .string({ error: wrongType })
  .optional()
  .meta({
    override: ({ jsonSchema }) => {
      jsonSchema.enum = [...AWARD_YEARS];
    },
    description:
      `The award year the calculation is for, written like "${AWARD_YEARS[0] ?? ''}" (from July 1 of its first ` +
      `year to June 30 of the next): its statutory limits are used. Supported: ${AWARD_YEARS.join(', ')}; any other value is a 422 at \`award_year\` listing ` +
      'them. Left out: the newest supported award year whose July 1 start is not after the day the request ' +
      'is received (UTC date). Null is not allowed. An addition to the interface’s CalculationRequest.',
  });

/** The error for an award year the table does not hold (a string; other types are the zod field's error). */
export function checkAwardYear(value: unknown, table: LimitTable): FieldError | null {
  if (typeof value !== 'string' || findAwardYear(value, table) !== undefined) return null;
  return {
    field: 'award_year',
    message: `must be an award year this service holds limits for: ${supportedAwardYears(table).join(', ')}`,
  };
}

/** The award year of a request that names none: the one in force on `today` (default: today's UTC date). */
export function defaultAwardYear(table: LimitTable, today: string = todayUtc()): string {
  return awardYearOn(today, table);
}

let cachedDay = '';
let cachedDayEnds = 0;

/** Today's UTC date, YYYY-MM-DD (recomputed once a day: the bulk path asks for every student). */
export function todayUtc(now = Date.now()): string {
  if (now >= cachedDayEnds || now < cachedDayEnds - 86_400_000) {
    cachedDay = new Date(now).toISOString().slice(0, 10);
    cachedDayEnds = Date.UTC(
      Number(cachedDay.slice(0, 4)),
      Number(cachedDay.slice(5, 7)) - 1,
      Number(cachedDay.slice(8, 10)) + 1,
    );
  }
  return cachedDay;
}
