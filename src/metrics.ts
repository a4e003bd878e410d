/**
 * Prometheus metrics of the service (GET /metrics, see src/api/ops-route.ts). One registry per process; every
 * module that counts something imports `metrics` from here and calls e.g. `metrics.rowsProcessed.inc(n)`.
 *
 * Names follow the Prometheus conventions (`_total` counters, `_seconds` histograms). Label sets are small and
 * bounded: never put a request id, job id or student id in a label.
 */
import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { HistogramConfiguration } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'sor_' });

/** Sources of gauge values that live elsewhere (queue depth from Redis, jobs from the job store). */
export interface GaugeSources {
  /** Chunk jobs by BullMQ state (waiting, active, delayed, failed, ...). */
  queueDepth?: () => Promise<Record<string, number>>;
  /** Async jobs by status (queued, running, completed, failed) as the job store sees them. */
  jobsByStatus?: () => Promise<Record<string, number>>;
}

const sources: GaugeSources = {};

/** Installs (or, with undefined, removes) the functions the queue-depth and jobs gauges read at scrape time. */
export function setGaugeSources(next: GaugeSources): void {
  if ('queueDepth' in next) sources.queueDepth = next.queueDepth;
  if ('jobsByStatus' in next) sources.jobsByStatus = next.jobsByStatus;
}

/** A scrape must never hang on a slow Redis: a source that does not answer in time is skipped. */
async function withinScrapeTime<T>(fn: () => Promise<T>, ms = 1000): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      fn(),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
        timer.unref();
      }),
    ]);
  } catch {
    return undefined;
  } finally {
    if (timer) clearTimeout(timer);
  }
}

type HttpLabel = 'method' | 'route' | 'status_code';
type HistogramValues = Awaited<ReturnType<Histogram<HttpLabel>['get']>>;

/**
 * One bound series of the request-latency histogram: its own bucket counts, sum and count. An observation is a
 * bucket search and three additions; prom-client's bound series validates and hashes its labels on every call
 * (0.48 µs against 0.01 µs per observation, 1.6% of the API's CPU under bench:single).
 */
export class LatencySeries {
  readonly counts: Float64Array;
  readonly labels: Readonly<Record<HttpLabel, string>>;
  private readonly bounds: readonly number[];
  sum = 0;
  count = 0;

  constructor(labels: Readonly<Record<HttpLabel, string>>, bounds: readonly number[]) {
    this.labels = labels;
    this.bounds = bounds;
    this.counts = new Float64Array(bounds.length);
  }

