/**
 * `--policy option=value` of the CLI (rules.md §10): a bad option or value never reaches a calculation — the run
 * stops with the usage exit status (1) and a message naming the option, before any file is read; a bad
 * SOR_POLICY stops it too. The figures under a good policy are test/queue/policy-doors.test.ts's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyFromArgs, policyQueryParams } from '../../src/cli/policy-options.ts';
import { UsageError } from '../../src/cli/io.ts';
import { EXIT_FAILURE } from '../../src/cli/exit-codes.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sor-cli-policy-'));
  writeFileSync(
    join(dir, 'in.csv'),
    'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level\nA,Fall,12,12,dependent,first_year\n',
  );
  writeFileSync(
    join(dir, 'req.json'),
    JSON.stringify({
      dependency_status: 'dependent',
      grade_level: 'first_year',
      terms: [{ label: 'Fall', full_time_credits: 12, credits_enrolled: 12 }],
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sor(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

describe('--policy', () => {
  it('parses repeated option=value items; none is no options', () => {
    expect(policyFromArgs(undefined)).toEqual({});
    expect(policyFromArgs(['proration_fraction=decimal_truncated', 'grad_plus_gap=before_reduction'])).toEqual({
      proration_fraction: 'decimal_truncated',
      grad_plus_gap: 'before_reduction',
    });
    expect(policyQueryParams({ remainder_placement: 'last_term' })).toEqual([
      ['policy.remainder_placement', 'last_term'],
    ]);
  });

  it.each([
    [
      ['proration_fraction=rounded'],
      /^--policy proration_fraction must be one of: exact, decimal_rounded, decimal_truncated \(got "rounded"\)$/,
    ],
    [['rounding=exact'], /^--policy rounding is not a school-policy option \(options: proration_fraction, /],
    [['last_term'], /^--policy last_term must be written option=value/],
    [
      ['remainder_placement=last_term', 'remainder_placement=largest_remainder'],
      /^--policy remainder_placement is given twice/,
    ],
  ])('%j is a usage error naming the option', (items, message) => {
    expect(() => policyFromArgs(items)).toThrow(UsageError);
    expect(() => policyFromArgs(items)).toThrow(message);
  });

  it.each([
    ['bulk', 'in.csv'],
    ['bulk', 'missing.csv'],
    ['calculate', 'req.json'],
  ])('sor %s %s with a bad --policy exits 1 with the message and the usage, writing nothing', async (command, file) => {
    const run = await sor([command, file, '--policy', 'single_term_basis=half']);
    expect(run.code).toBe(EXIT_FAILURE);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^sor: --policy single_term_basis must be one of: full_annual, half_annual \(got "half"\)\n/,
    );
    expect(run.stderr).toMatch(/Usage:/);
  });

  it('with --server, a bad --policy is refused before anything is sent', async () => {
    const run = await sor(['bulk', 'in.csv', '--server', 'http://127.0.0.1:9', '--policy', 'grad_plus_gap=x']);
    expect(run.code).toBe(EXIT_FAILURE);
    expect(run.stderr).toMatch(/^sor: --policy grad_plus_gap must be one of/);
    expect(run.stderr).not.toMatch(/uploading/);
  });

  it('a bad SOR_POLICY stops sor bulk and sor calculate with the message naming the option', async () => {
    for (const args of [
      ['bulk', 'in.csv'],
      ['calculate', 'req.json'],
    ]) {
      const run = await sor(args, { SOR_POLICY: 'below_half_time_credits=dropped' });
      expect(run.code).toBe(EXIT_FAILURE);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/SOR_POLICY .*below_half_time_credits must be one of: counted, excluded/);
    }
  });

  it('a good --policy runs (exit 0), and shows in the warnings', async () => {
    const run = await sor(['calculate', 'req.json', '--policy', 'remainder_placement=last_term']);
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { warnings: string[] }).warnings).toContain(
      'School policy in force: remainder_placement=last_term.',
    );
  });
});
