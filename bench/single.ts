/**
 * npm run bench:single — POST /v1/calculate against a bare node:http baseline, in one run.
 *
 * Each server runs in its own child process and only one is loaded at a time (alternating rounds); the load comes
 * from this process: a fixed number of concurrent keep-alive connections sending the same request body in a
 * closed loop, loopback only. Besides throughput, the servers report their own CPU time per request, a figure that
 * does not depend on how fast the load generator is.
 *
 *   app       the real service as server.ts serves it (createRequestListener: the one handler of POST /v1/calculate
 *             and Express), with the production middleware (request ids, request log lines written to
 *             /dev/null, the duration metric, JSON reading and validation, calculate(), the envelope); with
 *             `--auth required`, also access control (AUTH_MODE=required, one token in a token file, no rate of its
 *             own): the load generators send no Authorization header, so the app's process puts the token's
 *             header on each request before the service's listener sees it
 *   baseline  node:http that reads the same body, JSON.parses it and answers a fixed JSON of the same size
 *
 * Two load generators (`--client`): `node`, a minimal Node.js HTTP/1.1 client (bench/support/http-load.ts), and
 * `wrk -t1` (bench/support/wrk.ts), the C client the target figures are measured with, when it is installed (Debian:
 * `apt-get install wrk`). Two bodies by default (`--example`): FSA-1 (target: 0.6 of the baseline with wrk -t1 -c32)
 * and FSA-4, the heaviest worked example (a recalculation after a disbursement, both options, three terms; target
 * 0.5). For each body,
 * client and connection count (16 and 32, the target figure's 32 among them): requests/s of both servers, the ratio app/baseline
 * and p50/p99 latency, as the median of alternating rounds. A last phase per body loads both servers at the same
 * fixed rate (open loop) and compares their CPU per request: with a closed loop the faster server keeps the load
 * generator busy and so pays fewer cross-CPU wake-ups per response, which on a 2-core VM is a large part of a
 * loopback write.
 *
 * Both servers run with the node flags of `npm start` (read from package.json's start script, so the bench
 * measures what production runs; `--node-flags` overrides them).
 *
 * Options (flag, or the environment variable when the flag is absent; `--help` lists them): --example
 * BENCH_EXAMPLE (FSA-1,FSA-4), --client BENCH_CLIENT (auto: node, and wrk when installed), --concurrency
 * BENCH_CONCURRENCY (16,32), --rounds BENCH_ROUNDS (5), --requests BENCH_REQUESTS per Node.js round (10000),
 * --seconds BENCH_SECONDS budget of a Node.js round (20), --wrk-seconds BENCH_WRK_SECONDS per wrk round (3),
 * --warmup BENCH_WARMUP (10000), --rate BENCH_RATE (3000 req/s), --rate-seconds BENCH_RATE_SECONDS (4),
 * --node-flags BENCH_NODE_FLAGS (npm start's), --auth BENCH_AUTH (off, or required: the app with access control).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, openSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccessControl } from '../src/api/access-control.ts';
import { createRequestListener } from '../src/api/front-door.ts';
import { generateToken, generateTokenId, tokenHash } from '../src/auth/token.ts';
import { createInlineRunner } from '../src/bulk/runners/inline.ts';
import { loadConfig } from '../src/config.ts';
import { createServiceLogger } from '../src/logger.ts';
import { calculate } from '../src/domain/calculate.ts';
import { WORKED_EXAMPLES } from '../src/api/openapi/worked-examples.ts';
import { parseCalculationRequest } from '../src/schema/request.ts';
import { benchArgs } from './support/args.ts';
import { closedLoop, openLoop, percentile, postRequestBytes } from './support/http-load.ts';
import { runWrk, wrkInstalled } from './support/wrk.ts';
import { startScriptFlags } from './support/node-flags.ts';

type Kind = 'app' | 'baseline';
type Client = 'node' | 'wrk';

const args = benchArgs('npm run bench:single --', {
  example: {
    type: 'string',
    default: 'FSA-1,FSA-4',
    env: 'BENCH_EXAMPLE',
    help: "worked examples sent as the body, comma-separated (FSA-1: the target figure's; FSA-4: the heaviest)",
  },
  client: {
    type: 'string',
    default: 'auto',
    env: 'BENCH_CLIENT',
    help: 'load generators: node, wrk, or both comma-separated; auto is node, and wrk when it is installed',
  },
  concurrency: {
    type: 'string',
    default: '16,32',
    env: 'BENCH_CONCURRENCY',
    help: 'keep-alive connections, or a comma-separated list of counts measured in turn',
  },
  requests: { type: 'number', default: 10_000, env: 'BENCH_REQUESTS', help: 'requests per Node.js round' },
  rounds: { type: 'number', default: 5, env: 'BENCH_ROUNDS', help: 'alternating rounds per server' },
  seconds: { type: 'number', default: 20, env: 'BENCH_SECONDS', help: 'time budget of a Node.js round' },
  'wrk-seconds': { type: 'number', default: 3, env: 'BENCH_WRK_SECONDS', help: 'seconds of a wrk round' },
  warmup: { type: 'number', default: 10_000, env: 'BENCH_WARMUP', help: 'untimed warm-up requests per server' },
  rate: { type: 'number', default: 3000, env: 'BENCH_RATE', help: 'requests/s of the fixed-rate phase' },
  'rate-seconds': { type: 'number', default: 4, env: 'BENCH_RATE_SECONDS', help: 'seconds of the fixed-rate phase' },
  'node-flags': {
    type: 'string',
    default: '',
    env: 'BENCH_NODE_FLAGS',
    help: "node flags of both servers (default: the flags of package.json's start script)",
  },
  auth: {
    type: 'string',
    default: 'off',
    env: 'BENCH_AUTH',
    help: "the app's access control: off, or required (a bearer token on every request, checked by the guards)",
  },
  serve: { type: 'string', default: '', help: 'internal: run as the child server (app or baseline)' },
});

function list(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const CONCURRENCIES = list(args.concurrency).map((text) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--concurrency: not a connection count: ${JSON.stringify(text)}`);
  return n;
});
/**
 * The targets: with `wrk -t1 -c32`, the app serves at least this share of the bare node:http baseline's requests per
 * second, by body (FSA example 1 and FSA example 4).
 */
