/**
 * gzip for large answers (bulk results, job results): used when the client's Accept-Encoding prefers gzip to
 * identity. Streamed: a zlib stream in front of the response, with backpressure (the pipeline awaits 'drain' on
 * it). Every such answer says `Vary: Accept-Encoding`, compressed or not.
 */
import type { Request, Response } from 'express';
import { createGzip, type Gzip } from 'node:zlib';
import type { JobStore, ResultPart } from '../jobs/job-store.ts';

/** True when the client accepts gzip and prefers it to identity. */
export function acceptsGzip(req: Request): boolean {
  return req.acceptsEncodings('gzip', 'identity') === 'gzip';
}

/** Marks a response as depending on Accept-Encoding and, when `gzip`, as gzip-encoded. */
export function setEncodingHeaders(res: Response, gzip: boolean): void {
  res.setHeader('Vary', 'Accept-Encoding');
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
}

/** A gzip stream whose output goes to `res` (ended with it); destroy it when the answer fails. */
export function gzipInto(res: Response): Gzip {
  const gzip = createGzip();
  gzip.pipe(res);
  gzip.on('error', () => res.destroy());
  return gzip;
}

/**
 * A job's result bytes (one part: the result, the other format, the errors-only CSV) for this request, with the
 * encoding headers set: results are stored gzipped, so a client that accepts gzip gets the stored bytes as they
 * are (no decompression), any other the decompressed result.
 */
export function resultBytes(
  req: Request,
  res: Response,
  store: JobStore,
  id: string,
  part: ResultPart,
): AsyncIterable<Buffer> {
  const gzipped = acceptsGzip(req) && store.readResultGzip !== undefined;
  setEncodingHeaders(res, gzipped);
  return gzipped ? store.readResultGzip!(id, part) : store.readResult(id, part);
}
