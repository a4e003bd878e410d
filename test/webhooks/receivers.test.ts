/**
 * Webhook receivers written only from docs/webhooks.md (its Python receiver run with python3, its Node receiver
 * with node, as printed), on allow-listed loopback ports, against the real service (src/server.ts, no Redis):
 * they verify every delivery of jobs submitted with callback_url as a query parameter and as a form field; a
 * cancelled job says job.cancelled; a receiver that fails twice gets the third attempt of the same event (the
 * backoff shortened with WEBHOOK_RETRY_BASE_MS), each time the same event, as the OpenAPI document describes it;
 * a receiver holding another key refuses every delivery, and
 * the job shows each refused attempt. Neither the key nor a job id nor the callback's query reaches the log.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll } from '../support/processes.ts';
import { makeCsv } from '../queue/csv-gen.ts';
import { WebhookEventSchema } from '../../src/api/openapi/webhooks-entry.ts';
import { startReceiver, type Receiver } from './receivers.ts';
import {
  callbackWhen,
  folders,
  removeFolders,
  startApi,
  submit,
  submitForm,
  WEBHOOK_SECRET,
  type Api,
} from './servers.ts';

const BASE_MS = 400;

let python: Receiver;
let node: Receiver;
let wrongKey: Receiver;
let flakyTarget: Receiver;
/** In front of flakyTarget: answers 503 to the first two requests, then passes them on. */
let flaky: Server;
let flakyUrl: string;
const flakyArrivals: number[] = [];
const flakyBodies: string[] = [];
let service: Api;
const jobIds: string[] = [];

beforeAll(async () => {
  [python, node, wrongKey, flakyTarget] = await Promise.all([
    startReceiver('python', WEBHOOK_SECRET),
    startReceiver('node', WEBHOOK_SECRET),
    startReceiver('python', 'another-key-that-is-not-the-service-0123456789'),
    startReceiver('node', WEBHOOK_SECRET),
  ]);
  flaky = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      flakyArrivals.push(Date.now());
      flakyBodies.push(Buffer.concat(chunks).toString('utf8'));
      if (flakyArrivals.length <= 2) {
        res.writeHead(503).end();
        return;
      }
      fetch(`${flakyTarget.url}${req.url ?? '/'}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Sor-Signature': String(req.headers['sor-signature']) },
        body: Buffer.concat(chunks),
      }).then(
        (answer) => res.writeHead(answer.status).end(),
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
  flakyUrl = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
  service = await startApi({
    ...(await folders()),
    WEBHOOK_ALLOW: [python.url, node.url, wrongKey.url, flakyUrl].join(','),
    WEBHOOK_RETRY_BASE_MS: String(BASE_MS),
  });
});

afterAll(async () => {
  // Nothing secret in the service's log: not the key, not a job id (the only key to a job's results), not a
  // callback's query.
  const log = service?.api.output() ?? '';
  expect(log).not.toContain(WEBHOOK_SECRET);
  expect(log).not.toContain('s3cret-query');
  for (const id of jobIds) expect(log).not.toContain(id);
  await killAll();
  await Promise.all([python, node, wrongKey, flakyTarget].map((r) => r?.stop()));
  flaky?.closeAllConnections();
  await new Promise<void>((resolve) => (flaky ? flaky.close(() => resolve()) : resolve()));
  await removeFolders();
});

function accepted(answer: { status: number; body: { id?: string } }): string {
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  jobIds.push(answer.body.id!);
  return answer.body.id!;
}

describe('receivers written from docs/webhooks.md, against the real service', () => {
  it('the Python receiver verifies the event of a job submitted with callback_url as a query parameter', async () => {
    const id = accepted(await submit(service.base, `${python.url}/sor/hooks?key=s3cret-query`));
    const line = await python.line(id);
    expect(line).toMatch(new RegExp(`^evt_[0-9a-f]{24} job\\.completed ${id}$`));
    const callback = await callbackWhen(service.base, id, (c) => c.state === 'delivered');
    expect(callback.url).toBe(`${python.url}/sor/hooks?…`);
    expect(callback.next_attempt_at).toBeNull();
    expect(callback.attempts).toEqual([{ at: expect.any(String), event: 'job.completed', status: 204, error: null }]);
  });

  it('the Node receiver verifies the event of a job submitted with callback_url as a form field after the file', async () => {
    const id = accepted(await submitForm(service.base, `${node.url}/hooks`));
    expect(await node.line(id)).toMatch(new RegExp(`^evt_[0-9a-f]{24} job\\.completed ${id}$`));
    await callbackWhen(service.base, id, (c) => c.state === 'delivered');
  });

  it('a cancelled job sends job.cancelled', async () => {
    const id = accepted(await submit(service.base, `${node.url}/hooks`, makeCsv(60_000, 3)));
    const cancel = await fetch(`${service.base}/v1/jobs/${id}`, { method: 'DELETE' });
    expect(cancel.status).toBe(204);
    expect(await node.line(id)).toMatch(new RegExp(`^evt_[0-9a-f]{24} job\\.cancelled ${id}$`));
  });

  it('a receiver that fails twice gets the third attempt, of the same event, after the backoff', async () => {
    const id = accepted(await submit(service.base, `${flakyUrl}/hooks`));
    expect(await flakyTarget.line(id)).toMatch(new RegExp(`job\\.completed ${id}$`));
    const callback = await callbackWhen(service.base, id, (c) => c.state === 'delivered');
    expect(callback.attempts.map((a) => [a.status, a.error])).toEqual([
      [503, 'answered 503, not a 2xx'],
      [503, 'answered 503, not a 2xx'],
      [204, null],
    ]);
    expect(flakyArrivals).toHaveLength(3);
    // The same event each time, as the OpenAPI document describes it (the jobEnded webhook).
    expect(new Set(flakyBodies).size).toBe(1);
    const event = WebhookEventSchema.parse(JSON.parse(flakyBodies[0]!));
    expect(event).toMatchObject({ type: 'job.completed', data: { id, status: 'completed', object: 'job' } });
    // Each wait is drawn between half and all of BASE_MS × 2^(n−1).
    expect(flakyArrivals[1]! - flakyArrivals[0]!).toBeGreaterThanOrEqual(BASE_MS / 2 - 50);
    expect(flakyArrivals[2]! - flakyArrivals[1]!).toBeGreaterThanOrEqual(BASE_MS - 50);
  });

  it('a receiver holding another key refuses every delivery; the job shows the refusals and keeps trying', async () => {
    const id = accepted(await submit(service.base, `${wrongKey.url}/hooks`));
    const callback = await callbackWhen(service.base, id, (c) => c.attempts.length >= 2);
    expect(callback.state).toBe('pending');
    expect(callback.attempts.every((a) => a.status === 400 && a.error === 'answered 400, not a 2xx')).toBe(true);
    expect(wrongKey.lines()).toEqual([]);
    expect(wrongKey.errors()).toMatch(/refused: bad or old signature/);
  });
});
