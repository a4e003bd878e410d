/**
 * Environment → typed configuration, validated once at start-up and frozen. A bad value stops start-up with a
 * one-line message naming the variable (ConfigError). Tests build configs with `loadConfig({...})` instead of
 * touching process.env.
 */
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { redactUrl } from './redact.ts';
import { parsePolicyItems, resolvePolicy } from './domain/policy.ts';

const MiB = 1024 * 1024;

const REDIS_URL_MESSAGE =
  'must be a redis:// or rediss:// URL (percent-encode @ # / ? and spaces in the user name and password)';

const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform((s) => Number.parseInt(s, 10))
    .pipe(z.number().int().min(min).max(max));

/** A key prefix in Redis: every key of the service (queue, jobs, tokens, rate counters) starts with it and `:`. */
const prefix = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 _ . : -');

const DEFAULT_REDIS_PREFIX = 'sor';

/** Names still read in place of their successor, which wins when both are set. */
const DEPRECATED_NAMES: Readonly<Record<string, string>> = { BULLMQ_PREFIX: 'REDIS_PREFIX' };

const EnvSchema = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** JSON body limit for POST /v1/calculate. */
  MAX_BODY_BYTES: int(1024, 64 * MiB).default(MiB),
  /** Students per chunk handed to a runner. */
  BULK_CHUNK_STUDENTS: int(1, 100_000).default(1000),
  /** Chunks that may be in flight (running or waiting to be written) at once, per bulk request. */
  BULK_MAX_INFLIGHT_CHUNKS: int(1, 1024).default(8),
  /** Files with at most this many data rows run inline in the request's own thread. */
  BULK_SYNC_MAX_ROWS: int(0, 10_000_000).default(2000),
  /** Worker threads of the piscina pool (API process and each queue worker). */
  BULK_THREADS: int(1, 256).default(Math.max(1, availableParallelism())),
  BULK_MAX_BYTES: int(1024, 64 * 1024 * MiB).default(512 * MiB),
  BULK_MAX_ROWS: int(1, 100_000_000).default(2_000_000),
  /** Longest bulk CSV cell; a longer cell makes its row (so its student) an error, echoed cut to this length. */
  BULK_MAX_CELL_CHARS: int(16, MiB).default(1000),
  /** Longest bulk CSV row (record) the reader holds; a longer physical line is one error row, never kept whole. */
  BULK_MAX_ROW_CHARS: int(256, 4 * MiB).default(64 * 1024),
  /** Characters of cells one student's rows may hold; a student over it is an error row set, never calculated. */
  BULK_MAX_STUDENT_CHARS: int(1024, 4 * MiB).default(256 * 1024),
  /** When set, bulk chunks go through BullMQ on this Redis. */
  REDIS_URL: z
    .string()
    .trim()
    .regex(/^rediss?:\/\/\S+$/, REDIS_URL_MESSAGE)
    .refine(wellFormedUrl, REDIS_URL_MESSAGE)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  REDIS_PREFIX: prefix.optional(),
  BULLMQ_PREFIX: prefix.optional(),
  BULK_QUEUE_FALLBACK: z.enum(['local', 'fail']).default('local'),
  /** How long the API waits for one queued chunk before it counts as failed (then retried locally or errored). */
  QUEUE_CHUNK_TIMEOUT_MS: int(1000, 3_600_000).default(120_000),
  JOB_TTL_SECONDS: int(1, 365 * 24 * 3600).default(86_400),
  /**
   * Async job results without Redis: gzip files under JOBS_DIR (created 0700, files 0600; default
   * `<os tmpdir>/sor-jobs-results`), at most JOBS_MAX_DISK_BYTES of them per API process. With Redis, at most
   * JOBS_MAX_REDIS_BYTES of compressed results (and never beyond the Redis maxmemory headroom).
   */
  JOBS_DIR: z.string().trim().min(1).optional(),
  JOBS_MAX_DISK_BYTES: int(MiB, 1024 * 1024 * MiB).default(2048 * MiB),
  JOBS_MAX_REDIS_BYTES: int(MiB, 1024 * 1024 * MiB).default(256 * MiB),
  /** Turns /admin/queues (bull-board) on, behind this token; unset, the dashboard is off. */
  ADMIN_TOKEN: z.string().min(1).optional(),
  /**
   * When set, /admin/queues is served on this port only (on HOST), not on PORT: deployments publish PORT and
   * leave this one unpublished. 0 picks a free port (tests).
   */
  ADMIN_PORT: int(0, 65535).optional(),
  /** The dashboard only shows the queue unless this is `false` (then it may retry, clean, pause, edit jobs). */
  ADMIN_READ_ONLY: z
    .enum(['true', 'false'], 'must be true or false')
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * Key of the HMAC-SHA256 over every chunk payload and chunk output that passes through Redis (required with
   * REDIS_URL; the same on the API and every worker): a chunk changed in Redis is rejected and recomputed.
   */
  QUEUE_SIGNING_KEY: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional(),
  /**
   * Queue worker (`npm run worker`) tuning, see src/queue/settings.ts: a job's lock lasts QUEUE_LOCK_DURATION_MS
   * (renewed every half of it); every QUEUE_STALLED_INTERVAL_MS a live worker moves jobs with expired locks (their
   * worker died) back to waiting; a job that stalls more than QUEUE_MAX_STALLED_COUNT times fails.
   */
  QUEUE_LOCK_DURATION_MS: int(1000, 600_000).default(10_000),
  QUEUE_STALLED_INTERVAL_MS: int(500, 600_000).default(5_000),
  QUEUE_MAX_STALLED_COUNT: int(0, 100).default(2),
  /**
   * Threads of a queue worker's pool (unset: BULK_THREADS). 0: no pool, each chunk is computed on the worker's
   * own thread, one at a time — for one worker process per core, which saves handing every chunk to a thread and
   * back (bench:queue: 0.92× of embedded with 2 such workers against 0.83× with 1 pool thread each).
   */
  QUEUE_WORKER_THREADS: int(0, 256).optional(),
  /** Jobs a worker takes beyond its threads (concurrency = its threads, at least 1, + prefetch). */
  QUEUE_WORKER_PREFETCH: int(0, 64).default(0),
  /** When set, the worker writes a timestamp there every 10 s (liveness probe for a process without HTTP). */
  QUEUE_WORKER_HEARTBEAT_FILE: z.string().trim().min(1).optional(),
  /**
   * On SIGTERM a worker lets its in-flight chunks finish for at most this long (they cannot store their output
   * while Redis is down), then exits 1; other workers recover unfinished chunks as stalled jobs.
   */
  QUEUE_WORKER_SHUTDOWN_GRACE_MS: int(100, 600_000).default(25_000),
  /** Private folder (created 0700) where bulk and job uploads are spooled (files 0600) before they are answered. */
  SPOOL_DIR: z.string().trim().min(1).default(join(tmpdir(), 'sor-spool')),
  /** Bulk requests computing at once per process; beyond it 503 service_busy with Retry-After (README, Uploads). */
  BULK_MAX_CONCURRENT: int(1, 256).default(4),
  /**
   * The small-file lane: up to BULK_SMALL_MAX_CONCURRENT more bulk files at once, for files of at most
   * BULK_SMALL_FILE_ROWS data rows only, so large files holding every slot never starve small ones (0: no lane).
   */
  BULK_SMALL_MAX_CONCURRENT: int(0, 256).default(4),
  BULK_SMALL_FILE_ROWS: int(1, 10_000_000).default(2000),
  /** A bulk response whose client accepts none of its bytes for this long is aborted and its slot freed. */
  BULK_STALL_TIMEOUT_MS: int(100, 3_600_000).default(30_000),
  /** Uploads (bulk and jobs) being received into the spool at once per process; beyond it 503 service_busy. */
  UPLOAD_MAX_SPOOLING: int(1, 65_536).default(32),
  /**
   * An upload body must arrive at UPLOAD_MIN_BYTES_PER_SEC or faster, counted over each UPLOAD_RATE_WINDOW_MS
   * from its start (the first window is its grace period); slower, it is answered 408 and closed (0: no minimum).
   */
  UPLOAD_MIN_BYTES_PER_SEC: int(0, 1024 * MiB).default(1024),
  UPLOAD_RATE_WINDOW_MS: int(100, 3_600_000).default(10_000),
  /** After an early 400/413/415, at most this many more body bytes are read (so the client reads the answer). */
  BULK_DRAIN_MAX_BYTES: int(0, 64 * 1024 * MiB).default(64 * MiB),
  /** A connection with no bytes moving either way for this long is closed (replaces a fixed request timeout). */
  HTTP_IDLE_TIMEOUT_MS: int(1000, 3_600_000).default(120_000),
  /**
   * On SIGTERM, requests in flight get this long to finish; then one not yet answered (an upload still arriving)
   * gets 503 with Connection: close, and any other connection is closed (Kubernetes' default grace is 30 s).
   */
  SHUTDOWN_GRACE_MS: int(100, 600_000).default(25_000),
  /**
   * The deployment's default school policy (rules.md §10, src/domain/policy.ts): comma-separated `option=value`
   * items, e.g. `proration_fraction=decimal_rounded,remainder_placement=last_term`; unset or empty, the service's
   * readings. A request's `policy` (a file's `policy.<option>` parameters) overrides it option by option.
   */
  SOR_POLICY: z
    .string()
    .default('')
    .transform((text, ctx) => {
      const parsed = parsePolicyItems(text.split(','));
      if (parsed.ok) return resolvePolicy(parsed.choices);
      const first = parsed.errors[0]!;
      ctx.addIssue({
        code: 'custom',
        message: `(option=value items separated by commas): ${first.option.slice(0, 60)} ${first.message}`,
      });
      return z.NEVER;
    }),
  /** Access control (README "Access control"): `required` makes every /v1/* call but the OpenAPI document need a token. */
  AUTH_MODE: z.enum(['off', 'required']).default('off'),
  /** The environment of this service's tokens; a token with the other prefix is invalid_token. */
  AUTH_TOKEN_PREFIX: z.enum(['svc_live_', 'svc_test_']).default('svc_live_'),
  /** Without REDIS_URL: the token file (hashes only; written atomically, 0600). */
  AUTH_TOKENS_FILE: z.string().trim().min(1).default(join('data', 'auth-tokens.json')),
  /**
   * Default rate limit, `N/sec|min|hour|day`: per client address when AUTH_MODE=off (unset: no limit), and for
   * tokens created without their own --rate when AUTH_MODE=required.
   */
  RATE_LIMIT: z
    .string()
    .trim()
    .regex(/^[1-9]\d{0,8}\/(?:sec|min|hour|day)$/, 'must be N/sec, N/min, N/hour or N/day (e.g. 600/min)')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /**
   * Browser origins allowed to call the API (CORS, src/api/cors.ts): a comma list of origins such as
   * `https://sis.example.edu`, or `*`; unset or empty, no CORS headers are sent.
   */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter((o) => o !== ''),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^(\*|https?:\/\/[^\s/?#,]+)$/,
            'must be a comma list of origins (scheme://host[:port], no path) or *',
          ),
      ),
    ),
});

