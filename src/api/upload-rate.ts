/**
 * The minimum body rate of an upload (UPLOAD_MIN_BYTES_PER_SEC over each UPLOAD_RATE_WINDOW_MS): a body that
 * arrives slower holds a socket (and, while spooling, a spool file) for nothing, and enough of them exhaust the
 * process's file descriptors. From the start of the upload, every window must bring at least
 * `bytesPerSecond × window` bytes of the body (the first window is the grace period of a slow start), until the
 * body has ended. A body that falls short is answered (408 request_timeout, or the refusal the service was
 * already draining the body for) with `Connection: close`, and its connection is closed after the answer; the
 * upload's reader then sees the connection gone and removes its spool file.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { appError } from '../errors.ts';
import { sendError } from './error-envelope.ts';

export interface MinBodyRate {
  /** UPLOAD_MIN_BYTES_PER_SEC (0: no minimum). */
  bytesPerSecond: number;
  /** UPLOAD_RATE_WINDOW_MS. */
  windowMs: number;
}

/** How long the answer to a cut-off upload may take to go out before its connection is closed anyway. */
const ANSWER_GRACE_MS = 2000;

interface Guard {
  /** What to answer when the body is too slow (the refusal being drained for); undefined: the 408. */
  answer?: unknown;
}

const guards = new WeakMap<IncomingMessage, Guard>();

/**
 * Starts guarding the rate of `req`'s body (once per request; later calls return the same guard) until the body
 * ends or the connection closes. `bytesRead` tells how many body bytes have been read so far.
 */
export function guardBodyRate(
  req: IncomingMessage,
  res: ServerResponse | undefined,
  rate: MinBodyRate | undefined,
  bytesRead: () => number,
): Guard {
  const existing = guards.get(req);
  if (existing !== undefined) return existing;
  const guard: Guard = {};
  guards.set(req, guard);
  if (rate === undefined || rate.bytesPerSecond <= 0 || req.readableEnded) return guard;
  const needed = (rate.bytesPerSecond * rate.windowMs) / 1000;
  let before = bytesRead();
  const timer = setInterval(() => {
    if (req.readableEnded || req.destroyed) {
      stop();
      return;
    }
    const now = bytesRead();
    if (now - before >= needed) {
      before = now;
      return;
    }
    stop();
    cutOff(req, res, guard.answer ?? tooSlow(rate));
  }, rate.windowMs);
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    req.off('end', stop);
    req.off('close', stop);
  };
  req.on('end', stop);
  req.on('close', stop);
  return guard;
}

/** Sets what a guarded request is answered when its body turns out too slow (a refusal being drained for). */
export function answerWhenTooSlow(req: IncomingMessage, answer: unknown): void {
  const guard = guards.get(req);
  if (guard !== undefined) guard.answer = answer;
}

function tooSlow(rate: MinBodyRate): unknown {
  return appError('UPLOAD_TOO_SLOW', { minRate: rate.bytesPerSecond, seconds: rate.windowMs / 1000 });
}

/** Answers `answer` if the response has not started, then closes the connection (at once if it has). */
function cutOff(req: IncomingMessage, res: ServerResponse | undefined, answer: unknown): void {
  const socket = req.socket;
  // Once answered, the request is no longer the connection's: its reader would wait for bytes forever.
  socket.once('close', () => {
    if (!req.readableEnded) req.destroy(new Error('the upload was cut off for arriving too slowly'));
  });
  if (res === undefined || res.headersSent || res.destroyed) {
    socket.destroy();
    return;
  }
  res.setHeader('Connection', 'close');
  res.once('finish', () => socket.destroySoon());
  setTimeout(() => socket.destroy(), ANSWER_GRACE_MS).unref();
  sendError(res, answer);
}
