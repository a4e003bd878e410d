/**
 * Uploads still arriving are capped: at most UPLOAD_MAX_SPOOLING bodies are received into
 * the spool at once (one more: 503 service_busy with Retry-After), and a body slower than
 * UPLOAD_MIN_BYTES_PER_SEC over a window is cut off (408 request_timeout, or the 503 it was being drained for),
 * its connection closed and its spool file removed; /healthz and normal uploads keep answering throughout.
 *
 * Scaled down from the finding (600 clients at 1 byte/s under a 1,024-descriptor limit): a cap of 3, six clients
 * at 10 bytes/s, a minimum of 100 bytes/s over 3 s windows. The descriptors a slow upload can hold are bounded the
 * same way: one socket each, and a spool file for at most UPLOAD_MAX_SPOOLING of them, for at most one window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RuntimeServer, startRuntimeServer } from './helpers.ts';
import { bulkConfig } from '../bulk/helpers.ts';

const WINDOW_MS = 3000;
const dir = mkdtempSync(join(tmpdir(), 'sor-slow-uploads-'));
const spool = join(dir, 'spool');
const config = bulkConfig({
  SPOOL_DIR: spool,
  UPLOAD_MAX_SPOOLING: '3',
  UPLOAD_MIN_BYTES_PER_SEC: '100',
  UPLOAD_RATE_WINDOW_MS: String(WINDOW_MS),
});
const sample = readFileSync(join(import.meta.dirname, '..', '..', 'samples', 'sample.csv'));
const header = sample.subarray(0, sample.indexOf('\n') + 1);
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

function post(path: string, body: Buffer): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body });
}

/**
 * An upload whose body trickles in at 10 bytes per second after its header row. Resolves with everything the
 * server answered once it closes the connection.
 */
function slowUpload(path: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const read: Buffer[] = [];
    socket.on('data', (data: Buffer) => read.push(data));
    socket.on('error', () => {}); // a reset after the answer
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\nContent-Length: 100000\r\n\r\n`,
    );
    socket.write(header);
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write('1');
    }, 100);
    socket.on('close', () => {
      clearInterval(trickle);
      resolve(Buffer.concat(read).toString('utf8'));
    });
  });
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
}

function codeOf(answer: string): string | undefined {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return (JSON.parse(body) as { code?: string }).code;
}

describe('slow uploads', () => {
  it('are capped while spooling and cut off below the minimum rate; /healthz and normal uploads still answer', async () => {
    // Three slow uploads fill the spooling cap (one on the job door: the cap is the process's).
    const spooling = [slowUpload('/v1/calculate/bulk'), slowUpload('/v1/calculate/bulk'), slowUpload('/v1/jobs')];
    await expect.poll(() => readdirSync(spool).length, { timeout: 10_000 }).toBe(3);
    // Three more are refused for the cap; their bodies are drained, just as slowly.
    const refused = [slowUpload('/v1/calculate/bulk'), slowUpload('/v1/jobs'), slowUpload('/v1/calculate/bulk')];

    // Meanwhile the service answers: /healthz, and a normal upload (refused for the cap, with Retry-After).
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    const busy = await post('/v1/calculate/bulk', sample);
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('5');
    expect(((await busy.json()) as { code: string; message: string }).message).toMatch(/receiving 3 uploads already/);
    expect(readdirSync(spool)).toHaveLength(3);

    // The slow ones are cut off after a window: 408 for those spooling, the 503 for those being drained.
    const spooled = await Promise.all(spooling);
    for (const answer of spooled) {
      expect(statusOf(answer)).toBe(408);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(codeOf(answer)).toBe('request_timeout');
    }
    for (const answer of await Promise.all(refused)) {
      expect(statusOf(answer)).toBe(503);
      expect(answer).toMatch(/\r\nretry-after: 5\r\n/i);
      expect(codeOf(answer)).toBe('service_busy');
    }
    await expect.poll(() => readdirSync(spool), { timeout: 10_000 }).toEqual([]);

    // With the slow uploads gone, the same upload is computed.
    const computed = await post('/v1/calculate/bulk', sample);
    expect(computed.status).toBe(200);
    const lines = (await computed.text()).trim().split('\n');
    expect(lines).toHaveLength(sample.toString('utf8').trim().split('\n').length);
  }, 60_000);

  it('lets a body that keeps the minimum rate take longer than one window', async () => {
    // 400 bytes/s for about 5 s: longer than one window, above the minimum (100 bytes/s) in every window.
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const read: Buffer[] = [];
      socket.on('data', (data: Buffer) => read.push(data));
      socket.on('error', () => {});
      socket.on('close', () => resolve(Buffer.concat(read).toString('utf8')));
      // The sample twice, its second copy under other student ids (the same ids again would be a file out of order).
      const again = sample
        .subarray(header.length)
        .toString('utf8')
        .replace(/^([^,\n]+),/gm, '$1-B,');
      const body = Buffer.concat([sample, Buffer.from(again, 'utf8')]);
      socket.write(
        `POST /v1/calculate/bulk HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      );
      let sent = 0;
      const trickle = setInterval(() => {
        socket.write(body.subarray(sent, sent + 40));
        sent += 40;
        if (sent >= body.length) clearInterval(trickle);
      }, 100);
    });
    expect(statusOf(answer)).toBe(200);
  }, 30_000);
});
