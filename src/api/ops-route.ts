/**
 * Operations endpoints (not part of the v1 interface):
 *   GET /metrics        Prometheus text format (prom-client registry of src/metrics.ts)
 *   /admin/queues       bull-board UI over the chunk queue (src/api/admin-queues.ts, loaded only with REDIS_URL:
 *                       bull-board pulls in bullmq and ioredis). Off (404) unless ADMIN_TOKEN is set; then it
 *                       requires `Authorization: Bearer <token>` or HTTP Basic with the token as password (any
 *                       user name), so a browser can open it. The token is compared in constant time and never
 *                       logged. Read-only unless ADMIN_READ_ONLY=false: any method but GET/HEAD is refused (405).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { appError } from '../errors.ts';
import { registry } from '../metrics.ts';
import { sendError } from './error-envelope.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export const METRICS_PATH = '/metrics';
export const ADMIN_QUEUES_PATH = '/admin/queues';

/**
 * Constant time in the contents and the lengths: both sides are hashed to 32 bytes first, so neither a wrong
 * character's position nor the token's length shows in the time taken.
 */
export function sameSecret(given: string, expected: string): boolean {
  const x = createHash('sha256').update(given, 'utf8').digest();
  const y = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(x, y);
}

/** The token from `Authorization: Bearer <t>` or `Authorization: Basic base64(user:<t>)`. */
function presentedToken(req: Request): string | undefined {
  const header = req.get('Authorization');
  if (!header) return undefined;
  const [scheme, value] = header.split(/\s+/, 2);
  if (!scheme || !value) return undefined;
  if (scheme.toLowerCase() === 'bearer') return value;
  if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}

export function adminAuth(token: string): RequestHandler {
  if (token.length === 0) throw new Error('adminAuth needs a token');
  return (req: Request, res: Response, next: NextFunction) => {
    const given = presentedToken(req);
    if (given !== undefined && sameSecret(given, token)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="sor admin", charset="UTF-8"');
    sendError(res, appError(given === undefined ? 'ADMIN_TOKEN_MISSING' : 'ADMIN_TOKEN_INVALID'));
  };
}

/** In read-only mode only GET and HEAD reach the dashboard; anything else is refused here, whatever the path. */
export function readOnlyGuard(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    res.setHeader('Allow', 'GET, HEAD');
    sendError(res, appError('DASHBOARD_READ_ONLY'));
  };
}

export interface OpsOptions {
  /**
   * bull-board over the chunk queue (adminQueuesHandler); mounted only together with adminToken (no Redis or no
   * token: /admin/queues is 404).
   */
  adminQueues?: RequestHandler;
  adminToken?: string;
  /** Refuse every method but GET/HEAD on /admin/queues (default true). */
  adminReadOnly?: boolean;
}

export function opsRouter(options: OpsOptions = {}): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get(METRICS_PATH, async (_req: Request, res: Response) => {
    try {
      const body = await registry.metrics();
      res.status(200);
      res.setHeader('Content-Type', registry.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(body);
    } catch (err) {
      sendError(res, err);
    }
  });
  router.all(METRICS_PATH, methodNotAllowed('GET'));

  if (options.adminQueues && options.adminToken) {
    router.use(adminRouter(options.adminQueues, options.adminToken, options.adminReadOnly !== false));
  }
  return router;
}

/** /admin/queues behind the token (and the read-only guard): on the API's port, or on ADMIN_PORT alone. */
export function adminRouter(adminQueues: RequestHandler, token: string, readOnly: boolean): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const guards = [adminAuth(token), ...(readOnly ? [readOnlyGuard()] : [])];
  router.use(ADMIN_QUEUES_PATH, ...guards, adminQueues);
  return router;
}
