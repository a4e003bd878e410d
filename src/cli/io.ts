/** What every `sor` command shares: where it writes, a usage error, a failure told in one sentence. */
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../errors.ts';
import type { RunnerChoice } from '../bulk/pipeline.ts';
import { EXIT_FAILURE } from './exit-codes.ts';

/** Seams for tests (never set by the `sor` binary). */
export interface CliHooks {
  /** The runners of a local `sor bulk` (a slowed runner, to watch the progress). */
  runners?: RunnerChoice;
  /** How often a service's job is polled, in ms (default remote.ts POLL_MS). */
  pollMs?: number;
  /** How often progress is drawn, in ms (default: 100 on a terminal, 5,000 otherwise). */
  progressEveryMs?: number;
}

/** Where the CLI writes: injectable for tests. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  hooks?: CliHooks;
}

/** Bad arguments: main prints the message and the usage. */
export class UsageError extends Error {}

/** A failure told in one plain sentence (no stack, no errno code), with the exit status it ends the run with. */
export class CliFailure extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT_FAILURE) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Node's file errors in words (the code itself, ENOENT and such, is never shown). */
const FILE_PROBLEMS: Readonly<Record<string, { read: string; write: string }>> = {
  ENOENT: { read: 'there is no such file', write: 'its folder does not exist' },
  EACCES: { read: 'permission denied', write: 'permission denied' },
  EPERM: { read: 'permission denied', write: 'permission denied' },
  EISDIR: { read: 'it is a folder, not a file', write: 'it is a folder, not a file' },
  ENOTDIR: { read: 'a part of the path is not a folder', write: 'a part of the path is not a folder' },
  ENOSPC: { read: 'the disk is full', write: 'the disk is full' },
  EROFS: { read: 'the file system is read-only', write: 'the file system is read-only' },
  EMFILE: { read: 'too many files are open', write: 'too many files are open' },
};

interface ErrnoLike {
  code?: unknown;
  path?: unknown;
  message?: unknown;
}

function isErrno(err: unknown): err is ErrnoLike & Error {
  return (
    err instanceof Error &&
    typeof (err as ErrnoLike).code === 'string' &&
    /^E[A-Z]+$/.test(String((err as ErrnoLike).code))
  );
}

/**
 * A file the CLI could not read or write, as one sentence: `cannot read students.csv: there is no such file`.
 * Anything that is not a file error comes back as it is.
 */
export function fileFailure(err: unknown, verb: 'read' | 'write', path: string): unknown {
  if (!isErrno(err)) return err;
  const known = FILE_PROBLEMS[String(err.code)];
  // An unknown code: Node's words without the code and the system call ("EXDEV: cross-device link…, rename").
  const words =
    known?.[verb] ??
    String(err.message)
      .replace(/^E[A-Z]+: /, '')
      .replace(/, \w+ '.*'$/, '');
  return new CliFailure(`cannot ${verb} ${path}: ${words}`);
}

/** An error as one line (and its field errors) for stderr. */
export function describeError(err: unknown): string {
  if (err instanceof AppError) {
    const fields = (err.fieldErrors ?? []).map((f) => `\n  ${f.field}: ${f.message}`).join('');
    return `${err.message}${fields}`;
  }
  if (isErrno(err)) {
    const path = typeof err.path === 'string' ? err.path : 'a file';
    return (fileFailure(err, 'read', path) as Error).message;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The exit status of a failure: its own for a CliFailure, else 1. */
export function exitCodeOf(err: unknown): number {
  return err instanceof CliFailure ? err.exitCode : EXIT_FAILURE;
}
