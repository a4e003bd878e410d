/**
 * Request logging: one line per request with id, method, path (never the query string), status and duration.
 * Bodies, query strings and headers (Authorization included) are never logged: student data stays out of the
 * logs. A 5xx line carries the error (with its stack) that the wire envelope hides (error-envelope.ts attaches
 * it to the response as `res.err`); a request the client abandons before the answer is logged as aborted.
 *
 * Written directly on the response's 'finish'/'close' instead of through pino-http: the same line for a
 * fraction of the per-request cost (no child logger, no per-request serializer wrapping), which matters on the
 * real-time endpoint.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { serializeError } from '../redact.ts';
import { assignRequestId } from './request-id.ts';

const MAX_LOGGED_PATH = 256;

export function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path;
}

type LoggedRequest = IncomingMessage & { id?: string };
type LoggedResponse = ServerResponse & { err?: unknown };

/**
 * Writes a request's line: `durationMs` from its start to its end, `aborted` when the client left before the
 * answer was sent. A 5xx, or a response carrying the error that the envelope hides (`res.err`, with its stack),
 * logs at error level; an aborted request at warn; every other at info.
 */
export function logRequest(
  logger: Logger,
  id: string,
  method: string | undefined,
  path: string,
  res: ServerResponse,
  durationMs: number,
  aborted: boolean,
): void {
  const response = res as LoggedResponse;
  const line: Record<string, unknown> = {
    req: { id, method, path },
    res: { statusCode: res.statusCode },
    durationMs: Math.round(durationMs * 1000) / 1000,
  };
  if (response.err !== undefined) line.err = serializeError(response.err);
  if (aborted) logger.warn(line, 'request aborted');
  else if (response.err !== undefined || res.statusCode >= 500) logger.error(line, 'request failed');
  else logger.info(line, 'request completed');
}

/**
 * Gives the request its id (X-Request-Id, on the request as `id`) and logs its line once the response ends
 * ('finish') or the client abandons it ('close' first). `url` is the URL as received: routers rewrite `req.url`
 * while they run. Used by the Express middleware below.
 */
export function startRequestLog(logger: Logger, req: IncomingMessage, res: ServerResponse, url: string): void {
  const started = performance.now();
  const request = req as LoggedRequest;
  const id = assignRequestId(req, res);
  request.id = id;
  const path = pathOf(url);
  const method = req.method;

  // Plain listeners and a flag rather than once() on both events and removing the other: no wrapper per
  // listener and no listener-array search per request.
  let logged = false;
  const write = (aborted: boolean) => {
    if (logged) return;
    logged = true;
    logRequest(logger, id, method, path, res, performance.now() - started, aborted);
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
