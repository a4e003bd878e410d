/**
 * SIGTERM while an upload is still arriving after the grace period: the real server
 * (src/server.ts, SHUTDOWN_GRACE_MS shortened to 1 s) answers the request it could not finish 503 with
 * Connection: close and a message that says to send it again, instead of resetting the connection; its request
 * log line records that 503 (not 200); the process exits 0 and leaves no spool file.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, spawnNode } from '../support/processes.ts';
import { freePort } from '../support/redis.ts';
import { CSV_HEADER, makeCsv } from '../queue/csv-gen.ts';

const dirs: string[] = [];

afterAll(async () => {
  await killAll();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('SIGTERM during a long upload', () => {
  it('answers 503 with Connection: close once the grace period is over, logs the 503 and exits 0', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sor-shutdown-upload-'));
    dirs.push(root);
    const spool = join(root, 'spool');
    const port = await freePort();
    const api = spawnNode('src/server.ts', {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      BULK_THREADS: '1',
      SPOOL_DIR: spool,
      JOBS_DIR: join(root, 'results'),
      SHUTDOWN_GRACE_MS: '1000',
    });
    await api.waitFor(/"msg":"listening"/, 60_000);

    // An upload announced at 5 MB, sent a line at a time: far from done when the grace period ends.
    const rows = makeCsv(2000, 5).slice(CSV_HEADER.length).split('\n');
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('utf8')));
    socket.on('error', () => undefined); // a write after the server closed its side: the answer is what counts
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /v1/calculate/bulk HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n` +
        `Content-Length: ${5 * 1024 * 1024}\r\n\r\n${CSV_HEADER}`,
    );
    let sent = 0;
    const trickle = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(`${rows[sent++ % rows.length]}\n`);
    }, 50);
    try {
      await new Promise((r) => setTimeout(r, 500));
      expect(api.output()).not.toMatch(/"path":"\/v1\/calculate\/bulk"/); // still receiving: nothing logged yet
      api.proc.kill('SIGTERM');
      await closed;
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }

    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toMatch(/\r\nretry-after: \d+\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { code: string; message: string };
    expect(body).toEqual({
      code: 'internal_error',
      message: 'The service shut down before it could answer this request. Send it again.',
    });

    expect(await api.exited).toBe(0);
    const logLines = api
      .output()
      .split('\n')
      .filter((l) => l.includes('"path":"/v1/calculate/bulk"'));
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toMatch(/"statusCode":503/);
    expect(api.output()).toMatch(/"answered":1,"cut":0,[^\n]*grace period over/);
    expect(await readdir(spool)).toEqual([]);
  }, 90_000);
});
