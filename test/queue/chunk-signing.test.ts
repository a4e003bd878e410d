/**
 * The MACs of what crosses Redis (src/queue/chunk-signing.ts), without Redis: every change to a signed output,
 * its counts, its binding (job id, payload MAC) or the MAC itself is refused, whatever its position in a large
 * output; a MAC made with another key is refused; each signature uses a fresh IV.
 */
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ChunkSigner } from '../../src/queue/chunk-signing.ts';
import type { ChunkCounts } from '../../src/queue/chunk-signing.ts';
import { emptyResultStats } from '../../src/bulk/result-stats.ts';

const KEY = 'k'.repeat(16) + '0123456789abcdef0123';
const signer = new ChunkSigner(KEY);
const JOB = 'r0123456789abcdef01234567.c3';
/** The output is bound to the MAC of the payload it was computed from. */
const DIGEST = signer.payloadMac(JOB, '{"v":1}');
const COUNTS: ChunkCounts = { rows: 2500, errorRows: 17, students: 1000 };
/** About the size of a real 1000-student output. */
const OUTPUT = randomBytes(1_700_003);

describe('chunk output MAC', () => {
  it('accepts the output it signed, and every signature has its own IV', () => {
    const a = signer.signOutput(JOB, DIGEST, COUNTS, OUTPUT);
    const b = signer.signOutput(JOB, DIGEST, COUNTS, OUTPUT);
    expect(a).toMatch(/^[0-9a-f]{24}\.[0-9a-f]{64}$/);
    expect(a.slice(0, 24)).not.toBe(b.slice(0, 24));
    expect(signer.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, a)).toBe(true);
    expect(signer.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, b)).toBe(true);
    // Another signer with the same key (the API, in another process) agrees.
    expect(new ChunkSigner(KEY).verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, a)).toBe(true);
  });

  it('refuses an output with one bit changed at its start, middle or end, or one byte longer or shorter', () => {
    const mac = signer.signOutput(JOB, DIGEST, COUNTS, OUTPUT);
    for (const at of [0, 15, 16, 850_000, OUTPUT.length - 1]) {
      const changed = Buffer.from(OUTPUT);
      changed[at] = (changed[at] ?? 0) ^ 1;
      expect(signer.verifyOutput(JOB, DIGEST, COUNTS, changed, mac), `bit flipped at ${at}`).toBe(false);
    }
    expect(signer.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT.subarray(0, OUTPUT.length - 1), mac)).toBe(false);
    expect(signer.verifyOutput(JOB, DIGEST, COUNTS, Buffer.concat([OUTPUT, Buffer.of(0)]), mac)).toBe(false);
  });

  it('refuses the output under another job id, payload digest, counts or shadow-check summary', () => {
    const mac = signer.signOutput(JOB, DIGEST, COUNTS, OUTPUT);
    expect(signer.verifyOutput('r0123456789abcdef01234567.c4', DIGEST, COUNTS, OUTPUT, mac)).toBe(false);
    expect(signer.verifyOutput(JOB, signer.payloadMac(JOB, '{"v":2}'), COUNTS, OUTPUT, mac)).toBe(false);
    // The MAC of the same payload under another job id is another binding too.
    expect(
      signer.verifyOutput(JOB, signer.payloadMac('r0123456789abcdef01234567.c4', '{"v":1}'), COUNTS, OUTPUT, mac),
    ).toBe(false);
    expect(signer.verifyOutput(JOB, DIGEST, { ...COUNTS, rows: 2499 }, OUTPUT, mac)).toBe(false);
    expect(signer.verifyOutput(JOB, DIGEST, { ...COUNTS, errorRows: 0 }, OUTPUT, mac)).toBe(false);
    expect(signer.verifyOutput(JOB, DIGEST, { ...COUNTS, students: 999 }, OUTPUT, mac)).toBe(false);
    const checks = { checked: 3 } as unknown as ChunkCounts['checks'];
    const withChecks = signer.signOutput(JOB, DIGEST, { ...COUNTS, checks }, OUTPUT);
    expect(signer.verifyOutput(JOB, DIGEST, { ...COUNTS, checks }, OUTPUT, withChecks)).toBe(true);
    expect(signer.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, withChecks)).toBe(false);
  });

  it("refuses the output under another result summary or another split into a job's sections", () => {
    const stats = emptyResultStats();
    stats.students_ok = 983;
    stats.equal.subsidized = 1_234_567;
    const counts: ChunkCounts = { ...COUNTS, stats, parts: [1_000_000, 700_000, 3] };
    const mac = signer.signOutput(JOB, DIGEST, counts, OUTPUT);
    expect(signer.verifyOutput(JOB, DIGEST, counts, OUTPUT, mac)).toBe(true);
    const richer = { ...stats, equal: { ...stats.equal, subsidized: 1_234_568 } };
    expect(signer.verifyOutput(JOB, DIGEST, { ...counts, stats: richer }, OUTPUT, mac)).toBe(false);
    expect(signer.verifyOutput(JOB, DIGEST, { ...counts, parts: [1_000_001, 699_999, 3] }, OUTPUT, mac)).toBe(false);
    expect(signer.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, mac)).toBe(false);
  });

  it('refuses a MAC of another key, with another IV, or malformed', () => {
    const mac = signer.signOutput(JOB, DIGEST, COUNTS, OUTPUT);
    const other = new ChunkSigner('another key of at least thirty-two characters');
    expect(other.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, mac)).toBe(false);
    expect(signer.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, other.signOutput(JOB, DIGEST, COUNTS, OUTPUT))).toBe(false);
    const [iv, hmac] = mac.split('.') as [string, string];
    const otherIv = (iv[0] === '0' ? '1' : '0') + iv.slice(1);
    expect(signer.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, `${otherIv}.${hmac}`)).toBe(false);
    for (const bad of ['', hmac, `.${hmac}`, `${iv}.`, `${iv}${hmac}`, `${iv.slice(2)}.${hmac}`, `${iv}.${hmac}00`]) {
      expect(signer.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('is AES-256-GMAC of the output under a key derived from the signing key, bound by HMAC-SHA256 (as documented)', () => {
    // An independent construction from the module comment, with Node's primitives: the MAC must verify.
    const key = Buffer.from(KEY, 'utf8');
    const gmacKey = createHmac('sha256', key).update('sor-chunk-output-gmac-key').digest();
    const iv = randomBytes(12);
    const gcm = createCipheriv('aes-256-gcm', gmacKey, iv);
    gcm.setAAD(OUTPUT);
    gcm.final();
    const header = `sor-chunk-output-v3\0${JOB}\0${DIGEST}\0${COUNTS.rows}\0${COUNTS.errorRows}\0${COUNTS.students}\0`;
    const hmac = createHmac('sha256', key).update(header).update(iv).update(gcm.getAuthTag()).digest('hex');
    expect(signer.verifyOutput(JOB, DIGEST, COUNTS, OUTPUT, `${iv.toString('hex')}.${hmac}`)).toBe(true);
  });
});

