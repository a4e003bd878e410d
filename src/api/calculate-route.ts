/**
 * POST /v1/calculate: one student, JSON in, JSON out.
 *   guards (401/429, when configured) → 415 → 413 → 400 (src/api/json-body.ts) → 422 (src/schema/request.ts, every
 *   offending field) → 200. Any other failure is a 500 internal_error (src/api/error-envelope.ts).
 *
 * One handler answers it in every configuration, `calculateHandler`, on Node's own request and response: the front
 * door (src/api/front-door.ts) calls it for the exact URL before Express, and the app (src/api/app.ts) routes the
 * other spellings of the same route (a query string, the absolute form) to it first in its stack. It does in one
 * pass what the Express chain does for the other routes, with the same functions:
 *   request id                    requestIdOf (src/api/request-id.ts): the client's sanitised id or a UUID
 *   request log line and metric   one 'close' listener (a response always closes, after 'finish' when it was
 *                                 sent): logRequest (src/api/http-log.ts) and the route's duration series
 *                                 (src/metrics.ts), route label "/v1/calculate"
 *   CORS, when configured         the same `cors` handler (src/api/cors.ts)
 *   guards, when configured       the access control and rate limits that the app mounts on /v1, the same
 *                                 functions in the same order (runGuards); they work on Node's request and response
 *   the answer                    checkJsonHeaders → collectBody → jsonObjectOf → calculationJson; the 200's
 *                                 headers (X-Request-Id, X-Rule-Set, Content-Type, Cache-Control, Content-Length)
 *                                 written at once by writeHead; a refusal through sendError, with X-Request-Id and
 *                                 X-Rule-Set as on every answer of the calculation paths
 * Why not an Express route: on this route the per-request machinery cost more than validating and calculating the
 * student (Express re-prototypes the request and response, walks its layer stack and builds a final handler per
 * request, ≈ 7.5 µs; each middleware adds a listener and a `setHeader`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Router, type RequestHandler } from 'express';
import type { AppContext } from './context.ts';
import { calculate } from '../domain/calculate.ts';
import { RULE_SET_ID } from '../domain/rule-set.ts';
import { durationSeriesOf } from '../metrics.ts';
import { parseCalculationRequest, type ParseOptions } from '../schema/request.ts';
import { corsHandler } from './cors.ts';
import { sendError, validationFailure } from './error-envelope.ts';
import { logRequest } from './http-log.ts';
import { checkJsonHeaders, collectBody, jsonObjectOf } from './json-body.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import { ROUTER_OPTIONS } from './routing.ts';

export const CALCULATE_PATH = '/v1/calculate';
/** The Content-Type of the JSON answers (the error envelope's too, src/api/error-envelope.ts). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** The response header naming the rule set of a calculation (rules.md §8a). */
export const RULE_SET_HEADER = 'X-Rule-Set';

/**
 * The body of the 200 answer for a request's JSON object: validated (an AppError 422 naming every offending field
 * otherwise), calculated and serialised. `options.policy`: the deployment's default school policy (SOR_POLICY),
 * which the request's own `policy` overrides option by option (see `jsonParseOptions`).
 */
export function calculationJson(body: Record<string, unknown>, options?: ParseOptions): string {
  const parsed = parseCalculationRequest(body, options);
  if (!parsed.ok) throw validationFailure(parsed.fieldErrors);
  return JSON.stringify(calculate(parsed.value));
}

/** The parse options of the JSON doors: the deployment's default policy (SOR_POLICY), built once per app. */
export function jsonParseOptions(config: Pick<AppContext['config'], 'SOR_POLICY'>): ParseOptions {
  return config.SOR_POLICY === undefined ? {} : { policy: config.SOR_POLICY };
}

/** The handler of POST /v1/calculate: never rejects, never calls a next handler. */
export type CalculateHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Runs `guards` in order, each as middleware (`next()` to pass, `next(err)` to fail, or it answers itself), then
 * calls `pass`; `fail` gets the error a guard passed to `next`. The guards are the app's (src/api/access-control.ts,
 * mounted on /v1 by src/api/app.ts), written against Node's request and response, so they run here unchanged.
 */
export function runGuards(
  guards: readonly RequestHandler[],
  req: IncomingMessage,
  res: ServerResponse,
  pass: () => void,
  fail: (err: unknown) => void,
): void {
  let i = 0;
  const next = (err?: unknown) => {
    if (err !== undefined && err !== null) {
      fail(err);
      return;
    }
    const guard = guards[i++];
    if (guard === undefined) {
      pass();
      return;
    }
    try {
      // The guards read only what Node's request and response have (auth.ts, rate-limit.ts).
      void guard(req as Parameters<RequestHandler>[0], res as Parameters<RequestHandler>[1], next);
    } catch (e) {
      fail(e);
    }
  };
  next();
}

/** The one handler of POST /v1/calculate (see the top of this file), with the app's /v1 guards in front. */
export function calculateHandler(ctx: AppContext, guards: readonly RequestHandler[] = []): CalculateHandler {
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

  // With guards, the two headers of every answer go on first: a guard's own refusal (401, 429) carries them too.
  const guarded =
    guards.length === 0
      ? answer
      : (req: IncomingMessage, res: ServerResponse, id: string) => {
          res.setHeader(REQUEST_ID_HEADER, id);
          res.setHeader(RULE_SET_HEADER, RULE_SET_ID);
          runGuards(
            guards,
            req,
            res,
            () => answer(req, res, id),
            (err) => refuse(res, id, err),
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
      if (cors === undefined) guarded(req, res, id);
      else cors(req, res, () => guarded(req, res, id));
    } catch (err) {
      refuse(res, id, err);
    }
  };
}

/**
 * The 405 of the other methods of /v1/calculate (and 204 for OPTIONS), mounted with the other routes, after the
 * guards. POST is the app's first route, to the one handler (src/api/app.ts).
 */
export function calculateMethodsRouter(): Router {
  const router = Router(ROUTER_OPTIONS);
  router.all(CALCULATE_PATH, methodNotAllowed('POST'));
  return router;
}
