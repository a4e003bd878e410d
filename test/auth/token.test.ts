/** Token format, hashing and the constant-time comparison (src/auth/token.ts), and rate parsing. */
import { createHash } from 'node:crypto';
import type * as Crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

// Spy on timingSafeEqual, keeping the real one: the comparison must go through it.
const spy = vi.hoisted(() => ({ calls: [] as [number, number][] }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof Crypto>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      spy.calls.push([a.byteLength, b.byteLength]);
      return real.timingSafeEqual(a, b);
    },
  };
});

const { TOKEN_PATTERN, generateToken, generateTokenId, sameDigest, tokenHash, tokenShape } =
  await import('../../src/auth/token.ts');
const { parseRate } = await import('../../src/auth/rate.ts');
const { redactText, serializeError } = await import('../../src/redact.ts');

describe('tokens', () => {
  it('are the prefix and 32 characters of [0-9A-Za-z], never repeated', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const t = generateToken(i % 2 === 0 ? 'svc_live_' : 'svc_test_');
      expect(t).toMatch(TOKEN_PATTERN);
      seen.add(t);
    }
    expect(seen.size).toBe(2000);
    // ≥ 128 random bits: 32 characters of 62 carry 32 × log2(62) ≈ 190.5 bits.
    expect(32 * Math.log2(62)).toBeGreaterThanOrEqual(128);
  });

  it('use every character of the alphabet about equally (no modulo bias toward the first ones)', () => {
    const counts = new Map<string, number>();
    const n = 4000;
    for (let i = 0; i < n; i++) {
      for (const c of generateToken('svc_live_').slice(9)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (n * 32) / 62; // ≈ 2065 per character
    for (const [c, k] of counts) expect(Math.abs(k - expected), c).toBeLessThan(expected * 0.15);
  });

  it('ids are tok_ and 16 hex digits', () => {
    expect(generateTokenId()).toMatch(/^tok_[0-9a-f]{16}$/);
  });

  it('are told apart by environment and shape before any lookup', () => {
    const live = generateToken('svc_live_');
    const test = generateToken('svc_test_');
    expect(tokenShape(live, 'svc_live_')).toBe('ok');
    expect(tokenShape(test, 'svc_live_')).toBe('other_environment');
    expect(tokenShape(live, 'svc_test_')).toBe('other_environment');
    for (const bad of [
      '',
      'svc_live_',
      `${live}a`,
      live.slice(0, -1),
      `svc_prod_${live.slice(9)}`,
      `${live.slice(0, -1)}-`,
    ]) {
      expect(tokenShape(bad, 'svc_live_'), bad).toBe('malformed');
    }
  });

  it('are hashed with sha256 (FIPS 180-2 test vector "abc")', () => {
    expect(tokenHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('sameDigest', () => {
  it('compares equal-length digests with crypto.timingSafeEqual', () => {
    const x = tokenHash(generateToken('svc_live_'));
    const y = tokenHash(generateToken('svc_live_'));
    spy.calls.length = 0;
    expect(sameDigest(x, x)).toBe(true);
    expect(sameDigest(x, y)).toBe(false);
    // Differing only in the last hex digit.
    const last = x.slice(0, -1) + (x.endsWith('0') ? '1' : '0');
    expect(sameDigest(x, last)).toBe(false);
    expect(spy.calls).toEqual([
      [32, 32],
      [32, 32],
      [32, 32],
    ]);
  });

  it('never calls it (nor says equal) for a digest of another length', () => {
    spy.calls.length = 0;
    const x = tokenHash('a');
    expect(sameDigest(x, x.slice(0, 62))).toBe(false);
    expect(sameDigest(x, `${x}00`)).toBe(false);
    expect(sameDigest(createHash('md5').update('a').digest('hex'), x)).toBe(false);
    expect(spy.calls).toEqual([]);
  });
});

describe('rates', () => {
  it('parse N/sec|min|hour|day', () => {
    expect(parseRate('600/min')).toEqual({ limit: 600, window: 'min', windowMs: 60_000 });
    expect(parseRate('5/sec')?.windowMs).toBe(1000);
    expect(parseRate('10000/day')?.windowMs).toBe(86_400_000);
    for (const bad of ['0/min', '600', '600/minute', '-1/min', '1.5/min', '600/week'])
      expect(parseRate(bad), bad).toBeUndefined();
  });
});

describe('redaction', () => {
  it('cuts a token in any logged message or error to its prefix', () => {
    const live = generateToken('svc_live_');
    const test = generateToken('svc_test_');
    const text = redactText(`Authorization: Bearer ${live}; other ${test}.`);
    expect(text).toBe('Authorization: Bearer svc_live_***; other svc_test_***.');
    const err = serializeError(new Error(`bad header Bearer ${live}`, { cause: new Error(test) }));
    expect(JSON.stringify(err)).not.toContain(live.slice(9));
    expect(JSON.stringify(err)).not.toContain(test.slice(9));
  });
});
