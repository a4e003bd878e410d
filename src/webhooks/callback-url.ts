/**
 * Where a webhook may go. A callback URL (a job's `callback_url`, or WEBHOOK_URL) is refused unless:
 *  - it is an absolute https URL without a user name or password, at most MAX_CALLBACK_URL_CHARS long;
 *  - its host, when an IP address, is not in a refused range (address-ranges.ts), and, when a name, resolves and
 *    every address it resolves to is outside them (one bad address is enough to refuse: a name that answers with
 *    a public and a private address would otherwise reach the private one some of the time).
 * An origin listed in WEBHOOK_ALLOW (`http://127.0.0.1:9000`) skips both rules: http is accepted and any address.
 *
 * No DNS-rebinding window: the delivery resolves and checks again before each attempt and connects to the
 * addresses it checked (`pinnedLookup`), never to what a second lookup might answer.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { describeRefusal, refusedRange } from './address-ranges.ts';

export const MAX_CALLBACK_URL_CHARS = 2048;

/** A host name that takes longer than this to resolve is not waited for. */
export const RESOLVE_TIMEOUT_MS = 5000;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (getaddrinfo, as a connection would: /etc/hosts included). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Why a callback URL is refused: `reason` completes "callback_url …". */
export class CallbackRefusal extends Error {
  readonly reason: string;
  /** The lookup failed for a reason that may pass (timeout, server failure): try again later. */
  readonly transient: boolean;

  constructor(reason: string, transient = false) {
    super(`callback_url ${reason}`);
    this.name = 'CallbackRefusal';
    this.reason = reason;
    this.transient = transient;
  }
}

/** A callback URL that passed: where to connect. */
export interface CallbackTarget {
  url: URL;
  /** Its origin is listed in WEBHOOK_ALLOW: any scheme of http and https, any address, resolved as usual. */
  allowListed: boolean;
  /** The addresses checked (the connection uses only these); empty when allow-listed. */
  addresses: ResolvedAddress[];
}

const PERMANENT_DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

const PUBLIC_ONLY = 'webhooks go only to public addresses, unless the operator lists the origin in WEBHOOK_ALLOW';

/** The system resolver with a time limit. */
export const systemResolver: Resolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' })), RESOLVE_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([dnsLookup(hostname, { all: true, order: 'verbatim' }), timeout]);
    return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  } finally {
    clearTimeout(timer);
  }
};

const shown = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

/** The origins of WEBHOOK_ALLOW, as `new URL(...).origin` writes them. */
export function isAllowListed(url: URL, allow: ReadonlySet<string>): boolean {
  return allow.has(url.origin);
}

/** The URL's form and scheme (no DNS). Throws CallbackRefusal. */
export function parseCallbackUrl(text: string, allow: ReadonlySet<string>): { url: URL; allowListed: boolean } {
  if (text.length > MAX_CALLBACK_URL_CHARS) {
    throw new CallbackRefusal(`is longer than ${MAX_CALLBACK_URL_CHARS} characters`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CallbackRefusal(`is not an absolute URL such as https://hooks.example.edu/sor (got ${shown(text)})`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CallbackRefusal(`must be an https URL (got the scheme ${shown(url.protocol.slice(0, -1))})`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new CallbackRefusal('must not carry a user name or password (the events are signed instead)');
  }
  const allowListed = isAllowListed(url, allow);
  if (url.protocol === 'http:' && !allowListed) {
    throw new CallbackRefusal(
      'must use https: plain http is accepted only for an origin the operator lists in WEBHOOK_ALLOW',
    );
  }
  return { url, allowListed };
}

/** The URL's host as an address or a name: `[::1]` → `::1`. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Resolves the URL's host and checks every address. Throws CallbackRefusal. */
export async function checkedAddresses(url: URL, resolve: Resolver): Promise<ResolvedAddress[]> {
  const host = hostOf(url);
  const family = isIP(host);
  if (family !== 0) {
    const range = refusedRange(host);
    if (range)
      throw new CallbackRefusal(`points at a refused address: ${describeRefusal(host, range)}; ${PUBLIC_ONLY}`);
    return [{ address: host, family: family === 6 ? 6 : 4 }];
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    const code = String((err as { code?: unknown }).code ?? 'an unknown error');
    if (PERMANENT_DNS_CODES.has(code))
      throw new CallbackRefusal(`has a host name, ${host}, that does not resolve (${code})`);
    throw new CallbackRefusal(`has a host name, ${host}, whose lookup failed (${code})`, true);
  }
  if (addresses.length === 0) throw new CallbackRefusal(`has a host name, ${host}, that resolves to no address`);
  for (const { address } of addresses) {
    const range = refusedRange(address);
    if (range) {
      throw new CallbackRefusal(
        `has a host name, ${host}, that resolves to a refused address: ${describeRefusal(address, range)}; ${PUBLIC_ONLY}`,
      );
    }
  }
  return addresses;
}

/** The whole check of a callback URL: form, scheme, then (unless allow-listed) every address. */
export async function checkCallbackUrl(
  text: string,
  allow: ReadonlySet<string>,
  resolve: Resolver,
): Promise<CallbackTarget> {
  const { url, allowListed } = parseCallbackUrl(text, allow);
  return { url, allowListed, addresses: allowListed ? [] : await checkedAddresses(url, resolve) };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that answers only the addresses already checked, so the connection goes where
 * the check looked (the TLS name and the Host header stay the URL's host name).
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const want = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = addresses.filter((a) => !want || a.family === want);
    const list = usable.length > 0 ? usable : addresses;
    if (options.all)
      callback(
        null,
        list.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, list[0]!.address, list[0]!.family);
  };
}