  observe(seconds: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    if (i < bounds.length) this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * prom-client's Histogram whose request series are LatencySeries (`bind`): /metrics and `get()` expose them exactly
 * as prom-client exposes its own (cumulative buckets with `le` first, `+Inf`, then sum and count; a series shows
 * once it has an observation, and `reset()` hides it again), after anything observed through prom-client's own
 * API. test/api/metrics.test.ts compares the two on random observations.
 */
export class LatencyHistogram extends Histogram<HttpLabel> {
  // Plain fields, not #private ones: prom-client's constructor calls reset() before a subclass's fields exist.
  private readonly bounds: readonly number[];
  private readonly seriesList: LatencySeries[] = [];

  constructor(config: HistogramConfiguration<HttpLabel> & { buckets: number[] }) {
    super(config);
    this.bounds = [...config.buckets].sort((a, b) => a - b);
  }

  /** A series for these labels, to keep and observe many times (see durationSeriesOf). */
  bind(labels: Readonly<Record<HttpLabel, string>>): LatencySeries {
    const series = new LatencySeries(labels, this.bounds);
    this.seriesList.push(series);
    return series;
  }

  /**
   * What /metrics prints (the registry reads this; `get()` splays it): prom-client's own series, then ours, each
   * value built as prom-client builds it (`labels` with `le` only, the series' labels as `sharedLabels`).
   */
  async getForPromString(): Promise<HistogramValues> {
    const own = await promClientValues.call(this);
    const bucketName = `${own.name}_bucket`;
    const values: HistogramValues['values'] = [...own.values];
    for (const series of this.seriesList) {
      if (series.count === 0) continue;
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += series.counts[i]!;
        values.push(exported({ le: this.bounds[i]! }, series.labels, cumulative, bucketName, null));
      }
      values.push(exported({ le: '+Inf' }, series.labels, series.count, bucketName, null));
      values.push(exported({}, series.labels, series.sum, `${own.name}_sum`, undefined));
      values.push(exported({}, series.labels, series.count, `${own.name}_count`, undefined));
    }
    return { ...own, values };
  }

  override reset(): void {
    super.reset();
    // Undefined while prom-client's constructor runs (it resets the new metric before this class's fields exist).
    const all = this.seriesList as LatencySeries[] | undefined;
    for (const series of all ?? []) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}

/** prom-client's Histogram.getForPromString (not in its type declarations): the series observed through its API. */
const promClientValues = (Histogram.prototype as unknown as { getForPromString(): Promise<HistogramValues> })
  .getForPromString;

/** One exported value, in the shape prom-client's Histogram builds it (`exemplar` field included). */
function exported(
  labels: Record<string, string | number>,
  sharedLabels: Readonly<Record<HttpLabel, string>>,
  value: number,
  metricName: string,
  exemplar: null | undefined,
): HistogramValues['values'][number] {
  return { labels, sharedLabels, value, metricName, exemplar } as unknown as HistogramValues['values'][number];
}

export const metrics = {
  /** Latency of every HTTP request, by method, matched route (not the raw URL) and status code. */
  httpRequestDuration: new LatencyHistogram({
    name: 'sor_http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method, route and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  }),
  /** Bulk CSV data rows written (one per input row), by row_status. */
  rowsProcessed: new Counter({
    name: 'sor_bulk_rows_processed_total',
    help: 'Bulk data rows processed (each input row yields exactly one output row).',
    registers: [registry],
  }),
  /** Bulk rows whose row_status is error. */
  rowErrors: new Counter({
    name: 'sor_bulk_row_errors_total',
    help: 'Bulk data rows that ended with row_status error.',
    registers: [registry],
  }),
  /** Students processed by the bulk pipeline (every door: HTTP bulk, async jobs, CLI). */
  studentsProcessed: new Counter({
    name: 'sor_bulk_students_processed_total',
    help: 'Students processed by the bulk pipeline.',
    registers: [registry],
  }),
  /** Time to run one chunk, by runner kind (inline, pool, queue) and outcome (ok, fallback, failed). */
  chunkDuration: new Histogram({
    name: 'sor_bulk_chunk_duration_seconds',
    help: 'Time to run one bulk chunk, by runner kind and outcome.',
    labelNames: ['runner', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  }),
  /** Chunks that the queue runner sent to the local pool instead (Redis unreachable, enqueue failed, timeout). */
  queueFallbacks: new Counter({
    name: 'sor_queue_fallback_chunks_total',
    help: 'Chunks the queue runner ran on the local pool instead of the queue, by reason.',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
  /**
   * Chunks refused because their HMAC did not match (src/queue/chunk-signing.ts): stage `payload` on a worker
   * (the job's data was changed in Redis), `output` on the API (a stored output was changed). Each one was
   * recomputed on the API's local pool, never used; any count here means someone writes to the queue's Redis.
   */
  chunkIntegrityFailures: new Counter({
    name: 'sor_queue_chunk_integrity_failures_total',
    help: 'Queue chunk payloads (stage=payload, on workers) or outputs (stage=output, on the API) refused because their HMAC did not match.',
    labelNames: ['stage'] as const,
    registers: [registry],
  }),
  /** Chunk jobs in the BullMQ queue by state, read from Redis at scrape time. */
  queueDepth: new Gauge({
    name: 'sor_queue_jobs',
    help: 'Chunk jobs in the BullMQ queue by state (waiting, active, delayed, failed, ...).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const fn = sources.queueDepth;
      if (!fn) return;
      const counts = await withinScrapeTime(fn);
      if (!counts) return;
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  }),
  /** Async jobs (POST /v1/jobs) by status, read from the job store at scrape time. */
  jobsByStatus: new Gauge({
    name: 'sor_async_jobs',
    help: 'Async bulk jobs by status (queued, running, completed, failed) known to the job store.',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const fn = sources.jobsByStatus;
      if (!fn) return;
      const counts = await withinScrapeTime(fn);
      if (!counts) return;
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  }),
  /** Async jobs that reached a status, counted by this process (submitted = queued). */
  jobTransitions: new Counter({
    name: 'sor_async_job_transitions_total',
    help: 'Async bulk jobs that reached a status in this process.',
    labelNames: ['status'] as const,
    registers: [registry],
  }),
  /** Webhook delivery attempts made by this process (src/webhooks/): delivered, failed (retried), given_up. */
  webhookAttempts: new Counter({
    name: 'sor_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome: delivered, failed (to be retried), given_up (the last).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
};

type DurationSeries = LatencySeries;

/** Bound histogram series by route label, method and status code: built once per combination. */
const durationSeries = new Map<string, Map<string, Map<number, DurationSeries>>>();
/** The route label of a matched Express route object, by the base URL of the router it is mounted on. */
const routeLabels = new WeakMap<object, Map<string, string>>();

/**
 * The request-latency series of (route label, method, status), built on first use. The fast lane of
 * src/api/front-door.ts observes through it directly; Express requests through httpMetricsMiddleware.
 */
export function durationSeriesOf(route: string, method: string, status: number): DurationSeries {
  let byMethod = durationSeries.get(route);
  if (byMethod === undefined) durationSeries.set(route, (byMethod = new Map()));
  let byStatus = byMethod.get(method);
  if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
  let series = byStatus.get(status);
  if (series === undefined) {
    series = metrics.httpRequestDuration.bind({ method, route, status_code: String(status) });
    byStatus.set(status, series);
  }
  return series;
}

/**
 * The template of the Express route that answered `req` (`/v1/jobs/:id/result`, mount path included), or
 * undefined when no route matched (a 404, a guard's refusal, a static file). Also the request log's path
 * (src/api/http-log.ts).
 */
export function routeTemplateOf(req: Request): string | undefined {
  const matched = req.route as { path?: unknown } | undefined;
  if (matched === undefined || typeof matched.path !== 'string') return undefined;
  let byBase = routeLabels.get(matched);
  if (byBase === undefined) routeLabels.set(matched, (byBase = new Map()));
  let label = byBase.get(req.baseUrl);
  if (label === undefined) byBase.set(req.baseUrl, (label = `${req.baseUrl}${matched.path}`));
  return label;
}

function routeLabelOf(req: Request): string {
  return routeTemplateOf(req) ?? 'unmatched';
}

/**
 * Express middleware that records `sor_http_request_duration_seconds` for every request. Mount it first in the
 * app so it sees every response; the route label is the matched Express route pattern (bounded), or
 * "unmatched" for 404s.
 *
 * On the hot path: one `performance.now()` at each end and one listener; the label strings and the histogram's
 * bound series are built once per (route, method, status) and reused (the method is one of the few that Node's
 * HTTP parser accepts, so the combinations stay bounded), instead of a timer closure, label objects, a route
 * string and a status string per request.
 */
export function httpMetricsMiddleware() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.on('finish', () => {
      const seconds = (performance.now() - started) / 1000;
      durationSeriesOf(routeLabelOf(req), req.method, res.statusCode).observe(seconds);
    });
    next();
  };
}
