/** The access-control variables of src/config.ts: defaults (off, nothing limited) and one-line errors. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('access-control configuration', () => {
  it('defaults to an open, unlimited API', () => {
    const c = loadConfig({});
    expect(c.AUTH_MODE).toBe('off');
    expect(c.AUTH_TOKEN_PREFIX).toBe('svc_live_');
    expect(c.AUTH_TOKENS_FILE).toBe('data/auth-tokens.json');
    expect(c.RATE_LIMIT).toBeUndefined();
    expect(loadConfig({ RATE_LIMIT: '' }).RATE_LIMIT).toBeUndefined();
  });

  it('takes the documented values', () => {
    const c = loadConfig({ AUTH_MODE: 'required', AUTH_TOKEN_PREFIX: 'svc_test_', RATE_LIMIT: '600/min' });
    expect([c.AUTH_MODE, c.AUTH_TOKEN_PREFIX, c.RATE_LIMIT]).toEqual(['required', 'svc_test_', '600/min']);
  });

  it.each([
    ['AUTH_MODE', 'on'],
    ['AUTH_TOKEN_PREFIX', 'svc_prod_'],
    ['RATE_LIMIT', '600'],
    ['RATE_LIMIT', '0/min'],
    ['RATE_LIMIT', '10/week'],
  ])('refuses %s=%s in one line naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} `));
  });
});
