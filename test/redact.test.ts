/**
 * The one URL redaction (src/redact.ts) and the configuration errors that use it: passwords with `@ # : /` and
 * spaces, raw or percent-encoded, in well-formed and malformed URLs, never appear, whole or in part.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { redactText, redactUrl, serializeError, urlSecrets } from '../src/redact.ts';

/** Passwords whose pieces (between the special characters) are long and distinctive enough to search for. */
const PASSWORDS = [
  'Sw0rdfish@Tr0utBass',
  'Kest#relHawk9',
  'Plov:erSnipe7',
  'Heron/EgretCrane',
  'Robin Wren Finch',
  'Qz@x#Yw:vU/tS pR',
];

/** Every run of 3+ letters/digits of the password, and the password itself raw and encoded. */
function fragments(password: string): string[] {
  const pieces = password.split(/[^A-Za-z0-9]+/).filter((p) => p.length >= 3);
  return [password, encodeURIComponent(password), ...pieces];
}

function expectNoFragment(text: string, password: string): void {
  for (const f of fragments(password)) expect(text, `"${f}" of the password in: ${text}`).not.toContain(f);
}

describe('redactUrl', () => {
  it.each(PASSWORDS)('hides the password %j, raw or percent-encoded, and keeps host, port and db', (password) => {
    for (const pw of [password, encodeURIComponent(password)]) {
      for (const url of [`redis://default:${pw}@cache.internal:6380/2`, `rediss://:${pw}@10.1.2.3:6379`]) {
        const shown = redactUrl(url);
        expectNoFragment(shown, password);
        expect(shown).toMatch(/^rediss?:\/\/\*\*\*@(cache\.internal:6380\/2|10\.1\.2\.3:6379)$/);
      }
    }
  });

  it('hides the user name too, and a query string that may carry a password', () => {
    expect(redactUrl('redis://registrar:Sw0rdfish@cache:6379/0?password=Tr0utBass')).toBe('redis://***@cache:6379/0…');
  });

  it('prints a malformed URL without the password (no host shown when the host part is not a host)', () => {
    // The @ between credentials and host was forgotten: the password sits where the port would be.
    expect(redactUrl('redis://registrar:Sw0rdfishTr0ut')).toBe('redis://(host not shown)');
    // A password with a space and no @ at all.
    expectNoFragment(redactUrl('redis://:Robin Wren Finch'), 'Robin Wren Finch');
    expect(redactUrl('not a url Sw0rdfish')).toBe('(not a URL; not shown)');
    expect(redactUrl('redis://[::1]:6379')).toBe('redis://[::1]:6379');
    expect(redactUrl('redis://cache:6379')).toBe('redis://cache:6379');
  });

  it('redactText redacts URLs inside messages and the given secrets, raw and encoded', () => {
    const password = 'Qz@x#Yw:vU/tS pR';
    const message = `connect failed for redis://u:${encodeURIComponent(password)}@cache:6379 (auth ${password})`;
    const shown = redactText(message, urlSecrets(`redis://u:${encodeURIComponent(password)}@cache:6379`));
    expectNoFragment(shown, password);
    expect(shown).toContain('redis://***@cache:6379');
  });

  it('urlSecrets finds the password as written and decoded', () => {
    expect(urlSecrets('redis://u:a%40b%23c@h:1')).toEqual(['a%40b%23c', 'a@b#c']);
    expect(urlSecrets('redis://h:1')).toEqual([]);
    expect(urlSecrets(undefined)).toEqual([]);
  });
});

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration errors print no secret', () => {
  const unencodable = PASSWORDS.filter((p) => /[@#/ ]/.test(p));
  it.each(unencodable)('a REDIS_URL with the raw password %j is refused in one line without it', (password) => {
    const message = configError({
      REDIS_URL: `redis://default:${password}@cache.internal:6380`,
      QUEUE_SIGNING_KEY: 'k'.repeat(32),
    });
    expect(message).toMatch(/^Invalid configuration: REDIS_URL /);
    expect(message).not.toContain('\n');
    expect(message).toContain('percent-encode');
    expectNoFragment(message, password);
  });

  it('accepts the same passwords percent-encoded, and a raw ":" (URL parsers split at the first one)', () => {
    const raw = 'redis://default:Plov:erSnipe7@cache.internal:6380';
    expect(loadConfig({ REDIS_URL: raw, QUEUE_SIGNING_KEY: 'k'.repeat(32) }).REDIS_URL).toBe(raw);
    expect(new URL(raw).password).toBe('Plov%3AerSnipe7');
    for (const password of PASSWORDS) {
      const url = `redis://default:${encodeURIComponent(password)}@cache.internal:6380`;
      expect(loadConfig({ REDIS_URL: url, QUEUE_SIGNING_KEY: 'k'.repeat(32) }).REDIS_URL).toBe(url);
    }
  });

  it('QUEUE_SIGNING_KEY is required with REDIS_URL, at least 32 characters, and never printed', () => {
    expect(configError({ REDIS_URL: 'redis://cache:6379' })).toMatch(
      /^Invalid configuration: QUEUE_SIGNING_KEY is required when REDIS_URL is set .*openssl rand -hex 32/,
    );
    const short = configError({ REDIS_URL: 'redis://cache:6379', QUEUE_SIGNING_KEY: 'Sw0rdfishTr0ut' });
    expect(short).toMatch(/^Invalid configuration: QUEUE_SIGNING_KEY must be at least 32 characters/);
    expect(short).not.toContain('Sw0rdfish');
    expect(loadConfig({ QUEUE_SIGNING_KEY: 'k'.repeat(32) }).QUEUE_SIGNING_KEY).toBe('k'.repeat(32));
    // Without REDIS_URL nothing is signed and no key is needed.
    expect(loadConfig({}).QUEUE_SIGNING_KEY).toBeUndefined();
  });

  it('ADMIN_READ_ONLY is true by default and only true/false are accepted', () => {
    expect(loadConfig({}).ADMIN_READ_ONLY).toBe(true);
    expect(loadConfig({ ADMIN_READ_ONLY: 'false' }).ADMIN_READ_ONLY).toBe(false);
    expect(configError({ ADMIN_READ_ONLY: 'no' })).toMatch(/^Invalid configuration: ADMIN_READ_ONLY /);
  });
});

describe('serializeError (log lines of errors)', () => {
  it('drops the command arguments ioredis attaches to an error, at any depth, and redacts URLs', () => {
    const password = 'Sw0rd@Fish#Tr0ut';
    const replyError = Object.assign(new Error('WRONGPASS invalid username-password pair'), {
      command: { name: 'auth', args: ['default', password] },
    });
    const outer = new Error(`store unavailable at redis://u:${encodeURIComponent(password)}@cache:6379`, {
      cause: replyError,
    });
    const logged = JSON.stringify(serializeError(outer));
    expectNoFragment(logged, password);
    expect(logged).toContain('redis://***@cache:6379');
    expect(logged).toContain('WRONGPASS invalid username-password pair');
    expect(logged).not.toContain('"command"');
    // Stack frames (file:// paths) stay readable.
    expect(JSON.stringify(serializeError(new Error('x')))).toMatch(/redact\.test\.ts/);
  });
});
