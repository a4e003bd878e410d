/**
 * Environment → typed configuration, validated once at start-up and frozen. A bad value stops start-up with a
 * one-line message naming the variable (ConfigError). Tests build configs with `loadConfig({...})` instead of
 * touching process.env.
 *
 * The variables, their validation and their documentation are one schema (src/config/env-schema.ts); the
 * configuration reference docs/configuration.md is rendered from it (`npm run docs:config`).
 */
import type { z } from 'zod';
import { globalRegistry } from 'zod';
import { redactUrl } from './redact.ts';
import { DEFAULT_REDIS_PREFIX, EnvSchema } from './config/env-schema.ts';
import type { VariableDoc } from './config/variable-doc.ts';

export { CONFIG_SECTIONS, type VariableDoc } from './config/variable-doc.ts';

/** Variables whose value is never printed, and the URLs, printed only redacted (src/redact.ts). */
const SECRET_VARIABLES = new Set(['ADMIN_TOKEN', 'QUEUE_SIGNING_KEY', 'WEBHOOK_SECRET']);

function shownValue(name: string, value: string | undefined): string {
  if (value === undefined) return '""';
  if (SECRET_VARIABLES.has(name)) return `a value of ${value.length} characters, not shown`;
  if (name === 'REDIS_URL' || name === 'WEBHOOK_URL') return redactUrl(value);
  return JSON.stringify(value);
}

type ParsedEnv = z.output<typeof EnvSchema>;

/** The configuration: the variables with defaults applied, deprecated names folded into their successors. */
export type Config = Readonly<Omit<ParsedEnv, 'REDIS_PREFIX' | 'BULLMQ_PREFIX'> & { REDIS_PREFIX: string }>;

export interface ConfigVariable {
  name: string;
  schema: z.ZodType;
  doc: VariableDoc;
}

/** Every variable with its documentation, in the schema's order. */
export function configVariables(): ConfigVariable[] {
  return Object.entries(EnvSchema.shape).map(([name, schema]) => {
    const doc = globalRegistry.get(schema) as VariableDoc | undefined;
    if (doc === undefined) throw new Error(`config: ${name} has no documentation (doc(...) in env-schema.ts)`);
    return { name, schema, doc };
  });
}

/**
 * One warning per deprecated variable set in `env` (start-up logs them): its successor's name, and which value
 * is used when both are set.
 */
export function deprecationWarnings(env: Record<string, string | undefined> = process.env): string[] {
  const warnings: string[] = [];
  for (const { name, doc } of configVariables()) {
    const current = doc.replacedBy;
    if (current === undefined || env[name] === undefined) continue;
    warnings.push(
      env[current] === undefined
        ? `config: ${name} is deprecated, use ${current} (its value is used for now)`
        : `config: ${name} is deprecated and ignored: ${current} is set too and wins; remove ${name}`,
    );
  }
  return warnings;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reads only the variables of the schema; unknown variables are ignored (the environment holds many others). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const value = env[key];
    if (value !== undefined) picked[key] = value;
  }
  const parsed = EnvSchema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(
      `Invalid configuration: ${name} ${issue?.message ?? 'is invalid'} (got ${shownValue(name, picked[name])})`,
    );
  }
  if (parsed.data.REDIS_URL && !parsed.data.QUEUE_SIGNING_KEY) {
    throw new ConfigError(
      'Invalid configuration: QUEUE_SIGNING_KEY is required when REDIS_URL is set (at least 32 characters, the ' +
        'same on the API and every worker; generate one with: openssl rand -hex 32)',
    );
  }
  if (parsed.data.WEBHOOK_URL && !parsed.data.WEBHOOK_SECRET) {
    throw new ConfigError(
      'Invalid configuration: WEBHOOK_SECRET is required when WEBHOOK_URL is set (at least 32 characters, the key ' +
        'receivers verify Sor-Signature with; generate one with: openssl rand -hex 32)',
    );
  }
  const { REDIS_PREFIX, BULLMQ_PREFIX, ...rest } = parsed.data;
  return Object.freeze({ ...rest, REDIS_PREFIX: REDIS_PREFIX ?? BULLMQ_PREFIX ?? DEFAULT_REDIS_PREFIX });
}
