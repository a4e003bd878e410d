/**
 * The HTTP application: the one handler of POST /v1/calculate first (it does its own request id, log, metric,
 * CORS and guards), then request ids and request logs, the interface routes, the routers of the other modules
 * (bulk, jobs, ops), the 404 envelope and the one error middleware.
 *
 *   POST /v1/calculate        src/api/calculate-route.ts (calculateHandler; the front door, src/api/front-door.ts,
 *                             calls the same handler for the exact URL without Express)
 *   POST /v1/calculate/worksheet  src/api/worksheet-route.ts (JSON, HTML or PDF by Accept)
 *   POST /v1/calculate/compare    src/api/compare-route.ts (what-if scenarios against a base request)
 *   GET  /v1/openapi.json     built once per app from the zod schemas (src/api/openapi/document.ts)
 *   GET  /healthz, /readyz    src/api/health-route.ts
 *   GET  /, /assets, /docs    the page and the API reference: src/api/web-route.ts
 *   extra.routers             mounted in order, before the 404 handler (POST /mcp among them with MCP_HTTP=on,
 *                             behind the same guards as /v1)
 *
 * Every response of the calculation paths (/v1/calculate, /v1/calculate/bulk, /v1/jobs…) carries the rule set
 * that made it in `X-Rule-Set` (rules.md §8a), set here once rather than in each route (and by the calculate
 * handler for its own answers).
 *
 * Routing is case-sensitive and strict (ROUTER_OPTIONS of src/api/routing.ts, here and on every Router): a route answers
 * its path as written and nothing else, so `/V1/calculate`, `/v1/calculate/` or `/v1/c%61lculate` are 404s. The
 * guards (access control, rate limits) are mounted on `/v1` by the same router, after `GET /v1/openapi.json`
 * (open by design) and before every /v1 route; POST /v1/calculate, answered before them, runs the same guards
 * itself. A request that can reach a /v1 route passes them first, whatever router holds that route
 * (test/api/route-walk.test.ts walks every route and its other spellings).
 */
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { AppContext } from './context.ts';
import { appError } from '../errors.ts';
import { buildOpenApiDocument } from './openapi/document.ts';
import {
  calculateHandler,
  calculateMethodsRouter,
  CALCULATE_PATH,
  RULE_SET_HEADER,
  type CalculateHandler,
} from './calculate-route.ts';
import { worksheetRouter } from './worksheet-route.ts';
import { compareRouter } from './compare-route.ts';
import { errorMiddleware, sendError } from './error-envelope.ts';
import { healthRouter } from './health-route.ts';
import { createHttpLogger } from './http-log.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import { httpMetricsMiddleware } from '../metrics.ts';
import { RULE_SET_ID } from '../domain/rule-set.ts';
import { webRouter } from './web-route.ts';
import { corsMiddleware } from './cors.ts';
import { ROUTER_OPTIONS } from './routing.ts';

/** The calculation paths: single, bulk, and the async jobs (submit, status, result). */
const CALCULATION_PATHS = /^\/v1\/(?:calculate|jobs)(?:\/|$)/;

export interface AppExtras {
  /** Routers of other modules (bulk, jobs, ops), mounted in this order before the 404 handler. */
  routers?: Router[];
  /** Paths those routers add to the OpenAPI document (see buildOpenApiDocument). */
  openApiPaths?: ZodOpenApiPathsObject;
  /**
   * Access control and rate limits (src/api/access-control.ts): mounted on /v1, before every /v1 route, and run by
   * the calculate handler in front of its answer. Written against Node's own request and response.
   */
  guards?: RequestHandler[];
}

/** The mount of the guards: every /v1 path (a prefix match by the app's own, case-sensitive router). */
export const V1_PREFIX = '/v1';

export const OPENAPI_PATH = '/v1/openapi.json';

/** The MCP server over streamable HTTP (MCP_HTTP=on; src/mcp/http.ts): guarded as /v1 is. */
export const MCP_PATH = '/mcp';

/**
 * `calculate`: the one handler of POST /v1/calculate, when the caller (the front door) calls it too; built here
 * otherwise.
 */
export function createApp(
  ctx: AppContext,
  extra: AppExtras = {},
  calculate: CalculateHandler = calculateHandler(ctx, extra.guards),
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', ROUTER_OPTIONS.caseSensitive);
  app.set('strict routing', ROUTER_OPTIONS.strict);

  // Built once, at start-up: a schema problem stops the service instead of failing a request later.
  const openApiJson = JSON.stringify(
    buildOpenApiDocument({
      paths: extra.openApiPaths,
      limits: {
        maxBodyBytes: ctx.config.MAX_BODY_BYTES,
        bulkMaxBytes: ctx.config.BULK_MAX_BYTES,
        bulkMaxRows: ctx.config.BULK_MAX_ROWS,
      },
      auth: { required: ctx.config.AUTH_MODE === 'required', prefix: ctx.config.AUTH_TOKEN_PREFIX },
    }),
  );

  // On the app's own router (a Router of its own would answer OPTIONS /v1/calculate itself, with 200): the
  // handler does its own log, metric, CORS and guards, so it comes before the chain's.
  app.post(CALCULATE_PATH, (req, res) => calculate(req, res));
  app.use(createHttpLogger(ctx.logger));
  app.use(httpMetricsMiddleware());
  const cors = corsMiddleware(ctx.config.CORS_ORIGINS ?? []);
  if (cors !== undefined) app.use(cors);
  app.use((req, res, next) => {
    if (CALCULATION_PATHS.test(req.path)) res.setHeader(RULE_SET_HEADER, RULE_SET_ID);
    next();
  });
  // The interface's description is open to everyone (GET and HEAD); any other method on it is guarded, then 405.
  app.get(OPENAPI_PATH, (_req, res) => {
    res.status(200);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.end(openApiJson);
  });
  const guards = extra.guards ?? [];
  if (guards.length > 0) app.use(V1_PREFIX, ...guards);
  // The MCP door (a router of extra.routers when MCP_HTTP=on) answers student data as /v1 does: the same guards.
  if (guards.length > 0 && ctx.config.MCP_HTTP) app.use(MCP_PATH, ...guards);
  app.all(OPENAPI_PATH, methodNotAllowed('GET'));
  app.use(calculateMethodsRouter());
  app.use(worksheetRouter(ctx));
  app.use(compareRouter(ctx));

  app.use(healthRouter(ctx));
  // The aid officer's page (GET /, /assets) and the API reference (GET /docs): src/api/web-route.ts.
  app.use(webRouter());

  for (const router of extra.routers ?? []) app.use(router);

  app.use((_req, res) => {
    sendError(res, appError('NOT_FOUND'));
  });
  app.use(errorMiddleware);
  return app;
}
