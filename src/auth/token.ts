/**
 * Access tokens (docs/security.md, "Access control"): opaque, random, prefixed by environment, and known to the service only
 * by their sha256.
 *
 *   svc_live_ or svc_test_  +  32 characters of [0-9A-Za-z]   (32 × log2(62) ≈ 190 random bits)
 *
 * The characters are drawn from crypto.randomBytes by rejection sampling (bytes ≥ 248 are dropped), so each is
 * uniform over the 62. The store keeps `sha256(token)` only; a presented token is hashed and its digest compared
 * with the stored one by crypto.timingSafeEqual on two 32-byte digests (equal lengths, so the comparison's time
 * says nothing about where they differ).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_PREFIXES = ['svc_live_', 'svc_test_'] as const;
export type TokenPrefix = (typeof TOKEN_PREFIXES)[number];

/** Characters of a token body. */
export const TOKEN_BODY_LENGTH = 32;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Bytes below this are used (248 = 4 × 62): each character is uniform over the alphabet. */
const UNBIASED_BELOW = 248;

/** The shape of any token of either environment. */
export const TOKEN_PATTERN = /^svc_(?:live|test)_[0-9A-Za-z]{32}$/;

/** A new token of the given environment. */
export function generateToken(prefix: TokenPrefix): string {
  let body = '';
  while (body.length < TOKEN_BODY_LENGTH) {
    for (const byte of randomBytes(48)) {
      if (byte < UNBIASED_BELOW && body.length < TOKEN_BODY_LENGTH) body += ALPHABET[byte % ALPHABET.length];
    }
  }
  return `${prefix}${body}`;
}

/** A new token id (shown by `sor token list`, used by `sor token revoke` and as the owner of jobs). */
export function generateTokenId(): string {
  return `tok_${randomBytes(8).toString('hex')}`;
}

export const TOKEN_ID_PATTERN = /^tok_[0-9a-f]{16}$/;

/** sha256 of the token, hex: what the store keeps and looks tokens up by. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Constant-time equality of two sha256 digests (hex). Digests of another length are never equal; equal-length
 * ones are compared with crypto.timingSafeEqual over their bytes.
 */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  if (x.length !== 32 || y.length !== 32) return false;
  return timingSafeEqual(x, y);
}

export type TokenShape = 'ok' | 'malformed' | 'other_environment';

/** Whether a presented token has this environment's shape (checked before any lookup). */
export function tokenShape(token: string, prefix: TokenPrefix): TokenShape {
  if (!TOKEN_PATTERN.test(token)) return 'malformed';
  return token.startsWith(prefix) ? 'ok' : 'other_environment';
}
