/**
 * X-Request-Id: a client's id is kept when it is usable (sanitised to at most 128 safe characters), otherwise
 * the service generates a UUID. The id is echoed on every response and binds every log line of the request.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'X-Request-Id';
export const MAX_REQUEST_ID_LENGTH = 128;
const UNSAFE = /[^A-Za-z0-9._~:/+=@-]/g;

/** Safe characters only (letters, digits and `._~:/+=@-`), at most 128 of them; null when nothing is left. */
export function sanitiseRequestId(raw: string | string[] | undefined): string | null {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value.length === 0) return null;
  // Bound the work before the regex: a header can be up to the server's header size limit.
  const cleaned = value
    .slice(0, MAX_REQUEST_ID_LENGTH * 4)
    .replace(UNSAFE, '')
    .slice(0, MAX_REQUEST_ID_LENGTH);
  return cleaned.length > 0 ? cleaned : null;
}

/** The request's id: the client's usable X-Request-Id, sanitised, else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  return sanitiseRequestId(req.headers['x-request-id']) ?? randomUUID();
}

/** Chooses the request's id and sets the response header. Used by the request log middleware (http-log.ts). */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const id = requestIdOf(req);
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
