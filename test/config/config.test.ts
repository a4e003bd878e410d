/** Environment → Config: defaults, one-line errors naming the variable, frozen result. */
import { describe, expect, it } from 'vitest';
import { ConfigError, deprecationWarnings, loadConfig } from '../../src/config.ts';
import { workerTuning } from '../../src/queue/settings.ts';
import { DEFAULT_POLICY } from '../../src/domain/policy.ts';

describe('loadConfig', () => {
  it('has the documented defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 8080,
      HOST: '0.0.0.0',
      MAX_BODY_BYTES: 1024 * 1024,
      BULK_CHUNK_STUDENTS: 1000,
      BULK_SYNC_MAX_ROWS: 2000,
      BULK_MAX_BYTES: 512 * 1024 * 1024,
      BULK_MAX_ROWS: 2_000_000,
      REDIS_PREFIX: 'sor',
      BULK_QUEUE_FALLBACK: 'local',
      JOB_TTL_SECONDS: 86_400,
    });
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.BULK_THREADS).toBeGreaterThanOrEqual(1);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('treats an empty REDIS_URL as unset (the embedded default)', () => {
    expect(loadConfig({ REDIS_URL: '' }).REDIS_URL).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_SIGNING_KEY: 'k'.repeat(32) }).REDIS_URL).toBe(
      'redis://127.0.0.1:6379',
    );
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['MAX_BODY_BYTES', '-1'],
    ['LOG_LEVEL', 'loud'],
    ['BULK_QUEUE_FALLBACK', 'maybe'],
    ['REDIS_URL', 'http://example'],
    ['REDIS_PREFIX', 'has space'],
    ['QUEUE_LOCK_DURATION_MS', '10'],
  ])('%s=%s stops start-up with one line naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    expect(message).not.toContain('\n');
  });

  it('reads the deprecated BULLMQ_PREFIX as REDIS_PREFIX, with a warning naming the new name; REDIS_PREFIX wins', () => {
    expect(loadConfig({ REDIS_PREFIX: 'new' }).REDIS_PREFIX).toBe('new');
    expect(deprecationWarnings({ REDIS_PREFIX: 'new' })).toEqual([]);

    const old = { BULLMQ_PREFIX: 'old' };
    expect(loadConfig(old).REDIS_PREFIX).toBe('old');
    expect(loadConfig(old)).not.toHaveProperty('BULLMQ_PREFIX');
    expect(deprecationWarnings(old)).toEqual([expect.stringMatching(/BULLMQ_PREFIX is deprecated, use REDIS_PREFIX/)]);

    const both = { BULLMQ_PREFIX: 'old', REDIS_PREFIX: 'new' };
    expect(loadConfig(both).REDIS_PREFIX).toBe('new');
    expect(deprecationWarnings(both)).toEqual([expect.stringMatching(/BULLMQ_PREFIX .*ignored.*REDIS_PREFIX/)]);
    expect(() => loadConfig({ BULLMQ_PREFIX: 'has space' })).toThrow(/^Invalid configuration: BULLMQ_PREFIX /);
  });

  it('has the defaults of the slot, stall and upload-rate limits, and refuses what would turn them off wrongly', () => {
    expect(loadConfig({})).toMatchObject({
      BULK_MAX_CONCURRENT: 4,
      BULK_SMALL_MAX_CONCURRENT: 4,
      BULK_SMALL_FILE_ROWS: 2000,
      BULK_STALL_TIMEOUT_MS: 30_000,
      UPLOAD_MAX_SPOOLING: 32,
      UPLOAD_MIN_BYTES_PER_SEC: 1024,
      UPLOAD_RATE_WINDOW_MS: 10_000,
    });
    expect(loadConfig({ BULK_SMALL_MAX_CONCURRENT: '0', UPLOAD_MIN_BYTES_PER_SEC: '0' })).toMatchObject({
      BULK_SMALL_MAX_CONCURRENT: 0,
      UPLOAD_MIN_BYTES_PER_SEC: 0,
    });
    for (const [name, value] of [
      ['BULK_STALL_TIMEOUT_MS', '0'],
      ['UPLOAD_MAX_SPOOLING', '0'],
      ['UPLOAD_RATE_WINDOW_MS', '10'],
      ['UPLOAD_MIN_BYTES_PER_SEC', '-1'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), name).toThrow(new RegExp(`^Invalid configuration: ${name} `));
    }
  });

  it('gives the queue worker its stalled-job tuning from the same config', () => {
    expect(workerTuning(loadConfig({}))).toEqual({
      lockDurationMs: 2_000,
      stalledIntervalMs: 1_000,
      maxStalledCount: 2,
      prefetch: 0,
    });
    expect(
      workerTuning(loadConfig({ QUEUE_LOCK_DURATION_MS: '10000', QUEUE_STALLED_INTERVAL_MS: '5000' })),
    ).toMatchObject({ lockDurationMs: 10_000, stalledIntervalMs: 5_000 });
  });
});

describe('SOR_POLICY, the deployment default school policy (rules.md §10)', () => {
  it('unset or empty is the service’s readings; option=value items separated by commas set options', () => {
    expect(loadConfig({}).SOR_POLICY).toBe(DEFAULT_POLICY);
    expect(loadConfig({ SOR_POLICY: '' }).SOR_POLICY).toBe(DEFAULT_POLICY);
    expect(
      loadConfig({ SOR_POLICY: 'proration_fraction=decimal_rounded, remainder_placement=last_term' }).SOR_POLICY,
    ).toEqual({ ...DEFAULT_POLICY, proration_fraction: 'decimal_rounded', remainder_placement: 'last_term' });
  });

  it.each([
    [
      'proration_fraction=rounded',
      /SOR_POLICY .*proration_fraction must be one of: exact, decimal_rounded, decimal_truncated \(got "rounded"\)/,
    ],
    ['rounding=exact', /SOR_POLICY .*rounding is not a school-policy option \(options: proration_fraction, /],
    ['decimal_rounded', /SOR_POLICY .*decimal_rounded must be written option=value/],
    [
      'remainder_placement=last_term,remainder_placement=largest_remainder',
      /SOR_POLICY .*remainder_placement is given twice/,
    ],
  ])('SOR_POLICY=%s stops start-up with one line naming the option', (value, message) => {
    let error: unknown;
    try {
      loadConfig({ SOR_POLICY: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });
});
