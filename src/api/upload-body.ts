/**
 * The body of an upload as the spool and the checks see it: the request's bytes as they arrive, or, with
 * `Content-Encoding: gzip`, their decompressed bytes, taken from zlib only as fast as they are used (zlib is fed
 * only as fast as it is read), so a small body that expands a lot never expands further than what is read.
 */
import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
import { appError } from '../errors.ts';

/** Counts the request's own (compressed) bytes as they are read: the drain bound counts from them. */
export type ByteCounter = (bytes: number) => void;

/** The request's body bytes (counted as they are read), as they arrive. */
async function* plainBody(req: IncomingMessage, count: ByteCounter): AsyncGenerator<Buffer> {
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    const buf = chunk as Buffer;
    count(buf.length);
    yield buf;
  }
}

/** A writable as far as waiting on it goes (a stream, or busboy's parser). */
interface Waitable {
  on(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/** Resolves once a writable that asked to wait ('drain') may be written again, or has closed. */
export function drainedOrClosed(stream: Waitable): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/**
 * The decompressed bytes of a gzip body, as they come out of zlib (which is fed only as fast as they are taken).
 * A body that is not gzip is an AppError 400. Stopping early stops feeding zlib; the rest of the body is left
 * for rejectUpload to drain.
 */
async function* gunzipBody(req: IncomingMessage, count: ByteCounter): AsyncGenerator<Buffer> {
  const gunzip = createGunzip();
  let stop = false;
  const feed = (async () => {
    try {
      for await (const chunk of req.iterator({ destroyOnReturn: false })) {
        const buf = chunk as Buffer;
        count(buf.length);
        if (stop || gunzip.destroyed) break;
        if (!gunzip.write(buf)) await drainedOrClosed(gunzip);
        if (stop || gunzip.destroyed) break;
      }
      if (!stop && !gunzip.destroyed) gunzip.end();
    } catch (err) {
      gunzip.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  })();
  try {
    for await (const out of gunzip) yield out as Buffer;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('Z_')) {
      throw appError('UPLOAD_GZIP_INVALID', { detail: (err as Error).message });
    }
    throw err;
  } finally {
    stop = true;
    gunzip.destroy();
    await feed;
  }
}

/** The body as the spool and the checks see it: decompressed when it is gzip. */
export function bodyBytes(req: IncomingMessage, gzip: boolean, count: ByteCounter): AsyncGenerator<Buffer> {
  return gzip ? gunzipBody(req, count) : plainBody(req, count);
}
