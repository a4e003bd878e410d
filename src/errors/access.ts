/**
 * Access control (AUTH_MODE=required; src/auth/, src/api/auth.ts) and rate limits. No message ever quotes the
 * token. Part of the one catalogue, src/errors.ts.
 */
import type { ErrorEntry } from './entry.ts';

export const ACCESS_ERRORS = {
  AUTH_MISSING: {
    code: 'unauthenticated',
    status: 401,
    message: 'This service needs an access token: send the header Authorization: Bearer {prefix}<token>.',
  },
  AUTH_MALFORMED: {
    code: 'unauthenticated',
    status: 401,
    message: 'The Authorization header must be the word Bearer, one space and one access token.',
  },
  TOKEN_INVALID: { code: 'invalid_token', status: 401, message: 'The access token is not valid.' },
  TOKEN_WRONG_FORMAT: { code: 'invalid_token', status: 401, message: 'The access token is not a {prefix} token.' },
  TOKEN_OTHER_ENVIRONMENT: { code: 'invalid_token', status: 401, message: 'This service takes {prefix} tokens.' },
  TOKEN_EXPIRED: { code: 'expired_token', status: 403, message: 'The access token expired at {expiredAt}.' },
  TOKEN_REVOKED: { code: 'revoked_token', status: 403, message: 'The access token was revoked at {revokedAt}.' },
  AUTH_STORE_UNAVAILABLE: {
    code: 'internal_error',
    status: 503,
    public: true,
    message: 'The access-token store is unavailable; try again shortly.',
  },
  QUOTA_EXCEEDED: {
    code: 'quota_exceeded',
    status: 429,
    message: 'The rate limit of {limit} is used up; try again in {retryAfter} seconds.',
  },
  JOBS_LIST_NEEDS_AUTH: {
    code: 'listing_requires_auth',
    status: 403,
    message:
      'Jobs are listed only when access tokens are on (AUTH_MODE=required); without them a job is reached by its id alone.',
  },
  JOB_CANCELLED: { code: 'job_cancelled', status: 409, message: 'The job was cancelled; its result was removed.' },
} as const satisfies Record<string, ErrorEntry>;
