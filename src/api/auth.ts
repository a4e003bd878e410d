/**
 * Access control at the door (AUTH_MODE=required; docs/security.md, "Access control"). Every /v1/* request but
 * `GET /v1/openapi.json` (and CORS preflights, OPTIONS) must carry `Authorization: Bearer svc_…` of a live token
 * of this environment (src/auth/authenticate.ts decides). Which requests: createApp (src/api/app.ts) mounts the
 * guard on `/v1` with the app's own case-sensitive router, after the open OpenAPI route and before every /v1
 * route, so the guard needs no test of its own on the path. A failure answers the catalogue's envelope with a
 * `WWW-Authenticate: Bearer realm="sor", error=…` header (RFC 6750); a body the client is sending is read and
 * dropped first (up to BULK_DRAIN_MAX_BYTES, as the upload doors do) so the client can read the answer.
 * Paths outside /v1 (the page, /docs, /healthz, /readyz, /metrics, /admin behind ADMIN_TOKEN) are not guarded.
 *
 * The caller (the token's id, its rate) is kept on the response for the rate limiter and the jobs routes
 * (`callerOf`). With AUTH_MODE=off every caller is anonymous: id ''.
 *
 * The guards are written against Node's own request and response (no Express helper), so the same functions run
 * as Express middleware on /v1 and in front of the calculate handler at the front door (src/api/calculate-route.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppError } from '../errors.ts';
import { authenticate } from '../auth/authenticate.ts';
import type { TokenPrefix } from '../auth/token.ts';
import type { TokenStore } from '../auth/token-store.ts';
import { parseRate, type Rate } from '../auth/rate.ts';
import { closeAfterAnswer, drainBody } from './drain-body.ts';
import { sendError } from './error-envelope.ts';

export interface Caller {
  /** The token id; '' for anonymous callers (AUTH_MODE=off). */
  id: string;
  /** The token's own rate limit, if it has one. */
  rate?: Rate;
}

/**
 * A guard: middleware on Node's request and response; `next()` lets the request on, `next(err)` fails it, or the
 * guard answers the request itself. Assignable to Express's RequestHandler.
 */
export type Guard = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

const ANONYMOUS: Caller = Object.freeze({ id: '' });
const CALLER = Symbol('caller');

type WithCaller = ServerResponse & { [CALLER]?: Caller };

/** The caller of this request, as the auth guard found it (anonymous when access control is off). */
export function callerOf(res: ServerResponse): Caller {
  return (res as WithCaller)[CALLER] ?? ANONYMOUS;
}

function setCaller(res: ServerResponse, caller: Caller): void {
  (res as WithCaller)[CALLER] = caller;
}

/** CORS preflights (OPTIONS) carry no credentials by design: the guards let them through to their answer. */
export function isPreflight(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS';
}

/** Sends an answer decided before the body was read: the body is read and dropped first (bounded). */
export async function answerBeforeBody(
  req: IncomingMessage,
  res: ServerResponse,
  err: AppError,
  drainMaxBytes: number,
): Promise<void> {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !(await drainBody(req, drainMaxBytes))) closeAfterAnswer(req, res);
  sendError(res, err);
}

export interface AuthGuardOptions {
  store: TokenStore;
  prefix: TokenPrefix;
  drainMaxBytes: number;
}

export function authGuard(options: AuthGuardOptions): Guard {
  return (req, res, next) => {
    if (isPreflight(req)) return next();
    authenticate(req.headers.authorization, options.store, options.prefix).then(
      async (outcome) => {
        if (outcome.ok) {
          const rate = outcome.token.rate === null ? undefined : parseRate(outcome.token.rate);
          setCaller(res, rate ? { id: outcome.token.id, rate } : { id: outcome.token.id });
          next();
          return;
        }
        res.setHeader('WWW-Authenticate', outcome.challenge);
        await answerBeforeBody(req, res, outcome.error, options.drainMaxBytes);
      },
      (err: unknown) => sendError(res, err),
    );
  };
}
