/**
 * `sor bulk IN.csv --server URL`: submits the file to a running service's job API instead of calculating
 * locally, follows the job's progress on stderr (students finished), then streams the result to OUT. Same output
 * bytes and exit status as a local `sor bulk` of the same file (the service runs the same pipeline). The requests
 * are remote-job.ts's, shared with `sor jobs`.
 */
import type { Readable, Writable } from 'node:stream';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import type { PolicyChoices } from '../domain/policy.ts';
import { describeError, exitCodeOf } from './io.ts';
import { checkInputFile, followJob, jobSummary, notCompleted, resultPath, submitFile } from './remote-job.ts';
import { ServiceClient } from './service-client.ts';

export interface RemoteIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
}

export interface RemoteBulkOptions {
  server: string;
  inputPath: string;
  /** `-` for stdout. */
  outputPath: string;
  format: 'csv' | 'ndjson';
  io: RemoteIo;
  pollMs?: number;
  progressEveryMs?: number;
  signal?: AbortSignal;
  /** Access token (--token or SOR_TOKEN), sent as Authorization: Bearer on every request; never printed. */
  token?: string;
  /** How the file is written (sent as query parameters); default v1 UTF-8 CSV. */
  dialect?: CsvDialect;
  /** --policy: the file's school-policy options, sent as `policy.<option>` query parameters. */
  policy?: PolicyChoices;
}

/** Runs the remote bulk command; resolves with the exit status. */
export async function remoteBulkCommand(options: RemoteBulkOptions): Promise<number> {
  const { io } = options;
  try {
    const client = new ServiceClient(options.server, options.token, options.signal);
    checkInputFile(options.inputPath);
    const started = performance.now();
    io.stderr.write(`sor: uploading to ${client.where}\n`);
    const submitted = await submitFile(client, { ...options, stdin: io.stdin });
    io.stderr.write(`sor: job ${submitted.id} accepted\n`);
    const job = await followJob(client, submitted, io.stderr, options);
    if (job.status !== 'completed') throw notCompleted(job);
    await client.download(resultPath(job, 'result'), options.outputPath, io.stdout, `send the result of job ${job.id}`);
    return jobSummary(job, client.where, (performance.now() - started) / 1000, io.stderr);
  } catch (err) {
    io.stderr.write(`sor: error: ${describeError(err)}\n`);
    return exitCodeOf(err);
  }
}
