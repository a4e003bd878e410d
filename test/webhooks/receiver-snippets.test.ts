/**
 * The receivers of docs/webhooks.md, as printed, against deliveries signed and sent by the service's own code
 * (signatureHeader, deliver): each accepts a genuine delivery and prints it, and refuses a wrong key, a changed
 * body, an old or future timestamp, a missing or malformed header; a header with several v1 values passes when
 * one of them is right (how a key is changed). test/webhooks/receivers.test.ts runs them against the real
 * service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../../src/webhooks/delivery.ts';
import { signatureHeader } from '../../src/webhooks/signature.ts';
import { startReceiver, type Receiver, type ReceiverLanguage } from './receivers.ts';

const SECRET = 'receiver-test-secret-0123456789abcdef0123';

describe.each(['python', 'node'] as ReceiverLanguage[])('the %s receiver of docs/webhooks.md', (language) => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver(language, SECRET);
  });
  afterAll(() => receiver?.stop());

  const body = JSON.stringify({
    id: 'evt_0123456789abcdef01234567',
    type: 'job.completed',
    created: Math.floor(Date.now() / 1000),
    data: { id: '0190a000-0000-8000-8000-000000000001', object: 'job', note: 'Díaz ✓' },
  });

  async function send(text: string, signature: string | undefined): Promise<number | null> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (signature !== undefined) headers['Sor-Signature'] = signature;
    const outcome = await deliver(
      { url: `${receiver.url}/hooks`, body: text, headers },
      { allow: new Set([receiver.url]), resolve: async () => [], timeoutMs: 5000 },
    );
    return outcome.status;
  }

  const now = () => Math.floor(Date.now() / 1000);

  it('accepts a delivery signed with its key, and prints the event', async () => {
    expect(await send(body, signatureHeader(SECRET, body, now()))).toBe(204);
    expect(await receiver.line('evt_0123456789abcdef01234567')).toBe(
      'evt_0123456789abcdef01234567 job.completed 0190a000-0000-8000-8000-000000000001',
    );
  });

  it('refuses a wrong key, a changed body, an old or future time, and a missing or malformed header', async () => {
    await receiver.line('evt_0123456789abcdef01234567');
    const printed = receiver.lines().length;
    expect(await send(body, signatureHeader('another-secret-0123456789abcdef0123456', body, now()))).toBe(400);
    expect(await send(body.replace('Díaz', 'Diaz'), signatureHeader(SECRET, body, now()))).toBe(400);
    expect(await send(body, signatureHeader(SECRET, body, now() - 301))).toBe(400);
    expect(await send(body, signatureHeader(SECRET, body, now() + 301))).toBe(400);
    expect(await send(body, undefined)).toBe(400);
    expect(await send(body, 'garbage')).toBe(400);
    const good = signatureHeader(SECRET, body, now());
    expect(await send(body, good.replace(/v1=([0-9a-f]+)/, 'v1=$1$1'))).toBe(400);
    expect(await send(body, good.replace('t=', 't=1'))).toBe(400);
    // Each refusal went to stderr, none to stdout.
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.lines()).toHaveLength(printed);
    expect(receiver.errors().match(/refused: bad or old signature/g)?.length).toBeGreaterThanOrEqual(8);
  });

  it('accepts a header with several v1 values when one is right (the old and new key while a key changes)', async () => {
    const t = now();
    const old = signatureHeader('old-secret-0123456789abcdef0123456789ab', body, t).split(',')[1];
    const current = signatureHeader(SECRET, body, t);
    expect(await send(body, `${current},${old}`)).toBe(204);
  });
});
