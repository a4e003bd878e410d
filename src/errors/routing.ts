/**
 * Routing and the admin listener: no such path or method, the dashboard's token and read-only mode. Part of the
 * one catalogue, src/errors.ts.
 */
import type { ErrorEntry } from './entry.ts';

export const ROUTING_ERRORS = {
  NOT_FOUND: { code: 'not_found', status: 404, message: 'There is no resource at this path.' },
  PAGE_NOT_BUILT: { code: 'internal_error', status: 503, message: 'Page not built: run npm run build.', public: true },
  METHOD_NOT_ALLOWED: {
    code: 'method_not_allowed',
    status: 405,
    message: '{method} is not allowed on this path; allowed: {allow}.',
  },
  DASHBOARD_READ_ONLY: {
    code: 'method_not_allowed',
    status: 405,
    message: 'The queue dashboard is read-only (set ADMIN_READ_ONLY=false to allow changes).',
  },
  ADMIN_TOKEN_MISSING: { code: 'unauthenticated', status: 401, message: 'This path needs the admin token.' },
  ADMIN_TOKEN_INVALID: { code: 'invalid_token', status: 401, message: 'The admin token is not valid.' },
} as const satisfies Record<string, ErrorEntry>;
