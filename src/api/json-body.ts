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
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AppError, appError } from '../errors.ts';
import { parseJsonExact } from './json-exact.ts';

const JSON_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.+-]+\+json)$/;
const UTF8_CHARSET = /^"?utf-?8"?$/i;

/** True for `application/json` and `application/*+json`, with optional parameters; a charset must be UTF-8. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const parts = header.split(';');
  const type = (parts[0] ?? '').trim().toLowerCase();
  if (!JSON_TYPE.test(type)) return false;
  for (let i = 1; i < parts.length; i++) {
    const param = (parts[i] ?? '').trim();
    const eq = param.indexOf('=');
    if (eq === -1) continue;
    if (param.slice(0, eq).trim().toLowerCase() === 'charset' && !UTF8_CHARSET.test(param.slice(eq + 1).trim())) {
      return false;
    }
  }
  return true;
}

export function bodyTooLarge(limit: number): AppError {
  return appError('BODY_TOO_LARGE', { limit });
}

/**
 * How much of a refused body is still read and thrown away so that the client can read the answer. Clients that
 * send the whole body before reading (Python urllib and requests, Java, .NET, PowerShell) see a broken pipe
 * instead of the 413 when the connection closes under them; beyond this bound the connection is cut.
 */
export const REFUSED_BODY_DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * After a 413 the rest of the upload is read and discarded, up to REFUSED_BODY_DRAIN_BYTES, so the client
 * receives the answer instead of a reset; the connection closes once both the answer is sent and the body is read.
 */
export function discardRest(req: IncomingMessage, res: ServerResponse, bound = REFUSED_BODY_DRAIN_BYTES): void {
  res.setHeader('Connection', 'close');
  req.removeAllListeners('data');
  req.resume();
  if (req.complete) return;
  const socket = req.socket;
  let drained = 0;
  const onData = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > bound) socket.destroy();
  };
  socket.on('data', onData);
  // Node ends a `Connection: close` socket as soon as the answer is written, while the client may still be
  // sending (it then sees a broken pipe, not the answer): the end waits until the body has been read.
  const end = socket.end.bind(socket);
  let bodyDone = false;
  let endArgs: Parameters<typeof socket.end> | undefined;
  const onBodyDone = () => {
    if (bodyDone) return;
    bodyDone = true;
    socket.removeListener('data', onData);
    socket.end = end;
    if (endArgs !== undefined) end(...endArgs);
  };
  req.once('end', onBodyDone);
  req.once('close', onBodyDone);
  socket.once('close', onBodyDone);
  socket.end = ((...args: Parameters<typeof socket.end>) => {
    if (bodyDone) return end(...args);
    endArgs = args;
    return socket;
  }) as typeof socket.end;
}

/** Reads the whole body, at most `limit` bytes. Rejects with an AppError (413) or the stream's error. */
export function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    discardRest(req, res);
    return Promise.reject(bodyTooLarge(limit));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: unknown, body?: Buffer) => {
      if (done) return;
      done = true;
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('aborted', onAborted);
      if (err !== undefined) reject(err);
      else resolve(body ?? Buffer.alloc(0));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        discardRest(req, res);
        finish(bodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    const onError = (err: unknown) => finish(err);
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
