/**
 * The real app records every request in the latency histogram served by /metrics, labelled by route pattern
 * (never by a concrete path that could carry an id) and status.
 */
import { Router } from 'express';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opsRouter } from '../../src/api/ops-route.ts';
import { LatencyHistogram, metrics } from '../../src/metrics.ts';
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

  it('counts other spellings of a route (case, trailing slash) as unmatched 404s, never under the route', async () => {
    const total = (text: string, labels: string): number =>
      text
        .split('\n')
        .filter((l) => l.startsWith('sor_http_request_duration_seconds_count{') && l.includes(labels))
        .reduce((sum, l) => sum + Number.parseInt(l.split(' ').pop() ?? '0', 10), 0);
    const before = await (await fetch(`${server.base}/metrics`)).text();
    const spellings = ['/V1/calculate', '/v1/Calculate', '/v1/calculate/'];
    for (const path of spellings) {
      const res = await fetch(`${server.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status, path).toBe(404);
    }
    const after = await (await fetch(`${server.base}/metrics`)).text();
    expect(total(after, 'route="/v1/calculate"')).toBe(total(before, 'route="/v1/calculate"'));
    const unmatched404 = 'method="POST",route="unmatched",status_code="404"';
    expect(total(after, unmatched404)).toBe(total(before, unmatched404) + spellings.length);
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

describe('LatencyHistogram (the bound series of the request histogram)', () => {
  it('prints exactly what prom-client’s own Histogram prints for the same observations, resets included', async () => {
    const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
    const labelNames = ['method', 'route', 'status_code'] as const;
    const labelSets = fc.record({
      method: fc.constantFrom('GET', 'POST'),
      route: fc.constantFrom('/v1/calculate', 'unmatched', '/v1/jobs/:id'),
      status_code: fc.constantFrom('200', '404', '422'),
    });
    const step = fc.oneof(
      {
        weight: 20,
        arbitrary: fc.tuple(
          labelSets,
          fc.oneof(fc.double({ min: 0, max: 400, noNaN: true }), fc.constantFrom(...buckets)),
        ),
      },
      { weight: 1, arbitrary: fc.constant('reset' as const) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const fastRegistry = new Registry();
        const plainRegistry = new Registry();
        const help = 'h';
        const fast = new LatencyHistogram({ name: 'x_seconds', help, labelNames, buckets, registers: [fastRegistry] });
        const plain = new Histogram({ name: 'x_seconds', help, labelNames, buckets, registers: [plainRegistry] });
        const bound = new Map<string, ReturnType<LatencyHistogram['bind']>>();
        for (const s of steps) {
          if (s === 'reset') {
            fast.reset();
            plain.reset();
            continue;
          }
          const [labels, seconds] = s;
          const key = JSON.stringify(labels);
          let series = bound.get(key);
          if (series === undefined) bound.set(key, (series = fast.bind(labels)));
          series.observe(seconds);
          plain.labels(labels).observe(seconds);
        }
        // The same lines, whatever order the series were created in.
        const lines = (text: string) => text.split('\n').sort();
        expect(lines(await fastRegistry.metrics())).toEqual(lines(await plainRegistry.metrics()));
        expect((await fast.get()).values.length).toBe((await plain.get()).values.length);
      }),
      { numRuns: 300 },
    );
  });
});
