/**
 * Clients that upload a large file and then never read the answer: each holds a bulk slot
 * only until BULK_STALL_TIMEOUT_MS passes with none of its response's bytes taken; then its connection is closed,
 * its computation stops and its slot is free again. Meanwhile small files still get a slot from their own lane.
 *
 * A real server on a free port and raw sockets: four 50,000-student uploads whose clients read the status line,
 * then stop reading (socket.pause(): the loopback buffers fill, the server's writes stop being taken).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RuntimeServer, startRuntimeServer } from './helpers.ts';
import { bulkConfig, generatedCsv } from '../bulk/helpers.ts';

const STALL_MS = 2000;
const SMALL_ROWS = 20;
const dir = mkdtempSync(join(tmpdir(), 'sor-stalled-'));
const spool = join(dir, 'spool');
const config = bulkConfig({
  SPOOL_DIR: spool,
  BULK_STALL_TIMEOUT_MS: String(STALL_MS),
  BULK_MAX_CONCURRENT: '4',
  BULK_SMALL_MAX_CONCURRENT: '2',
  BULK_SMALL_FILE_ROWS: String(SMALL_ROWS),
});
const large = Buffer.from(generatedCsv(50_000).csv);
const sample = readFileSync(join(import.meta.dirname, '..', '..', 'samples', 'sample.csv'));
/** Over the small-file lane's row limit (SMALL_ROWS), so it needs one of the four general slots. */
const medium = Buffer.from(generatedCsv(12).csv);
let service: RuntimeServer;
let base: string;
let port: number;

beforeAll(async () => {
  service = await startRuntimeServer(config);
  port = service.port;
  base = service.base;
});

afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

function post(body: Buffer): Promise<Response> {
  return fetch(`${base}/v1/calculate/bulk`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body });
}

interface Stalled {
  socket: Socket;
  /** Everything read: the status line and headers, and what came of the body before the client stopped. */
  read: Buffer[];
}

/** Uploads `body` on a raw socket, reads until the status line and headers are in, then stops reading. */
function uploadAndStopReading(body: Buffer): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const read: Buffer[] = [];
    socket.on('error', () => {}); // the server resets it; seen below as an incomplete response
    socket.once('close', () => reject(new Error('closed before the response started')));
    socket.on('data', (data: Buffer) => {
      read.push(data);
      if (Buffer.concat(read).includes('\r\n\r\n')) {
        socket.pause();
        socket.removeAllListeners('data');
        socket.removeAllListeners('close');
        resolve({ socket, read });
      }
    });
    socket.write(
      `POST /v1/calculate/bulk HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n` +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body);
  });
}

/** Reads what is left of a stalled response until the connection ends. */
function readToEnd(stalled: Stalled): Promise<Buffer> {
  return new Promise((resolve) => {
    const done = () => resolve(Buffer.concat(stalled.read));
    if (stalled.socket.destroyed) return done();
    stalled.socket.on('data', (data: Buffer) => stalled.read.push(data));
    stalled.socket.once('close', done);
    stalled.socket.resume();
  });
}

describe('clients that stop reading their bulk answer', () => {
  it('lose their slots within the stall timeout, and small files are answered meanwhile', async () => {
    const stalled = await Promise.all([1, 2, 3, 4].map(() => uploadAndStopReading(large)));
    const stoppedAt = performance.now();
    for (const s of stalled) expect(Buffer.concat(s.read).toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);

    // The four general slots are taken: a file over the small-file lane's limit is refused...
    const refused = await post(medium);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { code: string }).code).toBe('service_busy');

    // ...while the sample file (18 rows) gets its answer from the small-file lane, well within 5 s.
    const sampleStarted = performance.now();
    const answered = await post(sample);
    const text = await answered.text();
    expect(answered.status).toBe(200);
    expect(performance.now() - sampleStarted).toBeLessThan(5000);
    expect(text.trim().split('\n')).toHaveLength(sample.toString('utf8').trim().split('\n').length);

    // Within the stall timeout (and a generous allowance for a loaded machine: each client's buffers fill at its
    // own moment), four files over the lane's limit are admitted at once: all four general slots were given back.
    let firstFreed = Number.NaN;
    for (;;) {
      const four = await Promise.all([1, 2, 3, 4].map(() => post(medium)));
      await Promise.all(four.map((r) => r.arrayBuffer()));
      const statuses = four.map((r) => r.status);
      for (const status of statuses) expect([200, 503]).toContain(status);
      if (statuses.includes(200) && Number.isNaN(firstFreed)) firstFreed = performance.now() - stoppedAt;
      if (statuses.every((status) => status === 200)) break;
      expect(performance.now() - stoppedAt).toBeLessThan(STALL_MS + 20_000);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(firstFreed).toBeGreaterThanOrEqual(STALL_MS - 250); // freed by the stall timeout, not before

    // Each stalled client gets a truncated transfer: no final chunk, the connection closed by the server.
    for (const s of stalled) {
      const all = await readToEnd(s);
      expect(all.subarray(-5).toString('latin1')).not.toBe('0\r\n\r\n');
    }
    await expect.poll(() => readdirSync(spool), { timeout: 10_000 }).toEqual([]);
  }, 120_000);
});
