/**
 * Slow uploads at scale: 600 clients sending an upload at 1 byte per second to the real server
 * (src/server.ts) running under a 1,024-descriptor limit (`ulimit -n 1024`). Before the spooling cap and the
 * minimum body rate each slow upload held two descriptors with no end, and /healthz and bulk failed for the whole
 * run. Now at most UPLOAD_MAX_SPOOLING (32, the default) are spooled at once, the rest are refused with 503, and
 * every one of them is cut off after one rate window (shortened here to 3 s): /healthz answers 200 throughout,
 * and a normal upload of the sample file gets its 200 once the slow ones are cut (it may meet the cap's 503
 * with Retry-After before that, as a client would).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_BIN, REPO_ROOT } from '../support/processes.ts';
import { freePort } from '../support/redis.ts';

const CLIENTS = 600;
const WINDOW_MS = 3000;
let server: ChildProcess | undefined;
const sockets: Socket[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const s of sockets) s.destroy();
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('600 uploads at 1 byte/s under a 1,024-descriptor limit', () => {
  it('leave /healthz answering and a normal upload computed', { timeout: 120_000 }, async () => {
    const root = await mkdtemp(join(tmpdir(), 'sor-descriptors-'));
    dirs.push(root);
    const spool = join(root, 'spool');
    const port = await freePort();
    let output = '';
    server = spawn('bash', ['-c', `ulimit -n 1024 && exec "${NODE_BIN}" src/server.ts`], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        BULK_THREADS: '1',
        SPOOL_DIR: spool,
        JOBS_DIR: join(root, 'results'),
        UPLOAD_RATE_WINDOW_MS: String(WINDOW_MS),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (i > 300 || server.exitCode !== null) throw new Error(`the server did not start:\n${output}`);
      await sleep(100);
    }
    const limit = /Max open files\s+(\d+)/.exec(await readFile(`/proc/${server.pid}/limits`, 'utf8'))?.[1];
    expect(limit).toBe('1024');

    // The slow clients: headers and the CSV header row at once, then one byte a second.
    const sample = await readFile(join(REPO_ROOT, 'samples', 'sample.csv'));
    const headerRow = sample.subarray(0, sample.indexOf('\n') + 1);
    const answers: string[] = new Array<string>(CLIENTS).fill('');
    const closed = new Array<boolean>(CLIENTS).fill(false);
    for (let i = 0; i < CLIENTS; i++) {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      socket.on('error', () => {});
      socket.on('data', (d: Buffer) => (answers[i] += d.toString('latin1')));
      socket.on('close', () => (closed[i] = true));
      const path = i % 2 === 0 ? '/v1/calculate/bulk' : '/v1/jobs';
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\nContent-Length: 1000000\r\n\r\n`,
      );
      socket.write(headerRow);
    }
    const trickle = setInterval(() => {
      for (const s of sockets) if (!s.destroyed) s.write('1');
    }, 1000);

    try {
      // /healthz throughout the window and after it; a normal upload until it is computed.
      const started = Date.now();
      let computed: string | null = null;
      let healthChecks = 0;
      while (Date.now() - started < 4 * WINDOW_MS + 20_000) {
        const health = await fetch(`${base}/healthz`);
        expect(health.status, output).toBe(200);
        await health.text();
        healthChecks++;
        const upload = await fetch(`${base}/v1/calculate/bulk`, {
          method: 'POST',
          headers: { 'Content-Type': 'text/csv' },
          body: sample,
        });
        const text = await upload.text();
        if (upload.status === 200) {
          computed = text;
          break;
        }
        // Only the cap's refusal is acceptable on the way, with its Retry-After.
        expect(upload.status, text).toBe(503);
        expect(upload.headers.get('retry-after')).toMatch(/^\d+$/);
        await sleep(250);
      }
      expect(computed, 'the sample was never computed').not.toBeNull();
      expect(computed!.split('\n').filter((l) => l !== '').length).toBe(
        sample
          .toString()
          .split('\n')
          .filter((l) => l !== '').length,
      );
      expect(healthChecks).toBeGreaterThan(0);

      // Every slow client was answered (503 refused, or 408 too slow) and closed within a few windows.
      for (let i = 0; i < 50 && closed.some((c) => !c); i++) await sleep(200);
      expect(closed.filter((c) => !c).length).toBe(0);
      const statuses = answers.map((a) => /^HTTP\/1\.1 (\d{3})/.exec(a)?.[1] ?? 'none');
      const counts: Record<string, number> = {};
      for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
      expect(
        Object.keys(counts).every((s) => s === '503' || s === '408'),
        JSON.stringify(counts),
      ).toBe(true);
      expect(counts['408'] ?? 0).toBeGreaterThan(0);
      expect(counts['408'] ?? 0).toBeLessThanOrEqual(32);
      // And no spool file is left behind; the server is still up.
      expect(await readdir(spool).catch(() => [])).toEqual([]);
      expect(server.exitCode).toBeNull();
      expect(output).not.toMatch(/EMFILE/);
    } finally {
      clearInterval(trickle);
    }
  });
});
