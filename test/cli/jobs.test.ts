/**
 * `sor jobs` against a real service (runtime + app in this process), as an ETL script drives it: submit prints the
 * job id alone on stdout; status in words and as the job resource; download of the result, of another format and
 * of the error rows only; submit --wait --out gives the bytes of a local `sor bulk`; --callback reaches the job;
 * cancel, and a download before completion, against a service whose calculation is held (never a sleep).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CSV_INVALID_EXAMPLES, EXAMPLES, examplesCsv } from '../bulk/examples.ts';
import { parseOutput } from '../bulk/helpers.ts';
import { type RunningService, startService, testConfig } from '../queue/helpers.ts';
import { holdingRunner, jobService, startCli, tempDir } from './harness.ts';

const tmp = tempDir('jobs');
const input = join(tmp.dir, 'students.csv');
writeFileSync(input, examplesCsv([...EXAMPLES, ...CSV_INVALID_EXAMPLES]));
const SECRET = 'a'.repeat(40);
let service: RunningService;
let base: string;

beforeAll(async () => {
  service = await startService(
    testConfig({
      SPOOL_DIR: join(tmp.dir, 'spool'),
      JOBS_DIR: join(tmp.dir, 'jobs'),
      BULK_CHUNK_STUDENTS: '4',
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_ALLOW: 'http://127.0.0.1:9',
    }),
  );
  base = service.base;
}, 60_000);

afterAll(async () => {
  await service?.close();
  tmp.rm();
});

const sor = (args: string[], env: Record<string, string> = {}) =>
  startCli([...args.slice(0, 2), ...args.slice(2)], { env: { SOR_SERVER: base, ...env }, hooks: { pollMs: 20 } }).done;

async function completed(id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 1200; i++) {
    const job = (await (await fetch(`${base}/v1/jobs/${id}`)).json()) as Record<string, unknown>;
    if (job.status !== 'queued' && job.status !== 'running') return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${id} did not finish`);
}

describe('sor jobs against a service', () => {
  let id: string;

  it('submit prints the job id alone on stdout (ID=$(sor jobs submit f.csv)) and exits 0', async () => {
    const run = await sor(['jobs', 'submit', input]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^[0-9a-f]{20,}\n$/);
    id = run.stdout.trim();
    expect(run.stderr).toContain(`sor: job ${id} accepted (queued) by ${base}`);
    expect((await completed(id)).status).toBe('completed');
  });

  it('status says it in words, --json gives the job resource', async () => {
    const words = await sor(['jobs', 'status', id]);
    expect(words.code).toBe(0);
    const students = EXAMPLES.length + CSV_INVALID_EXAMPLES.length;
    expect(words.stdout).toContain(`job ${id}: completed\n`);
    expect(words.stdout).toContain(`  students: ${students} of ${students} done (100%)`);
    expect(words.stdout).toMatch(/ {2}errors \(rows, first lines\):\n {4}\S.* \(\d+; lines \d+/);
    expect(words.stdout).toContain(`  error rows only: sor jobs download ${id} --errors-only --out errors.csv`);
    const json = await sor(['jobs', 'status', id, '--json']);
    const job = JSON.parse(json.stdout) as { id: string; status: string; links: Record<string, string> };
    expect([job.id, job.status, job.links.self]).toEqual([id, 'completed', `/v1/jobs/${id}`]);
  });

  it('download gives the result, another format, or the header and error rows only', async () => {
    const whole = await sor(['jobs', 'download', id]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toBe(await (await fetch(`${base}/v1/jobs/${id}/result`)).text());
    const rows = parseOutput(whole.stdout);
    expect(rows.filter((r) => r.row_status === 'error').length).toBeGreaterThan(0);

    const out = join(tmp.dir, 'errors.csv');
    const errors = await sor(['jobs', 'download', id, '--errors-only', '--out', out]);
    expect(errors.code, errors.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text.slice(0, text.indexOf('\n'))).toBe(whole.stdout.slice(0, whole.stdout.indexOf('\n')));
    expect(parseOutput(text)).toEqual(rows.filter((r) => r.row_status === 'error'));
    expect(errors.stderr).toMatch(new RegExp(`wrote ${out}: the \\d+ error rows of job ${id}`));

    const ndjson = await sor(['jobs', 'download', id, '--format', 'ndjson']);
    expect(ndjson.stdout.trimEnd().split('\n')).toHaveLength(EXAMPLES.length + CSV_INVALID_EXAMPLES.length);
  });

  it('submit --wait --out writes the bytes a local sor bulk writes, with its exit status (2: error rows)', async () => {
    const local = join(tmp.dir, 'local.csv');
    const localRun = await startCli(['bulk', input, '-o', local]).done;
    const remote = join(tmp.dir, 'remote.csv');
    const run = await sor(['jobs', 'submit', input, '--wait', '--out', remote]);
    expect([run.code, localRun.code]).toEqual([2, 2]);
    expect(readFileSync(remote).equals(readFileSync(local))).toBe(true);
    expect(run.stdout).toBe(''); // no id on stdout when waiting: the summary says it
    expect(run.stderr).toMatch(/sor: \d+ rows, \d+ students in .* s on http.* \(job [0-9a-f]+\): \d+ error rows/);
  });

  it('--callback reaches the job (callback_url); a callback the service refuses is one sentence, exit 4', async () => {
    const run = await sor(['jobs', 'submit', input, '--callback', 'http://127.0.0.1:9/sor-events']);
    expect(run.code, run.stderr).toBe(0);
    const job = (await (await fetch(`${base}/v1/jobs/${run.stdout.trim()}`)).json()) as { callback: { url: string } };
    expect(job.callback.url).toBe('http://127.0.0.1:9/sor-events');
    const refused = await sor(['jobs', 'submit', input, '--callback', 'http://10.0.0.8/hook']);
    expect(refused.code).toBe(4);
    const said = refused.stderr.replace(/^sor: uploading .*\n/, '');
    expect(said).toMatch(/^sor: error: the service refused to take the file \(validation_error\): callback_url /);
    // One sentence (the envelope's field errors follow it, indented).
    expect(
      said
        .trimEnd()
        .split('\n')
        .filter((l) => !l.startsWith('  ')),
    ).toHaveLength(1);
  });

  it('an unknown job: one sentence, exit 4', async () => {
    const run = await sor(['jobs', 'status', 'f'.repeat(52)]);
    expect(run.code).toBe(4);
    expect(run.stderr).toBe(
      `sor: error: there is no job ${'f'.repeat(52)} on ${base}: There is no job with this id (jobs expire after their time to live).\n`,
    );
  });
});

describe('sor jobs against a service whose calculation is held', () => {
  it('download before completion is exit 4; cancel stops the job; its download is then exit 5', async () => {
    const hold = holdingRunner(0);
    const held = await jobService(hold.runner, tmp.dir);
    const run = (args: string[]) => startCli([...args, '--server', held.base]).done;
    try {
      const submitted = await run(['jobs', 'submit', input]);
      const id = submitted.stdout.trim();
      await hold.arrived;
      const early = await run(['jobs', 'download', id]);
      expect(early.code).toBe(4);
      expect(early.stderr).toMatch(
        new RegExp(
          `^sor: error: job ${id} is running \\(0 of \\d+ students done\\): its results are ready once it completes; sor jobs status ${id} shows its progress\\n$`,
        ),
      );
      const cancel = await run(['jobs', 'cancel', id]);
      expect(cancel.code, cancel.stderr).toBe(0);
      expect(cancel.stderr).toMatch(new RegExp(`^sor: job ${id} cancelled \\(0 of \\d+ students had been done\\)\\n$`));
      const late = await run(['jobs', 'download', id]);
      expect([late.code, late.stderr]).toEqual([5, `sor: error: job ${id} was cancelled\n`]);
      const again = await run(['jobs', 'cancel', id]);
      expect([again.code, again.stderr]).toEqual([0, `sor: job ${id} was already cancelled\n`]);
    } finally {
      hold.release();
      await held.close();
    }
  }, 60_000);
});
