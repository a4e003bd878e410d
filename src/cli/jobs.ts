/**
 * `sor jobs`: a running service's async jobs from the command line (docs/command-line.md, "Jobs"):
 *
 *   sor jobs submit FILE [--wait] [--out FILE] [--callback URL]   POST /v1/jobs; --wait follows it to the end,
 *                                                                  --out also downloads its result (implies --wait)
 *   sor jobs status ID [--json]                                    GET /v1/jobs/{id}
 *   sor jobs download ID [--out FILE] [--errors-only] [--format F]  its result (or the header and error rows only)
 *   sor jobs cancel ID                                             DELETE /v1/jobs/{id}
 *
 * Every command takes --server URL (or SOR_SERVER) and --token T (or SOR_TOKEN). Failures are one sentence each,
 * with the exit statuses of exit-codes.ts.
 */
import { parseArgs } from 'node:util';
import { EXIT_OK, EXIT_REFUSED } from './exit-codes.ts';
import { CliFailure, UsageError, describeError, exitCodeOf, type CliIo } from './io.ts';
import { DIALECT_OPTIONS, dialectFromArgs } from './dialect-options.ts';
import { POLICY_OPTION, policyFromArgs } from './policy-options.ts';
import { JOBS_USAGE } from './usage.ts';
import {
  callbackOption,
  checkInputFile,
  followJob,
  jobSummary,
  notCompleted,
  resultPath,
  submitFile,
  type ResultKind,
} from './remote-job.ts';
import { ServiceClient, type JobView } from './service-client.ts';
import { describeJob } from './job-text.ts';
import { formatInt } from './progress.ts';

const SERVICE_OPTIONS = {
  server: { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function clientOf(values: { server?: string; token?: string }, io: CliIo): ServiceClient {
  const server = values.server ?? io.env.SOR_SERVER;
  if (server === undefined || server === '') {
    throw new UsageError('sor jobs needs the service: --server URL (or SOR_SERVER)');
  }
  return new ServiceClient(server, values.token ?? io.env.SOR_TOKEN);
}

function oneId(positionals: string[], command: string): string {
  if (positionals.length !== 1 || positionals[0] === '') throw new UsageError(`sor jobs ${command} needs one job id`);
  return positionals[0]!;
}

function formatOf(value: string | undefined): 'csv' | 'ndjson' | undefined {
  if (value === undefined || value === 'csv' || value === 'ndjson') return value;
  throw new UsageError('--format must be csv or ndjson');
}

async function submit(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...SERVICE_OPTIONS,
      wait: { type: 'boolean' },
      out: { type: 'string', short: 'o' },
      callback: { type: 'string' },
      format: { type: 'string' },
      ...DIALECT_OPTIONS,
      ...POLICY_OPTION,
    },
  });
  if (values.help === true) return usage(io);
  if (positionals.length !== 1) throw new UsageError('sor jobs submit needs exactly one file (or - for stdin)');
  const dialect = dialectFromArgs(values);
  const policy = policyFromArgs(values.policy);
  const callback = callbackOption(values.callback);
  const format = formatOf(values.format) ?? 'csv';
  const client = clientOf(values, io);
  const started = performance.now();
  checkInputFile(positionals[0]!);
  io.stderr.write(`sor: uploading ${positionals[0] === '-' ? 'stdin' : positionals[0]} to ${client.where}\n`);
  const job = await submitFile(client, {
    inputPath: positionals[0]!,
    stdin: io.stdin,
    format,
    dialect,
    policy,
    callback,
  });
  const wait = values.wait === true || values.out !== undefined;
  io.stderr.write(`sor: job ${job.id} accepted (${job.status}) by ${client.where}\n`);
  if (!wait) {
    // The id alone on stdout, for scripts: ID=$(sor jobs submit students.csv)
    io.stdout.write(`${job.id}\n`);
    io.stderr.write(`sor: follow it with: sor jobs status ${job.id}\n`);
    return EXIT_OK;
  }
  const done = await followJob(client, job, io.stderr, {
    pollMs: io.hooks?.pollMs,
    progressEveryMs: io.hooks?.progressEveryMs,
  });
  if (done.status !== 'completed') throw notCompleted(done);
  if (values.out !== undefined) {
    await client.download(resultPath(done, 'result'), values.out, io.stdout, `send the result of job ${done.id}`);
  } else {
    io.stderr.write(`sor: download it with: sor jobs download ${done.id} --out results.${done.format ?? format}\n`);
  }
  return jobSummary(done, client.where, (performance.now() - started) / 1000, io.stderr);
}

