/**
 * npm run bench:single — POST /v1/calculate against a bare node:http baseline, in one run.
 *
 * Each server runs in its own child process and only one is loaded at a time (alternating rounds); this
 * process is the load generator: a fixed number of concurrent keep-alive connections (a minimal HTTP/1.1
 * client) sending the same request body in a closed loop, bounded by a request count and a time budget,
 * loopback only. Besides throughput, the servers report their own CPU time per request, a figure that does not
 * depend on how fast the load generator is.
 *
 *   app       the real service as server.ts serves it (createRequestListener: the fast lane of POST /v1/calculate
 *             and Express), with the production middleware (request ids, request log lines written to
 *             /dev/null, the duration metric, JSON reading and validation, calculate(), the envelope)
 *   baseline  node:http that reads the same body, JSON.parses it and answers a fixed JSON of the same size
 *
 * Prints requests/s of both, the ratio app/baseline, and p50/p99 latency of both.
 * A last phase loads both servers at the same fixed rate (open loop) and compares their CPU per request: with a
 * closed loop the faster server keeps the load generator busy and so pays fewer cross-CPU wake-ups per response,
 * which on a 2-core VM is a large part of a loopback write.
 *
 * Both servers run with the node flags of `npm start` (read from package.json's start script, so the bench
 * measures what production runs; `--node-flags` overrides them). The measured rounds are repeated for each
 * connection count of `--concurrency` (16 and 32 by default, the figures issue 8 asks for), in the same run.
 *
 * Options (flag, or the environment variable when the flag is absent; `--help` lists them): --concurrency
 * BENCH_CONCURRENCY (16,32), --rounds BENCH_ROUNDS (5), --requests BENCH_REQUESTS per round (10000), --seconds
 * BENCH_SECONDS per round (20), --warmup BENCH_WARMUP (10000), --example BENCH_EXAMPLE (FSA-4), --rate BENCH_RATE
 * (3000 req/s), --rate-seconds BENCH_RATE_SECONDS (4), --node-flags BENCH_NODE_FLAGS (npm start's).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createRequestListener } from '../src/api/front-door.ts';
import { createInlineRunner } from '../src/bulk/runners/inline.ts';
import { loadConfig } from '../src/config.ts';
import { createServiceLogger } from '../src/logger.ts';
import { calculate } from '../src/domain/calculate.ts';
import { WORKED_EXAMPLES } from '../src/api/openapi/worked-examples.ts';
import { parseCalculationRequest } from '../src/schema/request.ts';
import { benchArgs } from './support/args.ts';

type Kind = 'app' | 'baseline';

const args = benchArgs('npm run bench:single --', {
  concurrency: {
    type: 'string',
    default: '16,32',
    env: 'BENCH_CONCURRENCY',
    help: 'keep-alive connections, or a comma-separated list of counts measured in turn',
  },
  requests: { type: 'number', default: 10_000, env: 'BENCH_REQUESTS', help: 'requests per round' },
  rounds: { type: 'number', default: 5, env: 'BENCH_ROUNDS', help: 'alternating rounds per server' },
  rate: { type: 'number', default: 3000, env: 'BENCH_RATE', help: 'requests/s of the fixed-rate phase' },
  'rate-seconds': { type: 'number', default: 4, env: 'BENCH_RATE_SECONDS', help: 'seconds of the fixed-rate phase' },
  seconds: { type: 'number', default: 20, env: 'BENCH_SECONDS', help: 'time budget of a round' },
  warmup: { type: 'number', default: 10_000, env: 'BENCH_WARMUP', help: 'untimed warm-up requests' },
  example: { type: 'string', default: 'FSA-4', env: 'BENCH_EXAMPLE', help: 'worked example sent as the body' },
  'node-flags': {
    type: 'string',
    default: '',
    env: 'BENCH_NODE_FLAGS',
    help: "node flags of both servers (default: the flags of package.json's start script)",
  },
  serve: { type: 'string', default: '', help: 'internal: run as the child server (app or baseline)' },
});
const CONCURRENCIES = args.concurrency.split(',').map((text) => {
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < 1) throw new Error(`--concurrency: not a connection count: ${JSON.stringify(text)}`);
  return n;
});
/** Connections of the current phase (warm-up and fixed rate use the largest count). */
let CONCURRENCY = Math.max(...CONCURRENCIES);
/** The target of issue 8: the app serves at least 0.4 of the bare node:http baseline's requests per second. */
const TARGET_RATIO = 0.4;

