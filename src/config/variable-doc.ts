/**
 * How a configuration variable is documented: its metadata in the config schema (src/config/env-schema.ts),
 * from which docs/configuration.md is rendered (scripts/config-docs.ts).
 */
import type { z } from 'zod';

/** The sections of the configuration reference, in its order. */
export const CONFIG_SECTIONS = [
  'Service',
  'Bulk files',
  'Uploads and connections',
  'Redis and the queue',
  'Queue workers',
  'Async jobs',
  'Webhooks',
  'Access control',
  'Queue dashboard',
  'School policy',
] as const;

/** What the configuration reference says about one variable (the schema's metadata). */
export interface VariableDoc {
  section: (typeof CONFIG_SECTIONS)[number];
  /** What it does and when to change it (markdown, one paragraph). */
  description: string;
  /** The default as the reference shows it, when the schema's own is computed or there is none. */
  default?: string;
  /** For benchmarks and deep tuning only: listed apart, in the reference's advanced section. */
  advanced?: true;
  /** A deprecated name: the variable that replaces it. */
  replacedBy?: string;
}

/** `schema` with its documentation attached (zod metadata, read back by configVariables in src/config.ts). */
export const doc = <T extends z.ZodType>(schema: T, meta: VariableDoc): T => schema.meta({ ...meta });
