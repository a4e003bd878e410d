/**
 * src/server.ts as a real process: a bad configuration stops start-up with one line on stderr and exit code 1;
 * a good one serves the app (with the runtime's routers and OpenAPI paths); SIGTERM stops accepting
 * connections, lets an in-flight request finish and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseRequest } from './helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const SERVER = join(ROOT, 'src', 'server.ts');

/** Only what the server needs: no REDIS_URL or other CI variables leak in. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...extra };
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function run(extra: Record<string, string>) {
  const child = spawn(NODE, [SERVER], { cwd: ROOT, env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    const onData = () => {
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'listening' && entry.url !== undefined) {
          child.stdout?.off('data', onData);
          resolve(entry.url);
        }
      }
    };
    child.stdout?.on('data', onData);
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  listening.catch(() => {}); // observed by the tests that await it
  return { child, exited, listening, output: () => ({ stdout, stderr }) };
}

const START_ENV = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', BULK_THREADS: '1' };

describe('server process', () => {
  it('a bad configuration: one line on stderr, exit code 1', async () => {
    const s = run({ ...START_ENV, PORT: 'eighty' });
    expect(await s.exited).toBe(1);
    const { stderr, stdout } = s.output();
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('PORT');
    expect(stdout).toBe('');
  });

  it('serves the app with the runtime routers and OpenAPI paths, logs its URL', async () => {
    const s = run(START_ENV);
    const url = await s.listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    const calc = await fetch(`${url}/v1/calculate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(baseRequest()),
    });
    expect(calc.status).toBe(200);
    await calc.arrayBuffer();
    const doc = (await (await fetch(`${url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/calculate', '/v1/calculate/bulk']));
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/v1/jobs'))).toBe(true);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  });

  it('SIGTERM: refuses new connections, finishes the in-flight request, exits 0', async () => {
    const s = run(START_ENV);
    const url = new URL(await s.listening);
    const body = Buffer.from(JSON.stringify(baseRequest()));
    let status = 0;
    let responseText = '';
    let refusedWhileDraining: boolean | undefined;
    let aliveWhileDraining: boolean | undefined;
    const inFlight = new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/v1/calculate',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          status = res.statusCode ?? 0;
          res.on('data', (d: Buffer) => (responseText += d.toString('utf8')));
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      // Half the body now, the rest after SIGTERM.
      req.write(body.subarray(0, 20));
      setTimeout(() => {
        s.child.kill('SIGTERM');
        setTimeout(async () => {
          // New connections are refused while the in-flight request is still open.
          const refused = await new Promise<boolean>((done) => {
            const socket = connect({ host: url.hostname, port: Number(url.port) });
            socket.on('connect', () => {
              socket.destroy();
              done(false);
            });
            socket.on('error', () => done(true));
          });
          refusedWhileDraining = refused;
          aliveWhileDraining = s.child.exitCode === null;
          req.end(body.subarray(20));
        }, 300);
      }, 200);
    });
    await inFlight;
    expect(refusedWhileDraining).toBe(true);
    expect(aliveWhileDraining).toBe(true);
    expect(status).toBe(200);
    expect(JSON.parse(responseText)).toHaveProperty('reduced_annual_pct', 63);
    expect(await s.exited).toBe(0);
    expect(s.output().stdout).toContain('shutting down');
  });
});