const TARGETS: Readonly<Record<string, number>> = { 'FSA-1': 0.6, 'FSA-4': 0.5 };
const TARGET_CLIENT = { client: 'wrk' as Client, connections: 32 };
const targetText = (exampleId: string) =>
  TARGETS[exampleId] === undefined ? '' : ` (target with wrk -t1 -c32 ≥ ${TARGETS[exampleId]})`;

const NODE_FLAGS =
  args['node-flags'] !== ''
    ? args['node-flags'].split(/\s+/).filter(Boolean)
    : startScriptFlags(fileURLToPath(new URL('../', import.meta.url)));

function exampleRequest(id: string): unknown {
  const example = WORKED_EXAMPLES.find((e) => e.id === id);
  if (example === undefined) {
    throw new Error(`--example: unknown worked example ${id} (${WORKED_EXAMPLES.map((e) => e.id).join(', ')})`);
  }
  return example.request;
}
const EXAMPLES = list(args.example);
for (const id of EXAMPLES) exampleRequest(id);

// ---------------------------------------------------------------------------------------------------------------
// Server side (child process): `--serve app|baseline --example ID`
// ---------------------------------------------------------------------------------------------------------------

function startBaseline(exampleId: string): ReturnType<typeof createServer> {
  // A fixed answer as large as the real one for this body.
  const parsed = parseCalculationRequest(exampleRequest(exampleId));
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

async function startApp(): Promise<ReturnType<typeof createServer>> {
  const required = args.auth === 'required';
  if (!required && args.auth !== 'off') throw new Error(`--auth: off or required, not ${JSON.stringify(args.auth)}`);
  const tokensFile = join(mkdtempSync(join(tmpdir(), 'bench-single-')), 'tokens.json');
  const config = loadConfig(
    required
      ? { LOG_LEVEL: 'info', AUTH_MODE: 'required', AUTH_TOKEN_PREFIX: 'svc_test_', AUTH_TOKENS_FILE: tokensFile }
      : { LOG_LEVEL: 'info' },
  );
  // The service's own logger (src/logger.ts: asynchronous), writing to /dev/null.
  const logger = createServiceLogger({ level: 'info' }, openSync('/dev/null', 'w')).logger;
  const access = createAccessControl(config, logger);
  const ctx = { config, logger, runners: { small: createInlineRunner(), large: createInlineRunner() }, readiness: [] };
  const listener = createRequestListener(ctx, { guards: access.guards });
  if (!required) return createServer(listener);
  const token = generateToken('svc_test_');
  await access.tokenStore!.create({
    id: generateTokenId(),
    name: 'bench',
    hash: tokenHash(token),
    prefix: 'svc_test_',
    created_at: new Date().toISOString(),
    expires_at: null,
    revoked_at: null,
    rate: null,
  });
  const authorization = `Bearer ${token}`;
  return createServer((req, res) => {
    req.headers.authorization = authorization;
    listener(req, res);
  });
}

async function serve(kind: Kind): Promise<void> {
  const server = kind === 'app' ? await startApp() : startBaseline(EXAMPLES[0]!);
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

interface ServerHandle {
  port: number;
  /** The server process's CPU time so far (user + system), in microseconds. */
  cpuMicros(): Promise<number>;
}

async function withServer<T>(kind: Kind, exampleId: string, fn: (server: ServerHandle) => Promise<T>): Promise<T> {
  const options = ['--serve', kind, '--example', exampleId, '--auth', args.auth];
  const child: ChildProcess = fork(process.argv[1]!, options, {
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

/** What one body is sent as: the raw request for the Node.js client, the JSON text for wrk. */
interface Body {
  exampleId: string;
  json: string;
  request: Buffer;
}

async function measure(
  kind: Kind,
  server: ServerHandle,
  body: Body,
  client: Client,
  connections: number,
): Promise<Measurement> {
  const cpuBefore = await server.cpuMicros();
  let run: Omit<Measurement, 'kind' | 'cpuPerRequestMicros'>;
  if (client === 'wrk') {
    const r = await runWrk(`http://127.0.0.1:${server.port}/v1/calculate`, body.json, connections, args['wrk-seconds']);
    run = { requests: r.requests, errors: r.errors, rps: r.rps, p50: r.p50Ms, p99: r.p99Ms };
  } else {
    const r = await closedLoop(server.port, body.request, connections, args.requests, args.seconds);
    const sorted = Float64Array.from(r.latenciesMs).sort();
    run = {
      requests: r.requests,
      errors: r.errors,
      rps: r.requests / r.seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
    };
  }
  const cpuAfter = await server.cpuMicros();
  return { kind, ...run, cpuPerRequestMicros: (cpuAfter - cpuBefore) / run.requests };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

interface Series {
  exampleId: string;
  client: Client;
  connections: number;
  rounds: Array<{ baseline: Measurement; app: Measurement }>;
}

interface FixedRate {
  exampleId: string;
  baseline: number;
  app: number;
  errors: number;
}

/** Both servers for one body: warm-up, the rounds of every client and connection count, the fixed-rate phase. */
async function measureBody(body: Body, clients: readonly Client[]): Promise<{ series: Series[]; fixed: FixedRate }> {
  return withServer('baseline', body.exampleId, (baseline) =>
    withServer('app', body.exampleId, async (app) => {
      const top = Math.max(...CONCURRENCIES);
      // Both servers are up for the whole body but only one is loaded at a time (an idle server costs no CPU).
      await closedLoop(baseline.port, body.request, top, args.warmup, 30);
      await closedLoop(app.port, body.request, top, args.warmup, 30);
      const series: Series[] = [];
      for (const client of clients) {
        for (const connections of CONCURRENCIES) {
          const rounds: Series['rounds'] = [];
          // Alternating rounds spread any background load on the machine over both sides; medians are reported.
          for (let i = 0; i < args.rounds; i++) {
            rounds.push({
              baseline: await measure('baseline', baseline, body, client, connections),
              app: await measure('app', app, body, client, connections),
            });
          }
          series.push({ exampleId: body.exampleId, client, connections, rounds });
          report(series.at(-1)!);
        }
      }
      const atRate = async (server: ServerHandle) => {
        const before = await server.cpuMicros();
        const r = await openLoop(server.port, body.request, top, args.rate, args['rate-seconds']);
        return { errors: r.errors, cpu: ((await server.cpuMicros()) - before) / r.requests };
      };
      const b = await atRate(baseline);
      const a = await atRate(app);
      const fixed = { exampleId: body.exampleId, baseline: b.cpu, app: a.cpu, errors: a.errors + b.errors };
      console.log(
        `\n${body.exampleId}: fixed rate ${args.rate} req/s for ${args['rate-seconds']} s (same load on both): server ` +
          `CPU baseline ${fixed.baseline.toFixed(1)} µs/request, app ${fixed.app.toFixed(1)} µs/request, ratio ` +
          `baseline/app ${(fixed.baseline / fixed.app).toFixed(3)}`,
      );
      return { series, fixed };
    }),
  );
}

const fmt = (x: number) => x.toFixed(2);
const line = (r: Measurement) =>
  `${r.kind.padEnd(8)}  ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${fmt(r.p50)} ms   p99 ${fmt(r.p99)} ms   ` +
  `server CPU ${r.cpuPerRequestMicros.toFixed(1).padStart(6)} µs/request   (${r.requests} requests, ${r.errors} non-200)`;

function summary(s: Series, kind: Kind): Measurement {
  const rs = s.rounds.map((r) => r[kind]);
  return {
    kind,
    requests: rs.reduce((a, r) => a + r.requests, 0),
    errors: rs.reduce((a, r) => a + r.errors, 0),
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    cpuPerRequestMicros: median(rs.map((r) => r.cpuPerRequestMicros)),
  };
}

const ratioOf = (s: Series) => median(s.rounds.map((r) => r.app.rps / r.baseline.rps));

function report(s: Series): void {
  const client = s.client === 'wrk' ? 'wrk -t1' : 'Node.js client';
  console.log(`\n${s.exampleId}, ${client}, ${s.connections} connections`);
  s.rounds.forEach((round, i) => {
    console.log(`round ${i + 1}`);
    console.log(`  ${line(round.baseline)}`);
    console.log(`  ${line(round.app)}`);
  });
  const baseline = summary(s, 'baseline');
  const app = summary(s, 'app');
  console.log('median of the rounds');
  console.log(`  ${line(baseline)}`);
  console.log(`  ${line(app)}`);
  const ratios = s.rounds.map((r) => r.app.rps / r.baseline.rps);
  console.log(
    `ratio app/baseline (req/s): ${ratioOf(s).toFixed(3)} median; rounds ${ratios.map((x) => x.toFixed(3)).join(', ')}` +
      targetText(s.exampleId),
  );
  console.log(
    `ratio baseline/app (server CPU per request): ${(baseline.cpuPerRequestMicros / app.cpuPerRequestMicros).toFixed(3)}` +
      ' (the same comparison without the load generator’s share of the 2 cores)',
  );
}

function chooseClients(): Client[] {
  const asked = list(args.client);
  const installed = wrkInstalled();
  if (asked.length === 1 && asked[0] === 'auto') {
    if (!installed) console.log('wrk is not installed (Debian: apt-get install wrk): the Node.js client only');
    return installed ? ['node', 'wrk'] : ['node'];
  }
  for (const c of asked) {
    if (c !== 'node' && c !== 'wrk') throw new Error(`--client: node, wrk or auto, not ${JSON.stringify(c)}`);
  }
  if (asked.includes('wrk') && !installed) throw new Error('--client wrk: wrk is not installed (apt-get install wrk)');
  return asked as Client[];
}

async function main(): Promise<void> {
  const clients = chooseClients();
  const bodies: Body[] = EXAMPLES.map((exampleId) => {
    const json = JSON.stringify(exampleRequest(exampleId));
    return { exampleId, json, request: postRequestBytes('/v1/calculate', Buffer.from(json)) };
  });
  console.log(
    `bench:single — POST /v1/calculate with ${bodies.map((b) => `${b.exampleId} (${b.json.length} B)`).join(' and ')}, ` +
      `${clients.join(' and ')} client, ${CONCURRENCIES.join(' and ')} keep-alive connections, ${args.rounds} ` +
      `alternating rounds per server (Node.js: ${args.requests} requests or ${args.seconds} s; wrk: ` +
      `${args['wrk-seconds']} s) after ${args.warmup} warm-up requests; ${availableParallelism()} CPUs, node ` +
      `${process.version}, server flags ${NODE_FLAGS.join(' ') || 'none'}; access control ${args.auth}`,
  );
  const all: Series[] = [];
  const fixed: FixedRate[] = [];
  for (const body of bodies) {
    const measured = await measureBody(body, clients);
    all.push(...measured.series);
    fixed.push(measured.fixed);
  }

  console.log(`\nsummary: medians of ${args.rounds} round${args.rounds === 1 ? '' : 's'}`);
  console.log('  body    client  connections      app req/s   baseline req/s   ratio   CPU µs/request app / baseline');
  for (const s of all) {
    const app = summary(s, 'app');
    const baseline = summary(s, 'baseline');
    console.log(
      `  ${s.exampleId.padEnd(7)} ${s.client.padEnd(7)} ${String(s.connections).padStart(11)} ` +
        `${app.rps.toFixed(0).padStart(14)} ${baseline.rps.toFixed(0).padStart(16)} ${ratioOf(s).toFixed(3).padStart(7)}` +
        `   ${app.cpuPerRequestMicros.toFixed(1)} / ${baseline.cpuPerRequestMicros.toFixed(1)}`,
    );
  }
  for (const [exampleId, ratio] of Object.entries(TARGETS)) {
    const target = all.find(
      (s) =>
        s.exampleId === exampleId && s.client === TARGET_CLIENT.client && s.connections === TARGET_CLIENT.connections,
    );
    console.log(
      target === undefined
        ? `the target figure of ${exampleId} (wrk -t1 -c32) was not measured in this run`
        : `the target figure of ${exampleId} (wrk -t1 -c32): ratio ${ratioOf(target).toFixed(3)} ` +
            `(target ≥ ${ratio}: ${ratioOf(target) >= ratio ? 'met' : 'not met'})`,
    );
  }
  const errors = all.reduce((n, s) => n + summary(s, 'app').errors + summary(s, 'baseline').errors, 0);
  if (errors + fixed.reduce((n, f) => n + f.errors, 0) > 0) {
    console.error('some responses were not 200: the figures are not valid');
    process.exitCode = 1;
  }
}

if (args.serve !== '') {
  serve(args.serve === 'app' ? 'app' : 'baseline').catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
