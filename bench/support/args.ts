/**
 * The one command-line parser of the benchmarks (node:util parseArgs underneath). Each benchmark declares its
 * options once — type, default, an optional environment variable read when the flag is absent, and a line of
 * help — and gets typed values back. `--help` prints the options; an unknown option or a bad number stops the
 * benchmark with the usage (exit code 2) instead of silently running with a default.
 */
import { parseArgs } from 'node:util';

interface NumberOption {
  type: 'number';
  default: number;
  /** Smallest accepted value (default 1: counts and sizes). */
  min?: number;
  env?: string;
  help: string;
}

interface StringOption {
  type: 'string';
  default: string;
  env?: string;
  help: string;
}

interface BooleanOption {
  type: 'boolean';
  default: boolean;
  help: string;
}

export type BenchOption = NumberOption | StringOption | BooleanOption;

export type BenchValues<S extends Record<string, BenchOption>> = {
  [K in keyof S]: S[K] extends NumberOption ? number : S[K] extends BooleanOption ? boolean : string;
};

/** The usage text: the command, then one line per option with its default and environment variable. */
export function usageText(command: string, spec: Readonly<Record<string, BenchOption>>): string {
  const lines = [`usage: ${command} [options]`];
  for (const [name, option] of Object.entries(spec)) {
    const flag = option.type === 'boolean' ? `--${name}` : `--${name} <${option.type}>`;
    const env = option.type !== 'boolean' && option.env !== undefined ? `, env ${option.env}` : '';
    lines.push(`  ${flag.padEnd(28)} ${option.help} (default ${String(option.default)}${env})`);
  }
  return lines.join('\n');
}

export class BenchArgsError extends Error {}

/**
 * Reads `argv` (default: this process's arguments) against `spec`. Throws BenchArgsError on an unknown option,
 * a missing value or a number out of range; use `benchArgs` to print the usage and exit instead.
 */
export function parseBenchArgs<S extends Record<string, BenchOption>>(
  spec: S,
  argv: readonly string[] = process.argv.slice(2),
  env: Readonly<Record<string, string | undefined>> = process.env,
): BenchValues<S> & { help: boolean } {
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const [name, option] of Object.entries(spec)) {
    options[name] = { type: option.type === 'boolean' ? 'boolean' : 'string' };
  }
  let parsed: Record<string, string | boolean | undefined>;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new BenchArgsError((err as Error).message);
  }
  const out: Record<string, string | number | boolean> = { help: parsed.help === true };
  for (const [name, option] of Object.entries(spec)) {
    const given = parsed[name];
    if (option.type === 'boolean') {
      out[name] = given === true || (given === undefined && option.default);
      continue;
    }
    const text = typeof given === 'string' ? given : option.env === undefined ? undefined : env[option.env];
    if (text === undefined || text === '') {
      out[name] = option.default;
    } else if (option.type === 'string') {
      out[name] = text;
    } else {
      const value = Number(text);
      const min = option.min ?? 1;
      if (!Number.isFinite(value) || value < min) {
        throw new BenchArgsError(`--${name} must be a number of at least ${min} (got ${JSON.stringify(text)})`);
      }
      out[name] = value;
    }
  }
  return out as BenchValues<S> & { help: boolean };
}

/** `parseBenchArgs` for a benchmark's entry point: prints the usage and exits on --help (0) or bad input (2). */
export function benchArgs<S extends Record<string, BenchOption>>(command: string, spec: S): BenchValues<S> {
  try {
    const values = parseBenchArgs(spec);
    if (values.help) {
      console.log(usageText(command, spec));
      process.exit(0);
    }
    return values;
  } catch (err) {
    if (!(err instanceof BenchArgsError)) throw err;
    console.error(`${command}: ${err.message}\n${usageText(command, spec)}`);
    process.exit(2);
  }
}
