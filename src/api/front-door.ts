/**
 * The service's HTTP request listener: the Express app (src/api/app.ts) for every request, except the real-time
 * lookup — `POST /v1/calculate` with exactly that URL — which takes a fast lane.
 *
 * Why: on this route the per-request machinery cost more than validating and calculating the student. Express
 * re-prototypes the request and response, walks its layer stack and builds a final handler per request (≈ 7.5 µs);
 * the chain's own steps add promises, a listener per concern and a `setHeader` per header. The lane does the same
 * work, with the same functions, in one pass:
 *   request id                    requestIdOf (src/api/request-id.ts): the client's sanitised id or a UUID
 *   CORS, when configured         the same `cors` handler (src/api/cors.ts)
 *   the answer                    checkJsonHeaders → collectBody → jsonObjectOf (src/api/json-body.ts) →
 *                                 calculationJson (src/api/calculate-route.ts): 415/413/400/422/200; the 200's
 *                                 headers (X-Request-Id, X-Rule-Set, Content-Type, Cache-Control, Content-Length)
 *                                 written at once by writeHead; a refusal through sendError, as Express's route
 *   request log line and metric   one 'close' listener (a response always closes, after 'finish' when it was
 *                                 sent): logRequest (src/api/http-log.ts) and the route's duration series
 *                                 (src/metrics.ts), route label "/v1/calculate"
 * so a client cannot tell which way its request went (test/api/front-door.test.ts compares the two).
 *
 * Everything else goes to Express, which answers it as before: other methods (405, OPTIONS preflights), a URL
 * with a query string (the same route), a trailing slash, other letter case or any other spelling (404: routing
 * is case-sensitive and strict, src/api/routing.ts), and — when guards are configured (AUTH_MODE=required or
 * RATE_LIMIT) — every request, since access control and rate limits are mounted on /v1 in Express: no lane then,
 * nothing passes by them (test/security/route-walk.test.ts).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AppContext } from './context.ts';
import { createApp, RULE_SET_HEADER, type AppExtras } from './app.ts';
import { CALCULATE_PATH, calculationJson, JSON_CONTENT_TYPE, jsonParseOptions } from './calculate-route.ts';
import { corsHandler } from './cors.ts';
import { logRequest } from './http-log.ts';
import { checkJsonHeaders, collectBody, jsonObjectOf } from './json-body.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import { sendError } from './error-envelope.ts';
import { durationSeriesOf } from '../metrics.ts';
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
  const { logger } = ctx;
  const limit = ctx.config.MAX_BODY_BYTES;
  const parseOptions = jsonParseOptions(ctx.config); // SOR_POLICY, the requests' default policy
  const cors = corsHandler(ctx.config.CORS_ORIGINS ?? []);

  /** A refusal (or a failure): the envelope, with the headers every answer of this route carries. */
  const refuse = (res: ServerResponse, id: string, err: unknown) => {
    if (!res.headersSent) {
      res.setHeader(REQUEST_ID_HEADER, id);
      res.setHeader(RULE_SET_HEADER, RULE_SET_ID);
    }
    sendError(res, err);
  };

  const answer = (req: IncomingMessage, res: ServerResponse, id: string) => {
    try {
      checkJsonHeaders(req);
    } catch (err) {
      refuse(res, id, err);
      return;
    }
    collectBody(
      req,
      res,
      limit,
      (bytes) => {
        let json: string;
        try {
          json = calculationJson(jsonObjectOf(bytes), parseOptions);
        } catch (err) {
          refuse(res, id, err);
          return;
        }
        res.writeHead(200, [
          REQUEST_ID_HEADER,
          id,
          RULE_SET_HEADER,
          RULE_SET_ID,
          'Content-Type',
          JSON_CONTENT_TYPE,
          'Cache-Control',
          'no-store',
          'Content-Length',
          Buffer.byteLength(json),
        ]);
        res.end(json);
      },
      // A client that left (its connection is closed) can read no answer: its request is logged as aborted.
      (err) => {
        if (req.socket?.destroyed !== true) refuse(res, id, err);
      },
    );
  };

  return (req, res) => {
    const started = performance.now();
    let id = '';
    try {
      id = requestIdOf(req);
      (req as IncomingMessage & { id?: string }).id = id;
      res.on('close', () => {
        const durationMs = performance.now() - started;
        const sent = res.writableFinished;
        if (sent) durationSeriesOf(CALCULATE_PATH, 'POST', res.statusCode).observe(durationMs / 1000);
        logRequest(logger, id, 'POST', CALCULATE_PATH, res, durationMs, !sent);
      });
      if (cors === undefined) answer(req, res, id);
      else cors(req, res, () => answer(req, res, id));
    } catch (err) {
      refuse(res, id, err);
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
