/**
 * Reading a JSON request body safely, with the exact statuses of rules.md §8:
 *   415 unsupported_media_type  content type is not application/json or application/*+json (a charset, when
 *                               given, must be UTF-8), or the body is content-encoded;
 *   413 validation_error        body over the limit (checked against Content-Length first, then while reading);
 *   400 invalid_json            not UTF-8 (strict decoding), not JSON, or not a JSON object.
 *
 * JSON.parse keeps duplicate keys' last value and stores a `__proto__` key as an ordinary own property (it never
 * touches a prototype); the request schema then reports it as an unknown field. V8's JSON.parse is not
 * recursive, so deeply nested input cannot overflow the stack.
 */
import { parseMediaType } from './media-type.ts';
import { closeAfterAnswer, drainBody } from './drain-body.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AppError, appError } from '../errors.ts';
import { parseJsonExact } from './json-exact.ts';

const JSON_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.+-]+\+json)$/;
const UTF8_CHARSET = /^utf-?8$/i;

/** True for `application/json` and `application/*+json`, with optional parameters; a charset must be UTF-8. */
export function isJsonContentType(header: string | undefined): boolean {
  // What nearly every client sends, answered without splitting the header (the same answer as below).
  if (header === 'application/json') return true;
  const media = parseMediaType(header);
  if (media === null || !JSON_TYPE.test(media.type)) return false;
  return media.charsets.every((c) => UTF8_CHARSET.test(c));
}

/** The 415s of a JSON body, from the headers alone: not a UTF-8 JSON media type, or content-encoded. */
export function checkJsonHeaders(req: IncomingMessage): void {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw appError('JSON_CONTENT_TYPE');
  }
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw appError('JSON_CONTENT_ENCODING');
  }
}

export function bodyTooLarge(limit: number): AppError {
  return appError('BODY_TOO_LARGE', { limit });
}

/**
 * How much of a refused JSON body is still read and thrown away so that a client that sends everything before
 * reading gets the 413 (src/api/drain-body.ts); beyond this bound the connection is closed after the answer.
 */
export const REFUSED_BODY_DRAIN_BYTES = 64 * 1024 * 1024;

/** Drains the rest of a body over `limit` (`read` bytes of it read so far), then rejects with the 413. */
async function refuse(req: IncomingMessage, res: ServerResponse, limit: number, read: number): Promise<never> {
  req.removeAllListeners('data');
  const complete = await drainBody(req, limit + REFUSED_BODY_DRAIN_BYTES, read);
  if (!complete) closeAfterAnswer(req, res);
  throw bodyTooLarge(limit);
}

/**
 * Reads the whole body, at most `limit` bytes, and calls `onBody` with it, or `onError` once with an AppError (413,
 * after the rest of an oversized body is drained) or the stream's error. Exactly one of the two is called, once.
 * Callbacks rather than a promise: the calculate handler (src/api/calculate-route.ts) answers from the 'end' event
 * itself.
 */
export function collectBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  onBody: (body: Buffer) => void,
  onError: (err: unknown) => void,
): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    refuse(req, res, limit, 0).catch(onError);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const onData = (chunk: Buffer) => {
    if (done) return;
    size += chunk.length;
    if (size <= limit) {
      chunks.push(chunk);
      return;
    }
    done = true;
    refuse(req, res, limit, size).catch(onError);
  };
  const onEnd = () => {
    if (done) return;
    done = true;
    onBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  };
  const fail = (err: unknown) => {
    if (done) return;
    done = true;
    onError(err instanceof Error ? err : new Error(String(err)));
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', fail);
  req.on('aborted', () => fail(new Error('request aborted by the client')));
}

/** Reads the whole body, at most `limit` bytes. Rejects with an AppError (413) or the stream's error. */
export function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => collectBody(req, res, limit, resolve, reject));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8 decoding and JSON.parse of a whole body (400s), which must be a JSON object (400 otherwise). */
export function jsonObjectOf(bytes: Buffer): Record<string, unknown> {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw appError('BODY_NOT_UTF8');
  }
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch {
    // The parser's own message quotes the body: never echoed.
    throw appError('BODY_NOT_JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw appError('BODY_NOT_OBJECT');
  }
  return value as Record<string, unknown>;
}

/**
 * Content type check, size-limited read, strict UTF-8 decoding and JSON.parse. Resolves to a plain JSON object.
 */
export async function readJsonObject(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<Record<string, unknown>> {
  checkJsonHeaders(req);
  return jsonObjectOf(await readBody(req, res, limit));
}
