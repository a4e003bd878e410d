/**
 * The real app records every request in the latency histogram served by /metrics, labelled by route pattern
 * (never by a concrete path that could carry an id) and status.
 */
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opsRouter } from '../../src/api/ops-route.ts';
import { metrics } from '../../src/metrics.ts';
import { postJson, startTestServer, type TestServer } from './helpers.ts';

let server: TestServer;

beforeAll(async () => {
  // A router mounted under a base path, with a route parameter: its label is the pattern, base path included.
  const inner = Router();
  inner.get('/things/:id', (_req, res) => void res.status(204).end());
  const mounted = Router();
  mounted.use('/v9', inner);
  server = await startTestServer({ extra: { routers: [opsRouter(), mounted] } });
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

/** The histogram's buckets, as /metrics has always published them (dashboards and alerts depend on them). */
const BUCKETS = [
  '0.001',
  '0.0025',
  '0.005',
  '0.01',
  '0.025',
  '0.05',
  '0.1',
  '0.25',
  '0.5',
  '1',
  '2.5',
  '5',
  '10',
  '30',
  '60',
  '300',
  '+Inf',
];
const NAME = 'sor_http_request_duration_seconds';

/** The lines of one series (bucket lines, then sum and count), in the order /metrics prints them. */
function seriesLines(text: string, labels: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${NAME}_`) && l.includes(labels));
}

async function scrape(): Promise<string> {
  return (await fetch(`${server.base}/metrics`)).text();
}

describe('sor_http_request_duration_seconds keeps its exposition', () => {
  it('one series per method, route pattern and status: every bucket, then sum and count', async () => {
    metrics.httpRequestDuration.reset();
    for (const id of ['1', '2', '3']) expect((await fetch(`${server.base}/v9/things/${id}`)).status).toBe(204);
    expect((await fetch(`${server.base}/no/such/path`)).status).toBe(404);
    const text = await scrape();

    expect(text).toContain(`# HELP ${NAME} HTTP request latency in seconds, by method, route and status code.`);
    expect(text).toContain(`# TYPE ${NAME} histogram`);
    const labels = 'method="GET",route="/v9/things/:id",status_code="204"';
    const lines = seriesLines(text, labels);
    const expectedNames = [
      ...BUCKETS.map((le) => `${NAME}_bucket{le="${le}",${labels}}`),
      `${NAME}_sum{${labels}}`,
      `${NAME}_count{${labels}}`,
    ];
    expect(lines.map((l) => l.slice(0, l.lastIndexOf(' ')))).toEqual(expectedNames);
    const values = lines.map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
    // Cumulative buckets, +Inf equal to the count: three requests.
    for (let i = 1; i < BUCKETS.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]!);
    expect(values[BUCKETS.length - 1]).toBe(3);
    expect(values.at(-1)).toBe(3);
    expect(values.at(-2)).toBeGreaterThan(0);
    // No concrete path in a label; a 404 is "unmatched".
    expect(text).not.toMatch(/route="\/v9\/things\/\d/);
    expect(seriesLines(text, 'method="GET",route="unmatched",status_code="404"}').at(-1)).toBe(
      `${NAME}_count{method="GET",route="unmatched",status_code="404"} 1`,
    );
  });

  it('keeps counting after the histogram is reset (series are reused across requests, not stale)', async () => {
    await fetch(`${server.base}/v9/things/a`);
    metrics.httpRequestDuration.reset();
    expect(seriesLines(await scrape(), 'route="/v9/things/:id"')).toEqual([]);
    await fetch(`${server.base}/v9/things/b`);
    await fetch(`${server.base}/v9/things/c`);
    expect(seriesLines(await scrape(), 'method="GET",route="/v9/things/:id",status_code="204"}').at(-1)).toBe(
      `${NAME}_count{method="GET",route="/v9/things/:id",status_code="204"} 2`,
    );
  });
});
