/**
 * bench:single's own load generator: a minimal keep-alive HTTP/1.1 client, one request at a time per connection,
 * responses framed by Content-Length (both servers of the benchmark always send it). Much lighter than node:http's
 * client, so on a 2-core machine it takes as little CPU from the server as a Node.js client can; `wrk`
 * (bench/support/wrk.ts) is the C client the issue measured with.
 *
 *   closedLoop  a fixed number of connections each sending its next request as soon as the answer is in, bounded
 *               by a request count and a time budget: throughput and latency
 *   openLoop    each connection sending on its own schedule, so that every server gets the same load per second
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

const HEADER_END = Buffer.from('\r\n\r\n');

/** The bytes of one `POST path` with a JSON body, sent again and again. */
export function postRequestBytes(path: string, body: Buffer): Buffer {
  const head =
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: ((status: number) => void) | null = null;
  private failed: ((err: Error) => void) | null = null;
  private readonly socket: Socket;
  private readonly request: Buffer;

  constructor(port: number, request: Buffer) {
    this.request = request;
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
      this.socket.write(this.request);
    });
  }

  close(): void {
    this.failed = null;
    this.socket.destroy();
  }
}

export interface ClosedLoopResult {
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: Float64Array;
}

/** `connections` connections in a closed loop until `total` requests are answered or `seconds` have passed. */
export async function closedLoop(
  port: number,
  request: Buffer,
  connections: number,
  total: number,
  seconds: number,
): Promise<ClosedLoopResult> {
  const latencies = new Float64Array(total);
  let issued = 0;
  let done = 0;
  let errors = 0;
  const start = performance.now();
  const stopAt = start + seconds * 1000;
  const worker = async () => {
    const connection = new Connection(port, request);
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
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - start) / 1000;
  return { requests: done, errors, seconds: elapsed, latenciesMs: latencies.subarray(0, done) };
}

/**
 * Open loop at a fixed request rate (the same for every server): each connection sends on its own schedule, so
 * the servers do the same work per second and pay the same per-write wake-up costs of the loopback network.
 */
export async function openLoop(
  port: number,
  request: Buffer,
  connections: number,
  rate: number,
  seconds: number,
): Promise<{ requests: number; errors: number }> {
  const perConnectionInterval = (1000 * connections) / rate;
  const perConnection = Math.max(1, Math.round((rate * seconds) / connections));
  let requests = 0;
  let errors = 0;
  const worker = async (k: number) => {
    const connection = new Connection(port, request);
    const start = performance.now() + (k * perConnectionInterval) / connections;
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
  await Promise.all(Array.from({ length: connections }, (_, k) => worker(k)));
  return { requests, errors };
}

/** The p-th percentile of sorted values (nearest rank); NaN for none. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
