/**
 * The callback URL check: form and scheme, a host name resolved and EVERY address checked (one private address
 * among public ones refuses the URL), the allow list lifting both rules for its origin only, DNS failures told
 * apart (a name that does not exist is the URL's fault; a timeout may pass), and the pinned lookup that sends
 * the connection to the checked address whatever DNS says later.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CallbackRefusal,
  checkCallbackUrl,
  MAX_CALLBACK_URL_CHARS,
  pinnedLookup,
  type Resolver,
} from '../../src/webhooks/callback-url.ts';

const NONE: ReadonlySet<string> = new Set();

/** A resolver answering from a table; an Error with `code` for names not in it. */
function table(names: Record<string, string[]>, missing = 'ENOTFOUND'): Resolver {
  return async (host) => {
    const found = names[host];
    if (!found) throw Object.assign(new Error(`lookup ${host}`), { code: missing });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function refusal(text: string, resolve: Resolver = table({}), allow = NONE): Promise<CallbackRefusal> {
  try {
    await checkCallbackUrl(text, allow, resolve);
  } catch (err) {
    if (err instanceof CallbackRefusal) return err;
    throw err;
  }
  throw new Error(`${text} was accepted`);
}

describe('checkCallbackUrl', () => {
  it('accepts an https URL whose host resolves only to public addresses, and keeps the addresses it checked', async () => {
    const resolve = table({ 'hooks.example.edu': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    const target = await checkCallbackUrl('https://hooks.example.edu/sor?x=1', NONE, resolve);
    expect(target.allowListed).toBe(false);
    expect(target.addresses.map((a) => a.address)).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  it('refuses plain http, other schemes, credentials, relative and overlong URLs', async () => {
    expect((await refusal('http://hooks.example.edu/sor')).reason).toMatch(/must use https.*WEBHOOK_ALLOW/);
    expect((await refusal('ftp://hooks.example.edu/sor')).reason).toBe('must be an https URL (got the scheme "ftp")');
    expect((await refusal('https://user:pw@hooks.example.edu/')).reason).toMatch(/user name or password/);
    expect((await refusal('/v1/hooks')).reason).toMatch(/^is not an absolute URL/);
    const long = `https://hooks.example.edu/${'a'.repeat(MAX_CALLBACK_URL_CHARS)}`;
    expect((await refusal(long)).reason).toBe(`is longer than ${MAX_CALLBACK_URL_CHARS} characters`);
  });

  it.each([
    ['https://127.0.0.1/hook', '127.0.0.1 is a loopback address (127.0.0.0/8)'],
    ['https://10.1.2.3:8443/hook', '10.1.2.3 is a private (RFC 1918) address (10.0.0.0/8)'],
    ['https://[::1]/hook', '::1 is a loopback address (::1/128)'],
    ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1 is the IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
    ['https://0x7f.1/hook', '127.0.0.1 is a loopback address'], // the URL parser reads the shorthand as 127.0.0.1
    ['https://2130706433/hook', '127.0.0.1 is a loopback address'],
  ])('refuses %s, naming why', async (text, why) => {
    const { reason, transient } = await refusal(text);
    expect(reason).toContain(`points at a refused address: ${why}`);
    expect(reason).toContain('WEBHOOK_ALLOW');
    expect(transient).toBe(false);
  });

  it('refuses a host name that resolves to a private address, or to a private one among public ones', async () => {
    const resolve = table({ 'intranet.example.edu': ['10.0.0.8'], 'mixed.example.edu': ['93.184.216.34', '10.0.0.9'] });
    expect((await refusal('https://intranet.example.edu/', resolve)).reason).toBe(
      'has a host name, intranet.example.edu, that resolves to a refused address: 10.0.0.8 is a private (RFC 1918) ' +
        'address (10.0.0.0/8); webhooks go only to public addresses, unless the operator lists the origin in WEBHOOK_ALLOW',
    );
    expect((await refusal('https://mixed.example.edu/', resolve)).reason).toContain('10.0.0.9 is a private');
  });

  it('resolves localhost with the system resolver and refuses it', async () => {
    const { checkCallbackUrl: check, systemResolver } = await import('../../src/webhooks/callback-url.ts');
    await expect(check('https://localhost:9443/hook', NONE, systemResolver)).rejects.toThrow(
      /localhost, that resolves to a refused address: (127\.0\.0\.1|::1) is a loopback address/,
    );
  });

  it('tells a name that does not exist (the URL is wrong) from a lookup that failed for now', async () => {
    const gone = await refusal('https://nosuch.example.edu/', table({}, 'ENOTFOUND'));
    expect(gone.reason).toBe('has a host name, nosuch.example.edu, that does not resolve (ENOTFOUND)');
    expect(gone.transient).toBe(false);
    const later = await refusal('https://slow.example.edu/', table({}, 'EAI_AGAIN'));
    expect(later.transient).toBe(true);
  });

  it('lifts the https and address rules for an allow-listed origin only (scheme, host and port must match)', async () => {
    const allow = new Set(['http://127.0.0.1:9000']);
    const target = await checkCallbackUrl('http://127.0.0.1:9000/hooks/sor', allow, table({}));
    expect(target).toMatchObject({ allowListed: true, addresses: [] });
    expect((await refusal('http://127.0.0.1:9001/hooks', table({}), allow)).reason).toMatch(/must use https/);
    expect((await refusal('https://127.0.0.1:9000/hooks', table({}), allow)).reason).toMatch(/loopback/);
  });
});

describe('pinnedLookup', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => res.end(`host=${req.headers.host}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('connects to the checked address whatever the name, keeping the name in the Host header', async () => {
    // rebind.invalid never resolves (RFC 6761): the connection can only have gone where the lookup said.
    const answer = await new Promise<string>((resolve, reject) => {
      const req = request(
        { host: 'rebind.invalid', port, path: '/', lookup: pinnedLookup([{ address: '127.0.0.1', family: 4 }]) },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(answer).toBe(`host=rebind.invalid:${port}`);
  });

  it('answers every checked address when asked for all (happy eyeballs), those of a family when asked for one', () => {
    const lookup = pinnedLookup([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    const seen: unknown[] = [];
    lookup('x', { all: true }, (_err, list) => seen.push(list));
    lookup('x', { family: 6 }, (_err, address, family) => seen.push([address, family]));
    expect(seen).toEqual([
      [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
      ['2606:2800:220:1::1', 6],
    ]);
  });
});
