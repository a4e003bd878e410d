/** What every `sor` command shares: where it writes, a usage error, and how an error is told on stderr. */
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../errors.ts';

/** Where the CLI writes: injectable for tests. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
}

/** Bad arguments: main prints the message and the usage. */
export class UsageError extends Error {}

/** An error as one line (and its field errors) for stderr. */
export function describeError(err: unknown): string {
  if (err instanceof AppError) {
    const fields = (err.fieldErrors ?? []).map((f) => `\n  ${f.field}: ${f.message}`).join('');
    return `${err.message}${fields}`;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