/** The node flags of `npm start` (package.json's start script: `node <flags…> dist/src/server.js`). */
function startScriptFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = (pkg.scripts.start ?? '').split(/\s+/);
  return words.slice(words.indexOf('node') + 1).filter((word) => word.startsWith('--'));
}
const NODE_FLAGS = args['node-flags'] !== '' ? args['node-flags'].split(/\s+/).filter(Boolean) : startScriptFlags();
const REQUESTS = args.requests;
const ROUNDS = args.rounds;
const RATE = args.rate;
const RATE_SECONDS = args['rate-seconds'];
const SECONDS = args.seconds;
const WARMUP = args.warmup;
const EXAMPLE_ID = args.example;

const example = WORKED_EXAMPLES.find((e) => e.id === EXAMPLE_ID);
if (example === undefined) throw new Error(`unknown BENCH_EXAMPLE ${EXAMPLE_ID}`);
const BODY = Buffer.from(JSON.stringify(example.request));

// ---------------------------------------------------------------------------------------------------------------
// Server side (child process)
// ---------------------------------------------------------------------------------------------------------------

function startBaseline(): ReturnType<typeof createServer> {
  // A fixed answer as large as the real one.
  const parsed = parseCalculationRequest(example!.request);
  if (!parsed.ok) throw new Error('example must be valid');
  const fixed = JSON.stringify(calculate(parsed.value));
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (typeof value !== 'object' || value === null) {
        res.statusCode = 400;
        res.end();
        return;
      }
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(fixed);
    });
  });
}

function startApp(): ReturnType<typeof createServer> {
  const config = loadConfig({ LOG_LEVEL: 'info' });
  // The service's own logger (src/logger.ts: asynchronous), writing to /dev/null.
  const logger = createServiceLogger({ level: 'info' }, '/dev/null').logger;
  const listener = createRequestListener({
    config,
    logger,
    runners: { small: createInlineRunner(), large: createInlineRunner() },
    readiness: [],
  });
  return createServer(listener);
}

function serve(kind: Kind): void {
  const server = kind === 'app' ? startApp() : startBaseline();
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
  process.on('message', (m) => {
    if (m === 'cpu') {
      const u = process.cpuUsage();
      process.send?.({ cpuMicros: u.user + u.system });
    } else if (m === 'stop') {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Load generator (parent)
// ---------------------------------------------------------------------------------------------------------------

interface RunResult {
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: Float64Array;
}

const REQUEST_HEAD = Buffer.from(
  'POST /v1/calculate HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n' +
    `Content-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n`,
);
const REQUEST_BYTES = Buffer.concat([REQUEST_HEAD, BODY]);
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * A minimal keep-alive HTTP/1.1 client: one request at a time per socket, responses framed by Content-Length
 * (both servers always send it). Much lighter than node:http's client, so on a 2-core machine the load
 * generator takes as little CPU from the server as possible.
 */
class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: ((status: number) => void) | null = null;
  private failed: ((err: Error) => void) | null = null;
  private readonly socket: Socket;

  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.tryComplete();
    });
    this.socket.on('error', (err) => this.failed?.(err));
    this.socket.on('close', () => this.failed?.(new Error('connection closed')));
  }

  private tryComplete(): void {
    const end = this.buffer.indexOf(HEADER_END);
    if (end === -1) return;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (match === null) throw new Error(`response without Content-Length: ${head}`);
    const total = end + 4 + Number(match[1]);
    if (this.buffer.length < total) return;
    const status = Number(head.slice(9, 12));
    this.buffer = this.buffer.subarray(total);
    const resolve = this.waiting;
    this.waiting = null;
    this.failed = null;
    resolve?.(status);
  }

  send(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
      this.socket.write(REQUEST_BYTES);
    });
  }

  close(): void {
    this.failed = null;
    this.socket.destroy();
  }
}