/**
 * A URL ioredis reads as written: one `@` at most, no fragment or space, and the WHATWG parser finds a host.
 * (An unencoded `#` or `/` in a password makes a parser read part of the password as the host.)
 */
function wellFormedUrl(url: string): boolean {
  if ((url.match(/@/g) ?? []).length > 1 || url.includes('#')) return false;
  try {
    return new URL(url).hostname.length > 0;
  } catch {
    return false;
  }
}

/** Variables whose value is never printed, and REDIS_URL, printed only redacted (src/redact.ts). */
const SECRET_VARIABLES = new Set(['ADMIN_TOKEN', 'QUEUE_SIGNING_KEY']);

function shownValue(name: string, value: string | undefined): string {
  if (value === undefined) return '""';
  if (SECRET_VARIABLES.has(name)) return `a value of ${value.length} characters, not shown`;
  if (name === 'REDIS_URL') return redactUrl(value);
  return JSON.stringify(value);
}

type ParsedEnv = z.output<typeof EnvSchema>;

/** The configuration: the variables above with defaults applied, deprecated names folded into their successors. */
export type Config = Readonly<Omit<ParsedEnv, 'REDIS_PREFIX' | 'BULLMQ_PREFIX'> & { REDIS_PREFIX: string }>;

/**
 * One warning per deprecated variable set in `env` (start-up logs them): its successor's name, and which value
 * is used when both are set.
 */
