/** `sor calculate REQUEST.json`: one student, the same answer as POST /v1/calculate (an invalid request: its envelope, exit 2). */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { AppError, errorEnvelope } from '../errors.ts';
import { calculate } from '../domain/calculate.ts';
import { parseCalculationRequest } from '../schema/request.ts';
import { EXIT_FAILURE, EXIT_OK, EXIT_ROW_ERRORS } from './exit-codes.ts';
import { UsageError, type CliIo } from './io.ts';
import { CALCULATE_USAGE } from './usage.ts';
import { POLICY_OPTION, policyFromArgs } from './policy-options.ts';
import { resolvePolicy } from '../domain/policy.ts';
import { loadConfig } from '../config.ts';

async function readAll(stream: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

export async function calculateCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' }, ...POLICY_OPTION },
  });
  if (values.help === true) {
    io.stdout.write(CALCULATE_USAGE);
    return EXIT_OK;
  }
  // --policy over SOR_POLICY: the request's own `policy` overrides both, option by option (as on POST /v1/calculate).
  const choices = policyFromArgs(values.policy);
  const base = resolvePolicy(choices, loadConfig({ SOR_POLICY: io.env.SOR_POLICY }).SOR_POLICY);
  if (positionals.length !== 1) throw new UsageError('sor calculate needs exactly one request file (or - for stdin)');
  const path = positionals[0]!;
  const text = path === '-' ? await readAll(io.stdin) : readFileSync(path, 'utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    io.stderr.write(`sor: error: ${path} is not valid JSON (${(err as Error).message})\n`);
    return EXIT_FAILURE;
  }
  const parsed = parseCalculationRequest(body, { policy: base });
  if (!parsed.ok) {
    const n = parsed.fieldErrors.length;
    const envelope = errorEnvelope(AppError.validation(parsed.fieldErrors));
    io.stdout.write(`${JSON.stringify(envelope, null, 2)}\n`);
    io.stderr.write(`sor: the request is invalid (${n} field error${n === 1 ? '' : 's'})\n`);
    return EXIT_ROW_ERRORS;
  }
  io.stdout.write(`${JSON.stringify(calculate(parsed.value), null, 2)}\n`);
  return EXIT_OK;
}
