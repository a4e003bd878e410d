/**
 * The environment variables of the service: how each is validated (a bad value stops start-up naming it,
 * src/config.ts) and, in its metadata, how it is documented (`doc`, src/config/variable-doc.ts).
 */
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { parsePolicyItems, resolvePolicy } from '../domain/policy.ts';
import { commaList, int, MiB } from './env-types.ts';
import { WEBHOOK_VARIABLES } from './env-webhooks.ts';
import { doc } from './variable-doc.ts';

const REDIS_URL_MESSAGE =
  'must be a redis:// or rediss:// URL (percent-encode @ # / ? and spaces in the user name and password)';

/** A key prefix in Redis: every key of the service (queue, jobs, tokens, rate counters) starts with it and `:`. */
const prefix = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 _ . : -');

export const DEFAULT_REDIS_PREFIX = 'sor';

/** Every variable the service reads, validated and documented; unknown variables are ignored. */
export const EnvSchema = z.object({
  PORT: doc(int(0, 65535).default(8080), { section: 'Service', description: 'The HTTP port of the API.' }),
  HOST: doc(z.string().trim().min(1).default('0.0.0.0'), {
    section: 'Service',
    description: 'The address the API (and the dashboard on ADMIN_PORT) listens on.',
  }),
  LOG_LEVEL: doc(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), {
    section: 'Service',
    description: 'The least severe log level written (JSON lines on stdout).',
  }),
  MAX_BODY_BYTES: doc(int(1024, 64 * MiB).default(MiB), {
    section: 'Service',
    description: 'The largest JSON body POST /v1/calculate accepts; a larger one is answered 413.',
  }),
  MCP_HTTP: doc(
    z
      .enum(['on', 'off'], 'must be on or off')
      .default('off')
      .transform((v) => v === 'on'),
    {
      section: 'Service',
      default: '`off`',
      description:
        '`on`: the MCP server for AI assistants at `POST /mcp` (streamable HTTP), behind the same access control and rate limits as /v1 (docs/mcp.md). Off: /mcp is 404. `sor mcp` serves it on stdio whatever this says.',
    },
  ),
  BULK_THREADS: doc(int(1, 256).default(Math.max(1, availableParallelism())), {
    section: 'Service',
    default: 'the number of CPUs',
    description: 'Worker threads of the calculation pool (the API process, and each queue worker by default).',
  }),
  BULK_MAX_BYTES: doc(int(1024, 64 * 1024 * MiB).default(512 * MiB), {
    section: 'Bulk files',
    description: 'The largest bulk or job file one request accepts (413 beyond).',
  }),
  BULK_MAX_ROWS: doc(int(1, 100_000_000).default(2_000_000), {
    section: 'Bulk files',
    description: 'The most data rows one bulk or job file may hold (413 beyond).',
  }),
  BULK_MAX_CONCURRENT: doc(int(1, 256).default(4), {
    section: 'Bulk files',
    description: 'Bulk files computed at once per process; beyond it 503 service_busy with Retry-After.',
  }),
  BULK_SMALL_MAX_CONCURRENT: doc(int(0, 256).default(4), {
    section: 'Bulk files',
    description:
      'The small-file lane: this many more bulk files at once, for files of at most BULK_SMALL_FILE_ROWS rows, so large files holding every slot never starve small ones (0: no lane).',
  }),
  BULK_SMALL_FILE_ROWS: doc(int(1, 10_000_000).default(2000), {
    section: 'Bulk files',
    description: 'The most data rows of a file that may use the small-file lane.',
  }),
  BULK_STALL_TIMEOUT_MS: doc(int(100, 3_600_000).default(30_000), {
    section: 'Bulk files',
    description: 'A bulk response whose client takes none of its bytes for this long is aborted and its slot freed.',
  }),
  BULK_CHUNK_STUDENTS: doc(int(1, 100_000).default(1000), {
    section: 'Bulk files',
    advanced: true,
    description: 'Students per chunk handed to a runner (the pool, or the queue).',
  }),
  BULK_MAX_INFLIGHT_CHUNKS: doc(int(1, 1024).default(8), {
    section: 'Bulk files',
    advanced: true,
    description:
      'Chunks of one bulk request in flight (running or waiting to be written) at once; on the local pool at most twice its threads.',
  }),
  BULK_SYNC_MAX_ROWS: doc(int(0, 10_000_000).default(2000), {
    section: 'Bulk files',
    advanced: true,
    description: "Files with at most this many data rows are computed inline, on the request's own thread.",
  }),
  BULK_MAX_CELL_CHARS: doc(int(16, MiB).default(1000), {
    section: 'Bulk files',
    advanced: true,
    description: 'The longest CSV cell; a longer one makes its student an error row, echoed cut to this length.',
  }),
  BULK_MAX_ROW_CHARS: doc(int(256, 4 * MiB).default(64 * 1024), {
    section: 'Bulk files',
    advanced: true,
    description: 'The longest CSV record the reader holds; a longer physical line is one error row, never kept whole.',
  }),
  BULK_MAX_STUDENT_CHARS: doc(int(1024, 4 * MiB).default(256 * 1024), {
    section: 'Bulk files',
    advanced: true,
    description:
      "Characters of cells one student's rows may hold; a student over it is an error row set, never computed.",
  }),
  SPOOL_DIR: doc(z.string().trim().min(1).default(join(tmpdir(), 'sor-spool')), {
    section: 'Uploads and connections',
    default: '`<os tmpdir>/sor-spool`',
    description:
      'Private folder (created 0700) where bulk and job uploads are spooled (files 0600) before they are answered.',
  }),
  UPLOAD_MAX_SPOOLING: doc(int(1, 65_536).default(32), {
    section: 'Uploads and connections',
    description: 'Uploads (bulk and jobs) received into the spool at once per process; beyond it 503 service_busy.',
  }),
  UPLOAD_MIN_BYTES_PER_SEC: doc(int(0, 1024 * MiB).default(1024), {
    section: 'Uploads and connections',
    description:
      'An upload must arrive at this rate or faster over each UPLOAD_RATE_WINDOW_MS from its start (the first window is its grace period); slower, it is answered 408 and closed (0: no minimum).',
  }),
  UPLOAD_RATE_WINDOW_MS: doc(int(100, 3_600_000).default(10_000), {
    section: 'Uploads and connections',
    advanced: true,
    description: 'The window over which UPLOAD_MIN_BYTES_PER_SEC is counted.',
  }),
  BULK_DRAIN_MAX_BYTES: doc(int(0, 64 * 1024 * MiB).default(64 * MiB), {
    section: 'Uploads and connections',
    advanced: true,
    description:
      'After an early 400, 413 or 415, at most this many more body bytes are read, so the client reads the answer.',
  }),
  HTTP_IDLE_TIMEOUT_MS: doc(int(1000, 3_600_000).default(120_000), {
    section: 'Uploads and connections',
    description: 'A connection with no bytes moving either way for this long is closed.',
  }),
  SHUTDOWN_GRACE_MS: doc(int(100, 600_000).default(25_000), {
    section: 'Uploads and connections',
    description:
      "On SIGTERM, requests in flight get this long to finish; then one not yet answered gets 503 with Connection: close, and other connections are closed (Kubernetes' default grace is 30 s).",
  }),
  REDIS_URL: doc(
    z
      .string()
      .trim()
      .regex(/^rediss?:\/\/\S+$/, REDIS_URL_MESSAGE)
      .refine(wellFormedUrl, REDIS_URL_MESSAGE)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    {
      section: 'Redis and the queue',
      default: 'unset: no Redis',
      description:
        'A redis:// or rediss:// URL (percent-encode @ # / ? in the password). Set, bulk chunks go through the BullMQ queue to the workers, and async jobs, access tokens and rate counters live in Redis; unset, everything runs in the process. Logged only redacted.',
    },
  ),
  REDIS_PREFIX: doc(prefix.optional(), {
    section: 'Redis and the queue',
    default: `\`${DEFAULT_REDIS_PREFIX}\``,
    description:
      'Every key the service keeps in Redis (queue, jobs, tokens, rate counters) starts with it and `:`; the same on the API and every worker.',
  }),
  REDIS_MEMORY_READY_PCT: doc(int(1, 100).default(90), {
    section: 'Redis and the queue',
    description:
      "/readyz fails (check redis-memory) once Redis's used memory reaches this percentage of its maxmemory, before a full Redis refuses every write.",
  }),
  BULLMQ_PREFIX: doc(prefix.optional(), {
    section: 'Redis and the queue',
    default: 'unset',
    replacedBy: 'REDIS_PREFIX',
    description: 'The former name of REDIS_PREFIX, still read (with a warning at start-up) when REDIS_PREFIX is unset.',
  }),
  QUEUE_SIGNING_KEY: doc(z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional(), {
    section: 'Redis and the queue',
    default: 'unset (required with REDIS_URL)',
    description:
      'Key of the HMAC-SHA256 over every chunk payload and output that passes through Redis (at least 32 characters; the same on the API and every worker): a chunk changed in Redis is rejected and recomputed. Never logged.',
  }),
  BULK_QUEUE_FALLBACK: doc(z.enum(['local', 'fail']).default('local'), {
    section: 'Redis and the queue',
    description:
      "What happens to a chunk the queue cannot run (Redis unreachable, timeout, integrity failure): `local` runs it on the API's pool, `fail` makes its students error rows.",
  }),
  QUEUE_CHUNK_TIMEOUT_MS: doc(int(1000, 3_600_000).default(120_000), {
    section: 'Redis and the queue',
    description: 'How long the API waits for one queued chunk before it counts as failed (then BULK_QUEUE_FALLBACK).',
  }),
  QUEUE_WORKER_THREADS: doc(int(0, 256).optional(), {
    section: 'Queue workers',
    default: 'BULK_THREADS',
    description:
      "Threads of a queue worker's pool. 0: no pool, each chunk is computed on the worker's own thread, one at a time (one worker process per core).",
  }),
  QUEUE_WORKER_HEARTBEAT_FILE: doc(z.string().trim().min(1).optional(), {
    section: 'Queue workers',
    default: 'unset',
    description:
      'When set, the worker writes a timestamp there every 10 s (a liveness probe for a process without HTTP).',
  }),
  QUEUE_WORKER_SHUTDOWN_GRACE_MS: doc(int(100, 600_000).default(25_000), {
    section: 'Queue workers',
    description:
      'On SIGTERM a worker lets its in-flight chunks finish for at most this long, then exits 1; other workers recover unfinished chunks as stalled jobs.',
  }),
  QUEUE_WORKER_PREFETCH: doc(int(0, 64).default(0), {
    section: 'Queue workers',
    advanced: true,
    description: 'Jobs a worker takes beyond its threads (concurrency = its threads, at least 1, + prefetch).',
  }),
  QUEUE_LOCK_DURATION_MS: doc(int(1000, 600_000).default(2_000), {
    section: 'Queue workers',
    advanced: true,
    description: "A job's lock lasts this long, renewed every half of it; a dead worker's jobs are retaken after it.",
  }),
  QUEUE_STALLED_INTERVAL_MS: doc(int(500, 600_000).default(1_000), {
    section: 'Queue workers',
    advanced: true,
    description: 'Every this often a live worker moves jobs whose locks expired (their worker died) back to waiting.',
  }),
  QUEUE_MAX_STALLED_COUNT: doc(int(0, 100).default(2), {
    section: 'Queue workers',
    advanced: true,
    description: 'A job that stalls more than this many times fails instead of being retaken.',
  }),
  JOB_TTL_SECONDS: doc(int(1, 365 * 24 * 3600).default(86_400), {
    section: 'Async jobs',
    description: 'Async jobs and their results are kept this long after they finish.',
  }),
  JOBS_DIR: doc(z.string().trim().min(1).default(join(tmpdir(), 'sor-jobs')), {
    section: 'Async jobs',
    default: '`<os tmpdir>/sor-jobs`',
    description:
      'The folder (created 0700, files 0600) of the uploads of unfinished async jobs (kept so that a job resumes after a restart) and, without Redis, of the job store: a SQLite database and the gzip results. A local filesystem, kept across restarts; API processes of one machine may share it.',
  }),
  JOBS_MAX_DISK_BYTES: doc(int(MiB, 1024 * 1024 * MiB).default(2048 * MiB), {
    section: 'Async jobs',
    description: 'Without Redis: the most compressed job results (and their reservations) kept in JOBS_DIR.',
  }),
  JOBS_MAX_REDIS_BYTES: doc(int(MiB, 1024 * 1024 * MiB).default(256 * MiB), {
    section: 'Async jobs',
    description: 'With Redis: the most compressed job results kept in Redis (never beyond its maxmemory headroom).',
  }),
  ...WEBHOOK_VARIABLES,
  AUTH_MODE: doc(z.enum(['off', 'required']).default('off'), {
    section: 'Access control',
    description:
      '`required`: every /v1 call but the OpenAPI document needs a bearer token (create them with `sor token`).',
  }),
  AUTH_TOKEN_PREFIX: doc(z.enum(['svc_live_', 'svc_test_']).default('svc_live_'), {
    section: 'Access control',
    description: "The environment of this service's tokens; a token with the other prefix is invalid_token.",
  }),
  AUTH_TOKENS_FILE: doc(z.string().trim().min(1).default(join('data', 'auth-tokens.json')), {
    section: 'Access control',
    description: 'Without Redis: the token file (hashes only; written atomically, 0600).',
  }),
  RATE_LIMIT: doc(
    z
      .string()
      .trim()
      .regex(/^[1-9]\d{0,8}\/(?:sec|min|hour|day)$/, 'must be N/sec, N/min, N/hour or N/day (e.g. 600/min)')
      .optional()
      .or(z.literal('').transform(() => undefined)),
    {
      section: 'Access control',
      default: 'unset: no limit',
      description:
        '`N/sec`, `N/min`, `N/hour` or `N/day`: per client address with AUTH_MODE=off, and for tokens created without their own --rate with AUTH_MODE=required.',
    },
  ),
  CORS_ORIGINS: doc(
    commaList(
      z
        .string()
        .regex(/^(\*|https?:\/\/[^\s/?#,]+)$/, 'must be a comma list of origins (scheme://host[:port], no path) or *'),
    ),
    {
      section: 'Access control',
      default: 'unset: no CORS headers',
      description: 'Browser origins allowed to call the API: a comma list such as `https://sis.example.edu`, or `*`.',
    },
  ),
  ADMIN_TOKEN: doc(z.string().min(1).optional(), {
    section: 'Queue dashboard',
    default: 'unset: dashboard off',
    description:
      'Turns /admin/queues (bull-board, with REDIS_URL) on, behind this token (at least 24 characters). Never logged.',
  }),
  ADMIN_PORT: doc(int(0, 65535).optional(), {
    section: 'Queue dashboard',
    default: 'unset: on PORT',
    description:
      'Serves the dashboard on this port only (on HOST), which deployments leave unpublished. 0 picks a free port.',
  }),
  ADMIN_READ_ONLY: doc(
    z
      .enum(['true', 'false'], 'must be true or false')
      .default('true')
      .transform((v) => v === 'true'),
    {
      section: 'Queue dashboard',
      default: '`true`',
      description:
        'The dashboard only shows the queue unless this is `false` (then it may retry, clean, pause, edit jobs).',
    },
  ),
  SOR_POLICY: doc(
    z
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
    {
      section: 'School policy',
      default: "unset: the service's readings",
      description:
        "The deployment's default school policy (rules.md §10): comma-separated `option=value` items, e.g. `proration_fraction=decimal_rounded,remainder_placement=last_term`. A request's own policy overrides it option by option.",
    },
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