describe('chunk payload MAC', () => {
  it('accepts the payload bytes it signed and refuses another payload, job id or key', () => {
    const payload = Buffer.from('{"v":1,"s":[]}', 'utf8');
    const { mac } = signer.signPayload(JOB, payload);
    expect(signer.verifyPayload(JOB, mac, payload)).toBe(true);
    // A string is signed as its UTF-8 bytes: the API may sign either, the worker verifies the bytes it read.
    expect(signer.signPayload(JOB, '{"v":1,"s":[]}').mac).toBe(mac);
    expect(signer.verifyPayload(JOB, mac, Buffer.from('{"v":1,"s":[ ]}', 'utf8'))).toBe(false);
    expect(signer.verifyPayload('r0123456789abcdef01234567.c4', mac, payload)).toBe(false);
    expect(new ChunkSigner('another key of at least thirty-two characters').verifyPayload(JOB, mac, payload)).toBe(
      false,
    );
  });

  it('refuses any flipped bit, a cut or an extended payload, and a malformed MAC', () => {
    const payload = randomBytes(4099);
    const { mac } = signer.signPayload(JOB, payload);
    for (const at of [0, 1, 2048, 4098]) {
      const changed = Buffer.from(payload);
      changed[at]! ^= 0x01;
      expect(signer.verifyPayload(JOB, mac, changed), `bit flipped at ${at}`).toBe(false);
    }
    expect(signer.verifyPayload(JOB, mac, payload.subarray(0, payload.length - 1))).toBe(false);
    expect(signer.verifyPayload(JOB, mac, Buffer.concat([payload, Buffer.of(0)]))).toBe(false);
    for (const bad of ['', mac.slice(2), `${mac}00`, mac.toUpperCase().replace(/[0-9]/g, 'Z')]) {
      expect(signer.verifyPayload(JOB, bad, payload), JSON.stringify(bad)).toBe(false);
    }
  });
});
