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
  const media = parseMediaType(header);
  if (media === null || !JSON_TYPE.test(media.type)) return false;
  return media.charsets.every((c) => UTF8_CHARSET.test(c));
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

/** Reads the whole body, at most `limit` bytes. Rejects with an AppError (413) or the stream's error. */
export function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return refuse(req, res, limit, 0);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    /** Settles once: the body, an error, or — over the limit — the 413 after the rest is drained. */
    const finish = (outcome: Buffer | Error | Promise<never>) => {
      if (done) return;
      done = true;
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('aborted', onAborted);
      if (outcome instanceof Promise) outcome.catch(reject);
      else if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(refuse(req, res, limit, size));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onError = (err: unknown) => finish(err instanceof Error ? err : new Error(String(err)));
    const onAborted = () => finish(new Error('request aborted by the client'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Content type check, size-limited read, strict UTF-8 decoding and JSON.parse. Resolves to a plain JSON object.
 */
export async function readJsonObject(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<Record<string, unknown>> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw appError('JSON_CONTENT_TYPE');
  }
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw appError('JSON_CONTENT_ENCODING');
  }
  const bytes = await readBody(req, res, limit);
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
