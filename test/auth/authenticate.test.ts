/**
 * The Authorization header's shape (src/auth/authenticate.ts): the word Bearer, one space, one token — as the
 * 401's message says — and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { authenticate } from '../../src/auth/authenticate.ts';
import { generateToken, generateTokenId, tokenHash } from '../../src/auth/token.ts';
import type { TokenRecord, TokenStore } from '../../src/auth/token-store.ts';

const token = generateToken('svc_live_');
const record: TokenRecord = {
  id: generateTokenId(),
  name: 'registrar',
  hash: tokenHash(token),
  prefix: 'svc_live_',
  created_at: new Date().toISOString(),
  expires_at: null,
  revoked_at: null,
  rate: null,
};
const store: TokenStore = {
  kind: 'file',
  create: () => Promise.resolve(),
  list: () => Promise.resolve([record]),
  findByHash: (hash) => Promise.resolve(hash === record.hash ? record : undefined),
  revoke: () => Promise.resolve(undefined),
  close: () => Promise.resolve(),
};

describe('the Authorization header', () => {
  it('Bearer, one space and the token: the caller is the token (the scheme in any letter case)', async () => {
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`]) {
      const outcome = await authenticate(header, store, 'svc_live_');
      expect(outcome.ok, header).toBe(true);
    }
  });

  it('two spaces, a tab, or anything after the token: 401 unauthenticated, "one space and one access token"', async () => {
    const headers = [
      `Bearer  ${token}`,
      `Bearer   ${token}`,
      `Bearer\t${token}`,
      `Bearer \t${token}`,
      `Bearer ${token}\t`,
      `Bearer ${token} `,
      `Bearer ${token}  `,
      ` Bearer ${token}`,
      `Bearer ${token}\n`,
      `Bearer ${token} ${token}`,
    ];
    for (const header of headers) {
      const outcome = await authenticate(header, store, 'svc_live_');
      expect(outcome.ok, JSON.stringify(header)).toBe(false);
      if (outcome.ok) continue;
      expect(outcome.error.status).toBe(401);
      expect(outcome.error.code).toBe('unauthenticated');
      expect(outcome.error.message).toContain('one space and one access token');
      expect(outcome.challenge).toContain('error="invalid_request"');
    }
  });
});
