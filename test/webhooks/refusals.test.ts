/**
 * Where a webhook may not go, against the real service: a callback to 127.0.0.1, to 10.0.0.0/8, or to a host
 * name resolving to loopback (localhost) is refused with 400 before the job is created, as a query parameter and
 * as a form field, unless its origin is in WEBHOOK_ALLOW; plain http is refused off the allow list; without
 * WEBHOOK_SECRET any callback is refused; a bad WEBHOOK_URL stops start-up; WEBHOOK_URL is the callback of jobs
 * without their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { killAll, spawnNode } from '../support/processes.ts';
import { startReceiver, type Receiver } from './receivers.ts';
import {
  callbackWhen,
  folders,
  removeFolders,
  SMALL_CSV,
  startApi,
  submit,
  submitForm,
  WEBHOOK_SECRET,
  type Api,
} from './servers.ts';

let service: Api;
let allowed: string;

beforeAll(async () => {
  allowed = `http://127.0.0.1:${await freePort()}`;
  service = await startApi({ ...(await folders()), WEBHOOK_ALLOW: allowed });
});

afterAll(async () => {
  await killAll();
  await removeFolders();
});

describe('callback_url refused at submission', () => {
  it.each([
    ['https://127.0.0.1/hooks', 'points at a refused address: 127.0.0.1 is a loopback address (127.0.0.0/8)'],
    [
      'https://10.20.30.40/hooks',
      'points at a refused address: 10.20.30.40 is a private (RFC 1918) address (10.0.0.0/8)',
    ],
    ['https://10.0.0.1:8443/hooks', 'points at a refused address: 10.0.0.1 is a private (RFC 1918) address'],
    ['https://[::ffff:10.0.0.1]/hooks', 'the IPv4-mapped form of 10.0.0.1, a private (RFC 1918) address'],
    ['https://localhost/hooks', 'has a host name, localhost, that resolves to a refused address'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
    [
      'http://127.0.0.1:1/hooks',
      'must use https: plain http is accepted only for an origin the operator lists in WEBHOOK_ALLOW',
    ],
    ['ftp://example.edu/hooks', 'must be an https URL (got the scheme "ftp")'],
  ])('refuses %s (query parameter and form field), naming why', async (url, why) => {
    for (const answer of [await submit(service.base, url), await submitForm(service.base, url)]) {
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('validation_error');
      expect(answer.body.message).toContain(why);
      expect(answer.body.message).toMatch(/^callback_url /);
      expect(answer.body.field_errors?.[0]?.field).toBe('callback_url');
    }
  });

  it('accepts a loopback callback whose origin is in WEBHOOK_ALLOW', async () => {
    expect((await submit(service.base, `${allowed}/hooks`)).status).toBe(202);
    expect((await submitForm(service.base, `${allowed}/hooks`)).status).toBe(202);
  });

  it('refuses callback_url given twice', async () => {
    const form = new FormData();
    form.append('callback_url', `${allowed}/a`);
    form.append('file', new Blob([SMALL_CSV], { type: 'text/csv' }), 'students.csv');
    const both = await fetch(`${service.base}/v1/jobs?callback_url=${encodeURIComponent(`${allowed}/b`)}`, {
      method: 'POST',
      body: form,
    });
    expect(both.status).toBe(400);
    expect(((await both.json()) as { message: string }).message).toBe(
      'callback_url is given more than once; give it once, as a query parameter or as a form field',
    );
  });
});

describe('without WEBHOOK_SECRET, and WEBHOOK_URL', () => {
  it('refuses every callback_url when no key can sign the events', async () => {
    const plain = await startApi({ ...(await folders()), WEBHOOK_SECRET: '', WEBHOOK_ALLOW: allowed });
    const answer = await submit(plain.base, `${allowed}/hooks`);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/^callback_url cannot be used: this service has no WEBHOOK_SECRET/);
    plain.api.proc.kill('SIGKILL');
  });

  it('stops start-up for a WEBHOOK_URL that points at a refused address, or without WEBHOOK_SECRET', async () => {
    const refused = spawnNode('src/server.ts', {
      ...(await folders()),
      WEBHOOK_SECRET,
      WEBHOOK_URL: 'https://10.1.1.1/hooks',
    });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toMatch(
      /Invalid configuration: WEBHOOK_URL points at a refused address: 10\.1\.1\.1 is a private/,
    );
    const keyless = spawnNode('src/server.ts', { ...(await folders()), WEBHOOK_URL: 'https://hooks.example.edu/x' });
    expect(await keyless.exited).toBe(1);
    expect(keyless.output()).toMatch(/WEBHOOK_SECRET is required when WEBHOOK_URL is set/);
  });

  it('sends the event of a job submitted without callback_url to WEBHOOK_URL', async () => {
    const receiver: Receiver = await startReceiver('python', WEBHOOK_SECRET);
    try {
      const api = await startApi({
        ...(await folders()),
        WEBHOOK_URL: `${receiver.url}/deployment`,
        WEBHOOK_ALLOW: receiver.url,
      });
      const answer = await submit(api.base);
      expect(answer.status).toBe(202);
      const id = answer.body.id!;
      expect(await receiver.line(id)).toMatch(new RegExp(`job\\.completed ${id}$`));
      const callback = await callbackWhen(api.base, id, (c) => c.state === 'delivered');
      expect(callback.url).toBe(`${receiver.url}/deployment`);
      api.api.proc.kill('SIGKILL');
    } finally {
      await receiver.stop();
    }
  });
});
