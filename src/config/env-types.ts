/** The value types the environment variables are built from (src/config/env-schema.ts). */
import { z } from 'zod';

export const MiB = 1024 * 1024;

/** A whole number within [min, max], written in decimal digits. */
export const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform((s) => Number.parseInt(s, 10))
    .pipe(z.number().int().min(min).max(max));

/** A comma-separated list, each item trimmed and checked by `item`; unset or empty is the empty list. */
export const commaList = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter((o) => o !== ''),
    )
    .pipe(z.array(item));
