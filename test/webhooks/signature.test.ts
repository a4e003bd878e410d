/**
 * Sor-Signature is Stripe's scheme: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">. The expected MAC
 * is computed by Python's hmac module (another implementation), over the body's exact UTF-8 bytes.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/webhooks/signature.ts';

function pythonHmac(secret: string, message: string): string {
  return execFileSync(
    'python3',
    [
      '-c',
      'import hmac,hashlib,sys; print(hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())',
      secret,
    ],
    { input: Buffer.from(message, 'utf8') },
  )
    .toString()
    .trim();
}

describe('signatureHeader', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 under the secret, in hex', () => {
    const secret = 'whsec-test-0123456789abcdef0123456789abcdef';
    const body = '{"id":"evt_1","type":"job.completed","data":{"note":"Díaz ✓"}}';
    const header = signatureHeader(secret, body, 1767225600);
    expect(header).toBe(`t=1767225600,v1=${pythonHmac(secret, `1767225600.${body}`)}`);
  });

  it('changes with the body, the time and the secret', () => {
    const base = signatureHeader('k'.repeat(32), '{}', 1);
    expect(signatureHeader('k'.repeat(32), '{ }', 1)).not.toBe(base);
    expect(signatureHeader('k'.repeat(32), '{}', 2).split(',')[1]).not.toBe(base.split(',')[1]);
    expect(signatureHeader('j'.repeat(32), '{}', 1)).not.toBe(base);
  });
});