export function deprecationWarnings(env: Record<string, string | undefined> = process.env): string[] {
  const warnings: string[] = [];
  for (const [old, current] of Object.entries(DEPRECATED_NAMES)) {
    if (env[old] === undefined) continue;
    warnings.push(
      env[current] === undefined
        ? `config: ${old} is deprecated, use ${current} (its value is used for now)`
        : `config: ${old} is deprecated and ignored: ${current} is set too and wins; remove ${old}`,
    );
  }
  return warnings;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reads only the variables above; unknown variables are ignored (the environment holds many others). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const value = env[key];
    if (value !== undefined) picked[key] = value;
  }
  const parsed = EnvSchema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(
      `Invalid configuration: ${name} ${issue?.message ?? 'is invalid'} (got ${shownValue(name, picked[name])})`,
    );
  }
  if (parsed.data.REDIS_URL && !parsed.data.QUEUE_SIGNING_KEY) {
    throw new ConfigError(
      'Invalid configuration: QUEUE_SIGNING_KEY is required when REDIS_URL is set (at least 32 characters, the ' +
        'same on the API and every worker; generate one with: openssl rand -hex 32)',
    );
  }
  const { REDIS_PREFIX, BULLMQ_PREFIX, ...rest } = parsed.data;
  return Object.freeze({ ...rest, REDIS_PREFIX: REDIS_PREFIX ?? BULLMQ_PREFIX ?? DEFAULT_REDIS_PREFIX });
}
