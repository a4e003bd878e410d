/**
 * One delivery attempt against real local receivers: a 2xx delivers; a 500, a redirect, a refused connection
 * and a receiver that never answers are failed attempts with their reason in words; the exact body and headers
 * arrive; and the address is checked again at the moment of the attempt, so a name that now resolves to a
 * private address is not contacted at all.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../../src/webhooks/delivery.ts';
import type { Resolver } from '../../src/webhooks/callback-url.ts';
import { freePort } from '../support/free-port.ts';

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let origin: string;
const seen: Seen[] = [];

const routes: Record<string, (res: ServerResponse) => void> = {
  '/ok': (res) => res.writeHead(204).end(),
  '/fail': (res) => res.writeHead(500).end('oops'),
  '/redirect': (res) => res.writeHead(302, { Location: 'http://169.254.169.254/' }).end(),
  '/silent': () => undefined, // never answers
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body });
      routes[req.url ?? '']?.(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const noDns: Resolver = async () => {
  throw Object.assign(new Error('no DNS in this test'), { code: 'ENOTFOUND' });
};

function options(timeoutMs = 2000) {
  return { allow: new Set([origin]), resolve: noDns, timeoutMs };
}

describe('deliver', () => {
  it('POSTs the exact body with the given headers; a 2xx is delivered', async () => {
    const body = '{"id":"evt_1","type":"job.completed","data":{"name":"Díaz"}}';
    const outcome = await deliver(
      { url: `${origin}/ok`, body, headers: { 'Content-Type': 'application/json', 'Sor-Signature': 't=1,v1=ab' } },
      options(),
    );
    expect(outcome).toEqual({ ok: true, status: 204, error: null });
    const last = seen[seen.length - 1]!;
    expect(last.body).toBe(body);
    expect(last.headers['sor-signature']).toBe('t=1,v1=ab');
    expect(last.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('counts a 500 and a redirect as failed attempts (a redirect is never followed)', async () => {
    expect(await deliver({ url: `${origin}/fail`, body: '{}', headers: {} }, options())).toEqual({
      ok: false,
      status: 500,
      error: 'answered 500, not a 2xx',
    });
    const before = seen.length;
    expect(await deliver({ url: `${origin}/redirect`, body: '{}', headers: {} }, options())).toEqual({
      ok: false,
      status: 302,
      error: 'answered 302: redirects are not followed',
    });
    expect(seen.length).toBe(before + 1);
  });

  it('says when the connection is refused and when no answer comes in time', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const refused = await deliver(
      { url: `${closed}/x`, body: '{}', headers: {} },
      { ...options(), allow: new Set([closed]) },
    );
    expect(refused).toEqual({ ok: false, status: null, error: 'the connection was refused (ECONNREFUSED)' });
    const silent = await deliver({ url: `${origin}/silent`, body: '{}', headers: {} }, options(300));
    expect(silent).toEqual({ ok: false, status: null, error: 'no answer within 0.3 s' });
  });

  it('checks the address again at each attempt: a name now resolving to a private address is never contacted', async () => {
    let answer = '93.184.216.34';
    const resolve: Resolver = async () => [{ address: answer, family: 4 }];
    answer = '10.0.0.7'; // the name was public when the job was submitted; it rebinds before the attempt
    const outcome = await deliver(
      { url: 'https://hooks.example.edu/sor', body: '{}', headers: {} },
      { allow: new Set(), resolve, timeoutMs: 1000 },
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.status).toBeNull();
    expect(outcome.error).toMatch(
      /^not sent: callback_url has a host name, hooks\.example\.edu, that resolves to a refused address: 10\.0\.0\.7 is a private/,
    );
  });
});
