/**
 * The addresses a webhook may never reach, against the IANA special-purpose registries (RFC 6890 and the RFCs
 * each range cites): every refused kind the docs name, the edges of each range, the IPv6 forms that carry an
 * IPv4 address (mapped, NAT64, 6to4) judged by that address, and public addresses left alone.
 */
import { describe, expect, it } from 'vitest';
import { describeRefusal, refusedRange } from '../../src/webhooks/address-ranges.ts';

describe('refusedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.0', 'private (RFC 1918)'],
    ['10.255.255.255', 'private (RFC 1918)'],
    ['172.16.0.1', 'private (RFC 1918)'],
    ['172.31.255.255', 'private (RFC 1918)'],
    ['192.168.1.10', 'private (RFC 1918)'],
    ['100.64.0.1', 'shared carrier-grade NAT (CGNAT)'],
    ['100.127.255.255', 'shared carrier-grade NAT (CGNAT)'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
  ])('refuses %s as %s', (address, kind) => {
    expect(refusedRange(address)?.kind).toBe(kind);
  });

  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1', 'loopback', 'IPv4-mapped'],
    ['::ffff:7f00:1', '127.0.0.1', 'loopback', 'IPv4-mapped'],
    ['::ffff:10.0.0.1', '10.0.0.1', 'private (RFC 1918)', 'IPv4-mapped'],
    ['::ffff:169.254.169.254', '169.254.169.254', 'link-local', 'IPv4-mapped'],
    ['64:ff9b::a00:1', '10.0.0.1', 'private (RFC 1918)', 'NAT64'],
    ['2002:c0a8:0101::1', '192.168.1.1', 'private (RFC 1918)', '6to4'],
  ])('refuses %s as the %s it carries', (address, ipv4, kind, form) => {
    const range = refusedRange(address);
    expect(range?.kind).toBe(kind);
    expect(range?.via).toEqual({ form, ipv4 });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('lets the public address %s through', (address) => {
    expect(refusedRange(address)).toBeUndefined();
  });

  it('refuses what is not an IP address (names are resolved first)', () => {
    expect(refusedRange('localhost')?.kind).toBe('not an IP address');
  });

  it('words a refusal for the 400 message', () => {
    expect(describeRefusal('127.0.0.1', refusedRange('127.0.0.1')!)).toBe(
      '127.0.0.1 is a loopback address (127.0.0.0/8)',
    );
    expect(describeRefusal('::ffff:10.1.2.3', refusedRange('::ffff:10.1.2.3')!)).toBe(
      '::ffff:10.1.2.3 is the IPv4-mapped form of 10.1.2.3, a private (RFC 1918) address (10.0.0.0/8)',
    );
    expect(describeRefusal('fd00::1', refusedRange('fd00::1')!)).toBe('fd00::1 is a unique-local address (fc00::/7)');
  });
});
