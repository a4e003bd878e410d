/**
 * The real app records every request in the latency histogram served by /metrics, labelled by route pattern
 * (never by a concrete path that could carry an id) and status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opsRouter } from '../../src/api/ops-route.ts';
import { postJson, startTestServer, type TestServer } from './helpers.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ extra: { routers: [opsRouter()] } });
});

afterAll(async () => {
  await server.close();
});

describe('GET /metrics on the real app', () => {
  it('counts POST /v1/calculate by route and status', async () => {
    const before = await (await fetch(`${server.base}/metrics`)).text();
    const count = (text: string, status: string): number => {
      const line = text
        .split('\n')
        .find((l) =>
          l.startsWith(
            `sor_http_request_duration_seconds_count{method="POST",route="/v1/calculate",status_code="${status}"}`,
          ),
        );
      return line === undefined ? 0 : Number.parseInt(line.split(' ').pop() ?? '0', 10);
    };
    const bad = await postJson(server.base, { dependency_status: 'dependent' });
    expect(bad.status).toBe(422);
    const after = await (await fetch(`${server.base}/metrics`)).text();
    expect(count(after, '422')).toBe(count(before, '422') + 1);
    expect(after).not.toMatch(/route="unmatched",status_code="422"/);
  });
});
