/**
 * Request logging (pino-http): one line per request with id, method, path (never the query string), status and
 * duration. Bodies, query strings and headers (Authorization included) are never logged: student data stays out
 * of the logs. A 5xx line carries the error (with its stack) that the wire envelope hides.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import { stdSerializers, type Logger } from 'pino';
import { assignRequestId } from './request-id.ts';

const MAX_LOGGED_PATH = 256;

export function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path;
}

export function createHttpLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: assignRequestId,
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { id?: unknown }) => ({ id: req.id, method: req.method, path: pathOf(req.url) }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      err: stdSerializers.err,
    },
    customLogLevel: (_req, res, err) => (err !== undefined || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customAttributeKeys: { responseTime: 'durationMs' },
  });
}