async function status(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...SERVICE_OPTIONS, json: { type: 'boolean' } },
  });
  if (values.help === true) return usage(io);
  const id = oneId(positionals, 'status');
  const job = await clientOf(values, io).job(id);
  io.stdout.write(values.json === true ? `${JSON.stringify(job, null, 2)}\n` : describeJob(job));
  return EXIT_OK;
}

/** The job's state as the reason its results cannot be downloaded yet (exit 4), or as a failure (exit 5). */
function notDownloadable(job: JobView): CliFailure {
  if (job.status === 'failed' || job.status === 'cancelled') return notCompleted(job);
  const p = job.progress;
  const done =
    p.students_total === null
      ? `${formatInt(p.students_done)} students done`
      : `${formatInt(p.students_done)} of ${formatInt(p.students_total)} students done`;
  return new CliFailure(
    `job ${job.id} is ${job.status} (${done}): its results are ready once it completes; sor jobs status ${job.id} shows its progress`,
    EXIT_REFUSED,
  );
}

async function download(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...SERVICE_OPTIONS,
      out: { type: 'string', short: 'o' },
      'errors-only': { type: 'boolean' },
      format: { type: 'string' },
    },
  });
  if (values.help === true) return usage(io);
  const id = oneId(positionals, 'download');
  const format = formatOf(values.format);
  if (values['errors-only'] === true && format === 'ndjson') {
    throw new UsageError('--errors-only gives CSV rows: leave out --format ndjson');
  }
  const client = clientOf(values, io);
  const job = await client.job(id);
  if (job.status !== 'completed') throw notDownloadable(job);
  const kind: ResultKind = values['errors-only'] === true ? 'errors' : (format ?? 'result');
  const out = values.out ?? '-';
  await client.download(
    resultPath(job, kind),
    out,
    io.stdout,
    `send the ${kind === 'errors' ? 'error rows' : 'result'} of job ${id}`,
  );
  const errorRows = job.counts?.error_rows ?? job.progress.error_rows ?? 0;
  const rows = job.counts?.rows ?? job.progress.rows_done ?? 0;
  io.stderr.write(
    `sor: ${out === '-' ? 'wrote' : `wrote ${out}:`} ` +
      (kind === 'errors'
        ? `the ${formatInt(errorRows)} error rows of job ${id}\n`
        : `job ${id}, ${formatInt(rows)} rows (${formatInt(errorRows)} error rows)\n`),
  );
  return EXIT_OK;
}

async function cancel(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: SERVICE_OPTIONS });
  if (values.help === true) return usage(io);
  const id = oneId(positionals, 'cancel');
  const client = clientOf(values, io);
  const before = await client.job(id);
  if (before.status === 'cancelled') {
    io.stderr.write(`sor: job ${id} was already cancelled\n`);
    return EXIT_OK;
  }
  if (before.status === 'completed' || before.status === 'failed') {
    throw new CliFailure(
      `job ${id} has already ${before.status === 'completed' ? 'completed' : 'failed'}: there is nothing to cancel`,
      EXIT_REFUSED,
    );
  }
  const res = await client.fetch(`/v1/jobs/${encodeURIComponent(id)}`, { method: 'DELETE' });
  if (res.status !== 200 && res.status !== 202) await client.expect(res, 204, `cancel job ${id}`);
  const after = await client.job(id);
  const p = after.progress;
  const total = p.students_total === null ? '' : ` of ${formatInt(p.students_total)}`;
  io.stderr.write(`sor: job ${id} ${after.status} (${formatInt(p.students_done)}${total} students had been done)\n`);
  return after.status === 'cancelled' ? EXIT_OK : exitCodeOf(notCompleted(after));
}

function usage(io: CliIo): number {
  io.stdout.write(JOBS_USAGE);
  return EXIT_OK;
}

const COMMANDS: Readonly<Record<string, (args: string[], io: CliIo) => Promise<number>>> = {
  submit,
  status,
  download,
  cancel,
};

/** `sor jobs SUBCOMMAND …`; resolves with the exit status. Usage errors go to main (the usage is printed). */
export async function jobsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    (sub === undefined ? io.stderr : io.stdout).write(JOBS_USAGE);
    return sub === undefined ? exitCodeOf(new UsageError('')) : EXIT_OK;
  }
  const command = Object.hasOwn(COMMANDS, sub) ? COMMANDS[sub] : undefined;
  if (command === undefined)
    throw new UsageError(`unknown jobs command ${JSON.stringify(sub)} (submit, status, download, cancel)`);
  try {
    return await command(rest, io);
  } catch (err) {
    if (err instanceof UsageError || String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) throw err;
    io.stderr.write(`sor: error: ${describeError(err)}\n`);
    return exitCodeOf(err);
  }
}