async function load(port: number, total: number, seconds: number): Promise<RunResult> {
  const latencies = new Float64Array(total);
  let issued = 0;
  let done = 0;
  let errors = 0;
  const start = performance.now();
  const stopAt = start + seconds * 1000;
  const worker = async () => {
    const connection = new Connection(port);
    try {
      while (issued < total && performance.now() < stopAt) {
        issued++;
        const t0 = performance.now();
        const status = await connection.send();
        latencies[done++] = performance.now() - t0;
        if (status !== 200) errors++;
      }
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - start) / 1000;
  return { requests: done, errors, seconds: elapsed, latenciesMs: latencies.subarray(0, done) };
}

/**
 * Open loop at a fixed request rate (the same for both servers): each connection sends on its own schedule, so
 * both servers do the same work per second and pay the same per-write wake-up costs of the loopback network.
 * Returns how many requests were sent and how many were not 200.
 */
async function loadAtRate(port: number, rate: number, seconds: number): Promise<{ requests: number; errors: number }> {
  const perConnectionInterval = (1000 * CONCURRENCY) / rate;
  const perConnection = Math.max(1, Math.round((rate * seconds) / CONCURRENCY));
  let requests = 0;
  let errors = 0;
  const worker = async (k: number) => {
    const connection = new Connection(port);
    const start = performance.now() + (k * perConnectionInterval) / CONCURRENCY;
    try {
      for (let i = 0; i < perConnection; i++) {
        const due = start + i * perConnectionInterval;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const status = await connection.send();
        requests++;
        if (status !== 200) errors++;
      }
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, k) => worker(k)));
  return { requests, errors };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface ServerHandle {
  port: number;
  /** The server process's CPU time so far (user + system), in microseconds. */
  cpuMicros(): Promise<number>;
}

async function withServer<T>(kind: Kind, fn: (server: ServerHandle) => Promise<T>): Promise<T> {
  // The child gets this run's options too (--example picks the body both servers answer).
  const child: ChildProcess = fork(process.argv[1]!, [...process.argv.slice(2), '--serve', kind], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, ...NODE_FLAGS],
  });
  const nextMessage = <M>(): Promise<M> =>
    new Promise<M>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${kind} server exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolve(m as M);
      });
    });
  try {
    const { port } = await nextMessage<{ port: number }>();
    const cpuMicros = async () => {
      const reply = nextMessage<{ cpuMicros: number }>();
      child.send('cpu');
      return (await reply).cpuMicros;
    };
    return await fn({ port, cpuMicros });
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('stop');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

interface Measurement {
  kind: Kind;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  cpuPerRequestMicros: number;
}

async function measure(kind: Kind, server: ServerHandle): Promise<Measurement> {
  const cpuBefore = await server.cpuMicros();
  const r = await load(server.port, REQUESTS, SECONDS);
  const cpuAfter = await server.cpuMicros();
  const sorted = Float64Array.from(r.latenciesMs).sort();
  return {
    kind,
    requests: r.requests,
    errors: r.errors,
    rps: r.requests / r.seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuPerRequestMicros: (cpuAfter - cpuBefore) / r.requests,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function main(): Promise<void> {
  console.log(
    `bench:single — POST /v1/calculate (${EXAMPLE_ID}, ${BODY.length} B body), ${CONCURRENCIES.join(' and ')} ` +
      `keep-alive connections, ${ROUNDS} alternating rounds of ${REQUESTS} requests (or ${SECONDS} s) per server ` +
      `after ${WARMUP} warm-up requests; ${availableParallelism()} CPUs, node ${process.version}, server flags ` +
      `${NODE_FLAGS.join(' ') || 'none'}`,
  );
  // Both servers are up for the whole run but only one is loaded at a time (an idle server costs no CPU).
  // Alternating rounds spread any background load on the machine over both sides; the medians are reported.
  const outcome = await withServer('baseline', (baseline) =>
    withServer('app', async (app) => {
      await load(baseline.port, WARMUP, 30);
      await load(app.port, WARMUP, 30);
      const byConcurrency: Array<{ connections: number; rounds: Array<{ baseline: Measurement; app: Measurement }> }> =
        [];
      for (const connections of CONCURRENCIES) {
        CONCURRENCY = connections;
        const rounds: Array<{ baseline: Measurement; app: Measurement }> = [];
        for (let i = 0; i < ROUNDS; i++) {
          rounds.push({ baseline: await measure('baseline', baseline), app: await measure('app', app) });
        }
        byConcurrency.push({ connections, rounds });
      }
      CONCURRENCY = Math.max(...CONCURRENCIES);
      const atRate = async (server: ServerHandle) => {
        const before = await server.cpuMicros();
        const r = await loadAtRate(server.port, RATE, RATE_SECONDS);
        return { ...r, cpuPerRequestMicros: ((await server.cpuMicros()) - before) / r.requests };
      };
      const fixedRate = { baseline: await atRate(baseline), app: await atRate(app) };
      return { byConcurrency, fixedRate };
    }),
  );
  const { byConcurrency, fixedRate } = outcome;

  const fmt = (x: number) => x.toFixed(2);
  const line = (r: Measurement) =>
    `${r.kind.padEnd(8)}  ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${fmt(r.p50)} ms   p99 ${fmt(r.p99)} ms   ` +
    `server CPU ${r.cpuPerRequestMicros.toFixed(1).padStart(6)} µs/request   (${r.requests} requests, ${r.errors} non-200)`;
  let errors = fixedRate.app.errors + fixedRate.baseline.errors;
  const verdicts: string[] = [];
  for (const { connections, rounds: results } of byConcurrency) {
    console.log(`\n${connections} connections`);
    results.forEach((round, i) => {
      console.log(`round ${i + 1}`);
      console.log(`  ${line(round.baseline)}`);
      console.log(`  ${line(round.app)}`);
    });
    const summary = (kind: Kind): Measurement => {
      const rs = results.map((r) => r[kind]);
      return {
        kind,
        requests: rs.reduce((a, r) => a + r.requests, 0),
        errors: rs.reduce((a, r) => a + r.errors, 0),
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        cpuPerRequestMicros: median(rs.map((r) => r.cpuPerRequestMicros)),
      };
    };
    const baseline = summary('baseline');
    const app = summary('app');
    errors += baseline.errors + app.errors;
    console.log('median of the rounds');
    console.log(`  ${line(baseline)}`);
    console.log(`  ${line(app)}`);
    const ratios = results.map((r) => r.app.rps / r.baseline.rps);
    const ratio = median(ratios);
    console.log(
      `ratio app/baseline (req/s): ${ratio.toFixed(3)} median; rounds ${ratios.map((x) => x.toFixed(3)).join(', ')}` +
        ` (target ≥ ${TARGET_RATIO})`,
    );
    console.log(
      `ratio baseline/app (server CPU per request): ${(baseline.cpuPerRequestMicros / app.cpuPerRequestMicros).toFixed(3)}` +
        ' (the same comparison without the load generator’s share of the 2 cores)',
    );
    verdicts.push(`${connections} connections ${ratio.toFixed(3)}`);
  }
  console.log(
    `\nfixed rate ${RATE} req/s for ${RATE_SECONDS} s (same load on both): server CPU baseline ` +
      `${fixedRate.baseline.cpuPerRequestMicros.toFixed(1)} µs/request, app ${fixedRate.app.cpuPerRequestMicros.toFixed(1)} ` +
      `µs/request, ratio baseline/app ${(fixedRate.baseline.cpuPerRequestMicros / fixedRate.app.cpuPerRequestMicros).toFixed(3)}`,
  );
  console.log(`ratio app/baseline (req/s), medians: ${verdicts.join('; ')} (target ≥ ${TARGET_RATIO})`);
  if (errors > 0) {
    console.error('some responses were not 200: the figures are not valid');
    process.exitCode = 1;
  }
}

if (args.serve !== '') {
  serve(args.serve === 'app' ? 'app' : 'baseline');
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
