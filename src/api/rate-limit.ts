/**
 * Rate limits (docs/security.md, "Access control"), express-rate-limit over a CostStore (src/auth/cost-stores.ts): Redis when
 * REDIS_URL is set (one count shared by every API replica on the same Redis and REDIS_PREFIX), memory otherwise.
 *
 *  - Who is counted: the token (AUTH_MODE=required), or the client address (AUTH_MODE=off, only when RATE_LIMIT
 *    is set: the open v1 API is unlimited by default).
 *  - The limit: the token's own rate (`sor token create --rate`), else RATE_LIMIT, else none.
 *  - The cost: every guarded request (every /v1 request but GET /v1/openapi.json and preflights: createApp mounts
 *    the guards on /v1) costs 1 when it arrives; a bulk file or job costs 1 more per student once its
 *    upload has been counted (the prescan), charged by the route through `chargeStudents`. That charge never
 *    refuses the file it counts (the file was accepted when it arrived), but it can take the window's count past
 *    the limit: the caller's following requests get 429 until the window resets.
 *  - Every limited response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (epoch
 *    seconds); a refused one is 429 quota_exceeded with Retry-After (seconds).
 * One limiter per window length (sec, min, hour, day), created at start-up, each with its own counters.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import type { Logger } from 'pino';
import { appError } from '../errors.ts';
import type { CostStore } from '../auth/cost-stores.ts';
import { RATE_WINDOWS, formatRate, type Rate, type RateWindow } from '../auth/rate.ts';
import { answerBeforeBody, callerOf, isPreflight, type Guard } from './auth.ts';

const CHARGE = Symbol('charge');

type Charge = (units: number) => Promise<void>;
type WithCharge = ServerResponse & { [CHARGE]?: Charge };

export interface RateLimitOptions {
  /** Access control on: count per token; off: per client address. */
  perToken: boolean;
  /** RATE_LIMIT: the limit of callers without a rate of their own. */
  defaultRate?: Rate;
  /** A new store for the limiter of one window (its keys prefixed with the window). */
  storeFor: (window: RateWindow) => CostStore;
  drainMaxBytes: number;
  logger: Logger;
}

/**
 * Charges the caller of this request `students` more units (a bulk file or job, once counted). Does nothing when
 * the request is not rate limited. Never throws: a store failure is logged.
 */
export async function chargeStudents(res: ServerResponse, students: number | null | undefined): Promise<void> {
  const charge = (res as WithCharge)[CHARGE];
  if (charge && students) await charge(students);
}

export function rateLimiter(options: RateLimitOptions): Guard {
  const limiters = new Map<RateWindow, { handler: RateLimitRequestHandler; store: CostStore }>();
  // The client address is the connection's (the app trusts no proxy header: Express's req.ip is the same).
  const keyOf = (req: IncomingMessage, res: ServerResponse) => {
    const caller = callerOf(res);
    return options.perToken ? caller.id : `ip:${req.socket.remoteAddress ?? 'unknown'}`;
  };
  const rateOf = (res: ServerResponse): Rate | undefined => callerOf(res).rate ?? options.defaultRate;
  for (const window of Object.keys(RATE_WINDOWS) as RateWindow[]) {
    const store = options.storeFor(window);
    const handler = rateLimit({
      windowMs: RATE_WINDOWS[window],
      limit: (_req, res) => rateOf(res)?.limit ?? 0,
      standardHeaders: false,
      legacyHeaders: true, // X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset: the interface's names
      keyGenerator: keyOf,
      store,
      // A store that cannot count (Redis down) lets the request through, logged: calculations go on.
      passOnStoreError: true,
      validate: { xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
      logger: {
        warn: (msg: string) => options.logger.warn(msg),
        error: (err: unknown, msg: string) => options.logger.error({ err }, msg),
      } as never,
      handler: async (req, res, _next, opts) => {
        const rate = rateOf(res);
        const retryAfter = Number(res.getHeader('Retry-After') ?? Math.ceil(opts.windowMs / 1000));
        const err = appError('QUOTA_EXCEEDED', { limit: rate ? formatRate(rate) : '?', retryAfter });
        await answerBeforeBody(req, res, err, options.drainMaxBytes);
      },
    });
    limiters.set(window, { handler, store });
  }

  return (req, res, next) => {
    if (isPreflight(req)) return next();
    const rate = rateOf(res);
    if (!rate) return next();
    const limiter = limiters.get(rate.window);
    if (!limiter) return next();
    const key = keyOf(req, res);
    const charge: Charge = (units) =>
      limiter.store.charge(key, units).catch((err: unknown) => {
        options.logger.warn({ err }, 'rate limit: could not charge the students of an upload');
      });
    (res as WithCharge)[CHARGE] = charge;
    // express-rate-limit, with this key generator and refusal handler, reads only Node's request and response
    // (headers, socket, setHeader) and sets `req.rateLimit`.
    void limiter.handler(req as Request, res as Response, next);
  };
}
