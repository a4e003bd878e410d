/**
 * wrk (https://github.com/wg/wrk, Debian package `wrk`) as bench:single's second load generator: the C client the
 * service's throughput target is stated with (`wrk -t1 -c32`, one thread), so the benchmark can print that figure
 * next to its Node.js client's. A POST needs a Lua script; it is written to a temporary folder with the body inline.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** True when a `wrk` binary answers on this machine's PATH. */
export function wrkInstalled(): boolean {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return probe.error === undefined && `${probe.stdout}${probe.stderr}`.includes('wrk');
}

export interface WrkResult {
  requests: number;
  seconds: number;
  /** Non-2xx/3xx answers and socket errors (connect, read, write, timeout). */
  errors: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

const UNIT_MS: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function durationMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (m === null) throw new Error(`wrk: not a duration: ${JSON.stringify(text)}`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** Reads what `wrk --latency` prints. Throws when a figure the benchmark needs is missing. */
export function parseWrkOutput(text: string): WrkResult {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m),/.exec(text);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const p50 = /^\s+50(?:\.000)?%\s+(\S+)/m.exec(text);
  const p99 = /^\s+99(?:\.000)?%\s+(\S+)/m.exec(text);
  if (total === null || rps === null || p50 === null || p99 === null) {
    throw new Error(`wrk: unexpected output:\n${text}`);
  }
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(text);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = socket === null ? 0 : socket.slice(1, 5).reduce((sum, n) => sum + Number(n), 0);
  return {
    requests: Number(total[1]),
    seconds: durationMs(`${total[2]}${total[3]}`) / 1000,
    errors: (non2xx === null ? 0 : Number(non2xx[1])) + socketErrors,
    rps: Number(rps[1]),
    p50Ms: durationMs(p50[1]!),
    p99Ms: durationMs(p99[1]!),
  };
}

/** The Lua script of a POST with this JSON body (a long bracket that the body does not close). */
export function postScript(body: string): string {
  let level = 1;
  while (body.includes(`]${'='.repeat(level)}]`)) level++;
  const eq = '='.repeat(level);
  return [
    'wrk.method = "POST"',
    'wrk.headers["Content-Type"] = "application/json"',
    `wrk.body = [${eq}[${body}]${eq}]`,
    '',
  ].join('\n');
}

/** A wrk run: POST `body` to `url` over `connections` keep-alive connections from one thread for `seconds`. */
export function runWrk(url: string, body: string, connections: number, seconds: number): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const script = join(dir, 'post.lua');
  writeFileSync(script, postScript(body));
  return new Promise<WrkResult>((resolve, reject) => {
    execFile(
      'wrk',
      ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url],
      { encoding: 'utf8', timeout: (seconds + 30) * 1000 },
      (err, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        if (err !== null) reject(new Error(`wrk failed: ${err.message}\n${stderr}`));
        else {
          try {
            resolve(parseWrkOutput(stdout));
          } catch (parseError) {
            reject(parseError as Error);
          }
        }
      },
    );
  });
}
