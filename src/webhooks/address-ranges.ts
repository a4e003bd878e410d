/**
 * Which IP addresses a webhook may never be sent to: the service's own machine and network, and addresses that
 * are not a single public host. The table is data, each range with its kind and its source; `refusedRange`
 * answers for one address (IPv4 or IPv6), looking through the IPv6 forms that carry an IPv4 address inside
 * (IPv4-mapped ::ffff:a.b.c.d, the NAT64 well-known prefix, 6to4) so `::ffff:127.0.0.1` is a loopback address.
 *
 * Pure: no DNS, no I/O. The URL check (callback-url.ts) resolves a host name and asks here for every address.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Why an address is refused (describeRefusal words it for the 400 message). */
export interface RefusedRange {
  /** The range, as written in its source. */
  cidr: string;
  /** What the range is, to read as "a <kind> address": "loopback", "private (RFC 1918)", … */
  kind: string;
  /** Set when an IPv6 address is refused for the IPv4 address it carries: its form and that address. */
  via?: { form: string; ipv4: string };
}

interface Range extends RefusedRange {
  /** The IANA special-purpose registry entry or RFC that defines it. */
  source: string;
}

/** IPv4 ranges refused (IANA IPv4 Special-Purpose Address Registry, RFC 6890). */
const IPV4_RANGES: readonly Range[] = [
  { cidr: '0.0.0.0/8', kind: 'unspecified ("this network")', source: 'RFC 791, RFC 1122 §3.2.1.3' },
  { cidr: '10.0.0.0/8', kind: 'private (RFC 1918)', source: 'RFC 1918' },
  { cidr: '100.64.0.0/10', kind: 'shared carrier-grade NAT (CGNAT)', source: 'RFC 6598' },
  { cidr: '127.0.0.0/8', kind: 'loopback', source: 'RFC 1122 §3.2.1.3' },
  { cidr: '169.254.0.0/16', kind: 'link-local', source: 'RFC 3927' },
  { cidr: '172.16.0.0/12', kind: 'private (RFC 1918)', source: 'RFC 1918' },
  { cidr: '192.0.0.0/24', kind: 'IETF protocol-assignment', source: 'RFC 6890' },
  { cidr: '192.0.2.0/24', kind: 'documentation', source: 'RFC 5737' },
  { cidr: '192.88.99.0/24', kind: '6to4 relay anycast', source: 'RFC 7526' },
  { cidr: '192.168.0.0/16', kind: 'private (RFC 1918)', source: 'RFC 1918' },
  { cidr: '198.18.0.0/15', kind: 'benchmarking', source: 'RFC 2544' },
  { cidr: '198.51.100.0/24', kind: 'documentation', source: 'RFC 5737' },
  { cidr: '203.0.113.0/24', kind: 'documentation', source: 'RFC 5737' },
  { cidr: '224.0.0.0/4', kind: 'multicast', source: 'RFC 5771' },
  { cidr: '240.0.0.0/4', kind: 'reserved or broadcast', source: 'RFC 1112 §4, RFC 919' },
];

/**
 * IPv6 ranges refused (IANA IPv6 Special-Purpose Address Registry). The forms with an IPv4 address inside are
 * not here: they are judged by that address (EMBEDDED_IPV4 below).
 */
const IPV6_RANGES: readonly Range[] = [
  { cidr: '::/128', kind: 'unspecified', source: 'RFC 4291 §2.5.2' },
  { cidr: '::1/128', kind: 'loopback', source: 'RFC 4291 §2.5.3' },
  { cidr: '::/8', kind: 'reserved (IPv4-compatible)', source: 'RFC 4291 §2.5.5.1' },
  { cidr: '64:ff9b:1::/48', kind: 'local-use NAT64', source: 'RFC 8215' },
  { cidr: '100::/64', kind: 'discard-only', source: 'RFC 6666' },
  { cidr: '2001::/32', kind: 'Teredo tunnel (its IPv4 address is hidden)', source: 'RFC 4380' },
  { cidr: '2001:db8::/32', kind: 'documentation', source: 'RFC 3849' },
  { cidr: 'fc00::/7', kind: 'unique-local', source: 'RFC 4193' },
  { cidr: 'fe80::/10', kind: 'link-local', source: 'RFC 4291 §2.5.6' },
  { cidr: 'fec0::/10', kind: 'site-local', source: 'RFC 3879' },
  { cidr: 'ff00::/8', kind: 'multicast', source: 'RFC 4291 §2.7' },
];

/** IPv6 prefixes whose address carries an IPv4 address at a known place: that address decides. */
const EMBEDDED_IPV4: readonly { cidr: string; name: string; bitOffset: number }[] = [
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped', bitOffset: 96 }, // RFC 4291 §2.5.5.2
  { cidr: '64:ff9b::/96', name: 'NAT64', bitOffset: 96 }, // RFC 6052
  { cidr: '2002::/16', name: '6to4', bitOffset: 16 }, // RFC 3056
];

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** The 128-bit value of an IPv6 address (a zone id `%eth0` is ignored; a trailing dotted quad is read). */
function ipv6Value(address: string): bigint {
  let text = address.split('%')[0] as string;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const v = ipv4Value(quad[1] as string);
    text = `${text.slice(0, quad.index)}${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g || '0', 16)), 0n);
}

interface Parsed {
  bits: 32 | 128;
  value: bigint;
}

function parse(address: string): Parsed | undefined {
  if (isIPv4(address)) return { bits: 32, value: ipv4Value(address) };
  if (isIPv6(address)) return { bits: 128, value: ipv6Value(address) };
  return undefined;
}

function inCidr(address: Parsed, cidr: string): boolean {
  const [base, lengthText] = cidr.split('/') as [string, string];
  const range = parse(base);
  if (range === undefined || range.bits !== address.bits) return false;
  const shift = BigInt(address.bits - Number(lengthText));
  return address.value >> shift === range.value >> shift;
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
}

/**
 * The range that forbids `address`, or undefined for a public address. An address inside an IPv4-carrying IPv6
 * form is refused as the IPv4 address it carries (`via`).
 * Anything that is not an IP address is refused as such (the caller resolves names first).
 */
export function refusedRange(address: string): RefusedRange | undefined {
  const parsed = parse(address);
  if (parsed === undefined) return { cidr: address, kind: 'not an IP address' };
  if (parsed.bits === 128) {
    for (const form of EMBEDDED_IPV4) {
      if (!inCidr(parsed, form.cidr)) continue;
      const inner = formatIpv4((parsed.value >> BigInt(128 - form.bitOffset - 32)) & 0xffffffffn);
      const found = refusedRange(inner);
      return found && { ...found, via: { form: form.name, ipv4: inner } };
    }
  }
  const table = parsed.bits === 32 ? IPV4_RANGES : IPV6_RANGES;
  const found = table.find((r) => inCidr(parsed, r.cidr));
  return found && { cidr: found.cidr, kind: found.kind };
}

/**
 * "127.0.0.1 is a loopback address (127.0.0.0/8)"; "::ffff:10.0.0.1 is the IPv4-mapped form of 10.0.0.1, a private
 * (RFC 1918) address (10.0.0.0/8)".
 */
export function describeRefusal(address: string, range: RefusedRange): string {
  const article = /^(?:[aeioAEIO]|[uU](?!ni))/.test(range.kind) ? 'an' : 'a'; // an unspecified, a unique-local
  const what = `${article} ${range.kind} address (${range.cidr})`;
  return range.via === undefined
    ? `${address} is ${what}`
    : `${address} is the ${range.via.form} form of ${range.via.ipv4}, ${what}`;
}
