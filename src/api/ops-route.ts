/**
 * Operations endpoints (not part of the v1 interface):
 *   GET /metrics        Prometheus text format (prom-client registry of src/metrics.ts)
 *   /admin/queues       bull-board UI over the chunk queue, only when REDIS_URL is set (src/api/admin-queues.ts,
 *                       loaded only then: bull-board pulls in bullmq and ioredis); when ADMIN_TOKEN is set it
 *                       requires `Authorization: Bearer <token>` or HTTP Basic with the token as password (any
 *                       user name), so a browser can open it.
 */
import { timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.ts';
import { registry } from '../metrics.ts';
import { sendError } from './error-envelope.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export const METRICS_PATH = '/metrics';
export const ADMIN_QUEUES_PATH = '/admin/queues';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
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

export function adminAuth(token: string | undefined): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (token === undefined) return next();
    const given = presentedToken(req);
    if (given !== undefined && sameSecret(given, token)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="sor admin", charset="UTF-8"');
    sendError(
      res,
      new AppError(
        given === undefined ? 'unauthenticated' : 'invalid_token',
        401,
        given === undefined ? 'This path needs the admin token.' : 'The admin token is not valid.',
      ),
    );
  };
}

export interface OpsOptions {
  /** bull-board over the chunk queue (adminQueuesHandler); without it /admin/queues is not mounted (no Redis). */
  adminQueues?: RequestHandler;
  adminToken?: string;
}

export function opsRouter(options: OpsOptions = {}): Router {
  const router = Router();
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

  if (options.adminQueues) {
    router.use(ADMIN_QUEUES_PATH, adminAuth(options.adminToken), options.adminQueues);
  }
  return router;
}
