/**
 * The service's HTTP request listener: the Express app (src/api/app.ts) for every request, except the real-time
 * lookup — `POST /v1/calculate` with exactly that URL — which takes a fast lane to the route's own handler.
 *
 * Why: Express costs ≈ 7.5 µs of CPU per request here, more than half of what validating and calculating one
 * student costs (it re-prototypes the request and response, walks its layer stack and builds a final handler
 * per request).
 * The lane does the same work for this one route, through the same functions as the Express chain, in the same
 * order:
 *   request id and request log    startRequestLog (src/api/http-log.ts)
 *   request duration metric       observeRouteDuration (src/metrics.ts), route label "/v1/calculate"
 *   CORS, when configured         the same `cors` handler (src/api/cors.ts)
 *   X-Rule-Set                    the rule set header of every calculation path
 *   the answer                    answerCalculation (src/api/calculate-route.ts): 415/413/400/422/200
 * so a client cannot tell which way its request went (test/api/front-door.test.ts compares the two).
 *
 * Everything else goes to Express, which answers it as before: other methods (405, OPTIONS preflights), a URL
 * with a query string, a trailing slash or other letter case, and — when guards are configured (AUTH_MODE=required
 * or RATE_LIMIT) — every request, since access control and rate limits are Express middleware.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AppContext } from './context.ts';
import { createApp, RULE_SET_HEADER, type AppExtras } from './app.ts';
import { answerCalculation, CALCULATE_PATH } from './calculate-route.ts';
import { corsHandler } from './cors.ts';
import { startRequestLog } from './http-log.ts';
import { sendError } from './error-envelope.ts';
import { observeRouteDuration } from '../metrics.ts';
import { RULE_SET_ID } from '../domain/rule-set.ts';

/** True for the requests the fast lane answers: exactly `POST /v1/calculate` (no query, no trailing slash). */
export function takesFastLane(req: IncomingMessage): boolean {
  return req.url === CALCULATE_PATH && req.method === 'POST';
}

/**
 * The fast lane: POST /v1/calculate answered without Express, or undefined when guards are configured (they are
 * Express middleware, so every request then goes through Express).
 */
export function calculateFastLane(ctx: AppContext, extra: AppExtras = {}): RequestListener | undefined {
  if ((extra.guards ?? []).length > 0) return undefined;
  const limit = ctx.config.MAX_BODY_BYTES;
  const cors = corsHandler(ctx.config.CORS_ORIGINS ?? []);
  const calculate = (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader(RULE_SET_HEADER, RULE_SET_ID);
    void answerCalculation(req, res, limit);
  };
  return (req, res) => {
    try {
      startRequestLog(ctx.logger, req, res, CALCULATE_PATH);
      observeRouteDuration(res, 'POST', CALCULATE_PATH);
      if (cors === undefined) calculate(req, res);
      else cors(req, res, () => calculate(req, res));
    } catch (err) {
      sendError(res, err);
    }
  };
}

/** The request listener of the whole service (server.ts; tests and benchmarks serve the same). */
export function createRequestListener(ctx: AppContext, extra: AppExtras = {}): RequestListener {
  const app = createApp(ctx, extra);
  const lane = calculateFastLane(ctx, extra);
  if (lane === undefined) return app;
  return (req, res) => {
    if (takesFastLane(req)) lane(req, res);
    else void app(req, res);
  };
}
