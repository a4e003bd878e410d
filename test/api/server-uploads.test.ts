/**
 * src/server.ts as a real process, for the upload spool and the timeouts: orphaned spool files of a process that
 * is gone are swept at start-up (the folder made 0700); a connection whose upload stalls is closed after
 * HTTP_IDLE_TIMEOUT_MS, with no fixed whole-request timeout.
 */
import { serverEnv } from '../support/processes.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const SERVER = join(ROOT, 'src', 'server.ts');
const dir = mkdtempSync(join(tmpdir(), 'sor-server-uploads-'));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(extra: Record<string, string>): { listening: Promise<string>; stdout: () => string } {
  const env = serverEnv(extra);
  const child = spawn(NODE, [SERVER], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      const match = /"msg":"listening".*?"url":"([^"]+)"|"url":"([^"]+)".*?"msg":"listening"/.exec(stdout);
      if (match) resolve((match[1] ?? match[2])!);
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  return { listening, stdout: () => stdout };
}

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(NODE, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('server process: upload spool and timeouts', () => {
  it('sweeps orphaned spool files at start-up and makes the folder private', async () => {
    const spool = join(dir, 'spool');
    mkdirSync(spool, { mode: 0o755 });
    const orphan = join(spool, `upload-${deadPid()}-123e4567-e89b-42d3-a456-426614174000.csv`);
    writeFileSync(orphan, 'student_id\n');
    const other = join(spool, 'notes.txt');
    writeFileSync(other, 'not a spool file');
    const s = start({ SPOOL_DIR: spool });
    await s.listening;
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(other)).toBe(true);
    expect(statSync(spool).mode & 0o777).toBe(0o700);
    expect(s.stdout()).toMatch(/"removed":1.*removed orphaned upload spool files/);
  });

  it('closes a connection whose upload stalls after HTTP_IDLE_TIMEOUT_MS, and removes its spool file', async () => {
    const spool = join(dir, 'idle-spool');
    const s = start({ SPOOL_DIR: spool, HTTP_IDLE_TIMEOUT_MS: '1000' });
    const url = new URL(await s.listening);
    const socket = connect(Number(url.port), url.hostname);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(
      'POST /v1/calculate/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\nContent-Length: 100000\r\n\r\n' +
        'student_id,term_label\n',
    ); // ...and nothing more
    await closed;
    await expect.poll(() => readdirSync(spool), { timeout: 10_000 }).toEqual([]);
  });
});
