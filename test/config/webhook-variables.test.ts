/**
 * The webhook variables: WEBHOOK_SECRET is never printed (only its length) and is required by WEBHOOK_URL;
 * WEBHOOK_URL is printed redacted (a query may hold a token); WEBHOOK_ALLOW takes origins only, normalised as
 * a URL's origin; an empty value is unset.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

function failure(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('loaded');
}

describe('webhook variables', () => {
  it('never prints WEBHOOK_SECRET, only its length', () => {
    const message = failure({ WEBHOOK_SECRET: 'tooshort-secret' });
    expect(message).toBe(
      'Invalid configuration: WEBHOOK_SECRET must be at least 32 characters (e.g. openssl rand -hex 32) (got a value of 15 characters, not shown)',
    );
  });

  it('needs WEBHOOK_SECRET for WEBHOOK_URL, and prints a bad WEBHOOK_URL without its query', () => {
    expect(failure({ WEBHOOK_URL: 'https://etl.example.edu/sor' })).toMatch(
      /^Invalid configuration: WEBHOOK_SECRET is required when WEBHOOK_URL is set/,
    );
    const message = failure({ WEBHOOK_URL: 'ftp://etl.example.edu/sor?token=s3cret' });
    expect(message).toMatch(/^Invalid configuration: WEBHOOK_URL must be an absolute https URL/);
    expect(message).not.toContain('s3cret');
  });

  it('reads WEBHOOK_ALLOW as origins, and refuses anything with a path', () => {
    const config = loadConfig({ WEBHOOK_ALLOW: ' http://127.0.0.1:9000 , https://ETL.example.edu:443/ ' });
    expect(config.WEBHOOK_ALLOW).toEqual(['http://127.0.0.1:9000', 'https://etl.example.edu']);
    expect(failure({ WEBHOOK_ALLOW: 'http://127.0.0.1:9000/hooks' })).toMatch(
      /WEBHOOK_ALLOW must be a comma list of origins/,
    );
  });

  it('reads an empty WEBHOOK_SECRET or WEBHOOK_URL as unset; the retry settings have their defaults', () => {
    const config = loadConfig({ WEBHOOK_SECRET: '', WEBHOOK_URL: '' });
    expect(config.WEBHOOK_SECRET).toBeUndefined();
    expect(config.WEBHOOK_URL).toBeUndefined();
    expect([config.WEBHOOK_TIMEOUT_MS, config.WEBHOOK_RETRY_BASE_MS, config.WEBHOOK_RETRY_MAX_MS]).toEqual([
      10_000, 30_000, 3_600_000,
    ]);
    expect(config.WEBHOOK_RETRY_WINDOW_SECONDS).toBe(86_400);
  });
});
