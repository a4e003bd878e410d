/**
 * Request logging: one line per request with id, method, path (never the query string), status and duration.
 * Bodies, query strings and headers (Authorization included) are never logged: student data stays out of the
 * logs. Nor are keys: with access control off a job id is the only key to a job's results, so the path logged is
 * the template of the route that answered (`/v1/jobs/:id/result`) with a tag of each parameter beside it
 * (`params: {id: '#3fa9c1d2'}`); a request no route answered (a 404, a guard's 401) has its path logged with
 * every segment of KEY_SEGMENT_LENGTH characters or more replaced by its tag (src/log-tag.ts: 8 hex digits of an
 * HMAC under a random key of this process, the same in every line of the same id, and no way back to the id).
 * A 5xx line carries the error (code, message, cause, stacks) that the wire envelope hides (error-envelope.ts
 * attaches it to the response as `res.err`); a request the client abandons before the answer is logged as aborted.
 *
 * Written directly on the response's 'finish'/'close' instead of through pino-http: the same line for a
 * fraction of the per-request cost (no child logger per request, no per-request serializer wrapping), which
 * matters on the real-time endpoint.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { keyTag } from '../log-tag.ts';
import { serializeError } from '../redact.ts';
import { routeTemplateOf } from '../metrics.ts';
import { assignRequestId } from './request-id.ts';

const MAX_LOGGED_PATH = 256;
/**
 * A path segment this long or longer is taken for a key and logged as its tag: job ids (52 characters), tokens
 * (41), UUIDs (36). The service's own literal segments are all shorter (the longest, `swagger-ui-bundle.js`, 20).
 */
export const KEY_SEGMENT_LENGTH = 24;

/**
 * The path of a request no route answered, as logged: without its query string, every segment that may be a key
 * replaced by its tag, cut to MAX_LOGGED_PATH characters.
 */
export function loggedPathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const masked = path
    .split('/')
    .map((segment) => (segment.length >= KEY_SEGMENT_LENGTH ? keyTag(segment) : segment))
    .join('/');
  return masked.length > MAX_LOGGED_PATH ? `${masked.slice(0, MAX_LOGGED_PATH)}…` : masked;
}

/** What the log says of a request's path: the route's template and its parameters' tags, or the masked path. */
export interface LoggedPath {
  path: string;
  params?: Record<string, string>;
}

/** The logged path of an Express request, once it has been answered (the route that answered it is known). */
export function describeRequestPath(req: Request, url: string): LoggedPath {
  const template = routeTemplateOf(req);
  if (template === undefined) return { path: loggedPathOf(url) };
  const params = req.params as Record<string, unknown> | undefined;
  let tags: Record<string, string> | undefined;
  for (const name in params) {
    const value = params[name];
    if (typeof value !== 'string') continue;
    (tags ??= {})[name] = keyTag(value);
  }
  return tags === undefined ? { path: template } : { path: template, params: tags };
}

type LoggedRequest = IncomingMessage & { id?: string };
type LoggedResponse = ServerResponse & { err?: unknown };

/**
 * Writes a request's line: `path` is the route's template (a string: the calculate handler's) or a LoggedPath,
 * `durationMs` from its start to its end, `aborted` when the client left before the answer was sent. A 5xx, or a
 * response carrying the error that the envelope hides (`res.err`: the AppError, with its code, message, cause and
 * stack), logs at error level; an aborted request at warn; every other at info.
 */
export function logRequest(
  logger: Logger,
  id: string,
  method: string | undefined,
  path: string | LoggedPath,
  res: ServerResponse,
  durationMs: number,
  aborted: boolean,
): void {
  const response = res as LoggedResponse;
  const line: Record<string, unknown> = {
    req: typeof path === 'string' ? { id, method, path } : { id, method, ...path },
    res: { statusCode: res.statusCode },
    durationMs: Math.round(durationMs * 1000) / 1000,
  };
  const err = response.err;
  if (err === undefined) {
    if (aborted) logger.warn(line, 'request aborted');
    else if (res.statusCode >= 500) logger.error(line, 'request failed');
    else logger.info(line, 'request completed');
    return;
  }
  line.err = err;
  if (aborted) errorLoggerOf(logger).warn(line, 'request aborted');
  else errorLoggerOf(logger).error(line, 'request failed');
}

/** Per logger, its child that serializes `err` with serializeError. */
const errorLoggers = new WeakMap<Logger, Logger>();

/**
 * The logger of a line that carries an error: `err` is serialized there, once, by serializeError (type, code,
 * message with its causes', stack; URLs and Redis arguments removed), whatever serializers the logger was made
 * with. (An error serialized before logging would be serialized again by a logger whose own `err` serializer is
 * serializeError, as the service's is, and logged as "[object Object]".)
 */
function errorLoggerOf(logger: Logger): Logger {
  let child = errorLoggers.get(logger);
  if (child === undefined)
    errorLoggers.set(logger, (child = logger.child({}, { serializers: { err: serializeError } })));
  return child;
}

/**
 * Gives the request its id (X-Request-Id, on the request as `id`) and logs its line once the response ends
 * ('finish') or the client abandons it ('close' first). `url` is the URL as received: routers rewrite `req.url`
 * while they run. The path is described when the line is written (describeRequestPath: by then the route that
 * answered is known). Used by the Express middleware below.
 */
export function startRequestLog(logger: Logger, req: Request, res: ServerResponse, url: string): void {
  const started = performance.now();
  const request = req as LoggedRequest;
  const id = assignRequestId(req, res);
  request.id = id;
  const method = req.method;

  // Plain listeners and a flag rather than once() on both events and removing the other: no wrapper per
  // listener and no listener-array search per request.
  let logged = false;
  const write = (aborted: boolean) => {
    if (logged) return;
    logged = true;
    logRequest(logger, id, method, describeRequestPath(req, url), res, performance.now() - started, aborted);
  };
  res.on('finish', () => write(false));
  res.on('close', () => write(!res.writableFinished));
}

export function createHttpLogger(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    startRequestLog(logger, req, res, req.originalUrl);
    next();
  };
}
