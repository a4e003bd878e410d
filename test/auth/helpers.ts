/** Shared by the access-control tests: the real API as a child process, and `sor token` run in-process. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.ts';
import { type Child, serverEnv, spawnNode } from '../support/processes.ts';
import { freePort } from '../support/redis.ts';

export interface Api {
  child: Child;
  base: string;
}

/** Starts src/server.ts with `env` (on a free port) and waits until it listens. */
export async function startApi(env: Record<string, string>): Promise<Api> {
  const port = await freePort();
  const child = spawnNode('src/server.ts', serverEnv({ PORT: String(port), ...env }));
  await child.waitFor(/"msg":"listening"/, 30_000);
  return { child, base: `http://127.0.0.1:${port}` };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `sor ARGS` in this process with the environment `env` (nothing of process.env). */
export async function sor(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const code = await main(args, { stdin: Readable.from([]), stdout, stderr, env });
  return { code, stdout: out, stderr: err };
}

/** `sor token create` → the token it printed once, and its id (from the stderr line). */
export async function createToken(
  env: Record<string, string | undefined>,
  name: string,
  extra: string[] = [],
): Promise<{ token: string; id: string }> {
  const run = await sor(['token', 'create', '--name', name, ...extra], env);
  if (run.code !== 0) throw new Error(`sor token create failed: ${run.stderr}`);
  const id = /token (tok_[0-9a-f]{16})/.exec(run.stderr)?.[1];
  if (!id) throw new Error(`no token id in: ${run.stderr}`);
  return { token: run.stdout.trim(), id };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** FSA Schedule of Reductions example 1 (examples.json FSA-1; README "Try it"): reduced_annual_pct 63. */
export const FSA_1 = {
  dependency_status: 'dependent',
  grade_level: 'first_year',
  subsidized_amount: 3500,
  total_limit: 5500,
  terms: [
    { label: 'Fall', full_time_credits: 12, credits_enrolled: 6 },
    { label: 'Spring', full_time_credits: 12, credits_enrolled: 9 },
  ],
};

const HEADER =
  'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,academic_year_terms,subsidized_amount,total_limit';

/** A bulk CSV of `students` students of two rows each (FSA-1's figures). */
export function studentsCsv(students: number): string {
  const rows = [HEADER];
  for (let i = 1; i <= students; i++) {
    rows.push(`S-${i},Fall,12,6,dependent,first_year,2,3500,5500`, `S-${i},Spring,12,9,,,,,`);
  }
  return `${rows.join('\n')}\n`;
}

/** Polls a job's status until it is finished. */
export async function waitForJob(base: string, id: string, token?: string): Promise<{ status: string }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${base}/v1/jobs/${id}`, { headers: token ? bearer(token) : {} });
    const body = (await res.json()) as { status: string };
    if (body.status === 'completed' || body.status === 'failed' || body.status === 'cancelled') return body;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${body.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The environment of an in-process service with its own token file, spool and results folders (a fresh temporary
 * folder named after `name`), plus `extra`.
 */
export function tokenServiceEnv(name: string, logLevel: string, extra: Record<string, string>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), `sor-${name}-`));
  return {
    LOG_LEVEL: logLevel,
    BULK_THREADS: '1',
    AUTH_TOKEN_PREFIX: 'svc_test_',
    AUTH_TOKENS_FILE: join(dir, 'tokens.json'),
    SPOOL_DIR: join(dir, 'spool'),
    JOBS_DIR: join(dir, 'jobs'),
    ...extra,
  };
}
