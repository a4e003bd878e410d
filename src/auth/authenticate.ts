/**
 * Who is calling: the `Authorization: Bearer <token>` header checked against the token store, in this order
 * (each failure one catalogue entry, never quoting the token):
 *   no header                           401 unauthenticated (AUTH_MISSING)
 *   not `Bearer <one token>`            401 unauthenticated (AUTH_MALFORMED)
 *   not svc_live_/svc_test_ + 32 chars  401 invalid_token   (TOKEN_WRONG_FORMAT)
 *   the other environment's prefix      401 invalid_token   (TOKEN_OTHER_ENVIRONMENT)
 *   no token with this sha256           401 invalid_token   (TOKEN_INVALID)
 *   revoked                             403 revoked_token   (TOKEN_REVOKED)
 *   past its expiry                     403 expired_token   (TOKEN_EXPIRED)
 * The stored digest is compared with the presented one in constant time (sameDigest). The WWW-Authenticate value
 * of each failure follows RFC 6750 §3: no error attribute when no credentials were sent, error="invalid_request"
 * for a malformed header, error="invalid_token" for a token that cannot be used.
 */
import type { AppError } from '../errors.ts';
import { appError } from '../errors.ts';
import { sameDigest, tokenHash, tokenShape, type TokenPrefix } from './token.ts';
import type { TokenRecord, TokenStore } from './token-store.ts';

export const AUTH_REALM = 'sor';

export type AuthOutcome = { ok: true; token: TokenRecord } | { ok: false; error: AppError; challenge: string };

function challenge(error?: 'invalid_request' | 'invalid_token', description?: string): string {
  let value = `Bearer realm="${AUTH_REALM}"`;
  if (error) value += `, error="${error}"`;
  if (description) value += `, error_description="${description}"`;
  return value;
}

/**
 * The word Bearer (any letter case: RFC 7235 §2.1), exactly one space, one token and nothing after it, as the
 * AUTH_MALFORMED message says: two spaces, a tab or anything after the token is refused. (Spaces and tabs around
 * the whole value are not part of it, RFC 9110 §5.5: Node's HTTP parser removes them before any code sees them.)
 */
const BEARER = /^Bearer ([^\s]+)$/i;

export async function authenticate(
  header: string | undefined,
  store: TokenStore,
  prefix: TokenPrefix,
  now: Date = new Date(),
): Promise<AuthOutcome> {
  if (header === undefined || header.trim() === '') {
    return { ok: false, error: appError('AUTH_MISSING', { prefix }), challenge: challenge() };
  }
  const m = BEARER.exec(header);
  if (!m) {
    return {
      ok: false,
      error: appError('AUTH_MALFORMED'),
      challenge: challenge('invalid_request', 'Authorization must be Bearer and one token'),
    };
  }
  const token = m[1] as string;
  const shape = tokenShape(token, prefix);
  if (shape === 'malformed') {
    return {
      ok: false,
      error: appError('TOKEN_WRONG_FORMAT', { prefix }),
      challenge: challenge('invalid_token', 'malformed token'),
    };
  }
  if (shape === 'other_environment') {
    return {
      ok: false,
      error: appError('TOKEN_OTHER_ENVIRONMENT', { prefix }),
      challenge: challenge('invalid_token', 'token of another environment'),
    };
  }
  const hash = tokenHash(token);
  let record: TokenRecord | undefined;
  try {
    record = await store.findByHash(hash);
  } catch (err) {
    throw appError('AUTH_STORE_UNAVAILABLE', {}, { cause: err });
  }
  if (!record || !sameDigest(record.hash, hash) || record.prefix !== prefix) {
    return { ok: false, error: appError('TOKEN_INVALID'), challenge: challenge('invalid_token', 'unknown token') };
  }
  if (record.revoked_at !== null) {
    return {
      ok: false,
      error: appError('TOKEN_REVOKED', { revokedAt: record.revoked_at }),
      challenge: challenge('invalid_token', 'the token was revoked'),
    };
  }
  if (record.expires_at !== null && Date.parse(record.expires_at) <= now.getTime()) {
    return {
      ok: false,
      error: appError('TOKEN_EXPIRED', { expiredAt: record.expires_at }),
      challenge: challenge('invalid_token', 'the token expired'),
    };
  }
  return { ok: true, token: record };
}
