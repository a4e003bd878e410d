/**
 * CORS for browser-based SIS screens (the `cors` package): only when CORS_ORIGINS lists origins (or `*`); by
 * default no CORS header is sent and browsers keep other origins out. Preflight (OPTIONS) requests are answered
 * with 204. Responses expose the headers a client reads: X-Request-Id, X-Rule-Set, Retry-After, Location (and
 * X-Bulk-Runner, Content-Disposition, Idempotent-Replayed).
 */
import cors from 'cors';
import type { RequestHandler } from 'express';

export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-Rule-Set',
  'Retry-After',
  'Location',
  'X-Bulk-Runner',
  'Content-Disposition',
  'Idempotent-Replayed',
];

/** Preflight answers are cached by browsers this long (seconds). */
const PREFLIGHT_MAX_AGE = 600;

/** The CORS handler on Node's own request and response (the `cors` package's connect-style function). */
export type CorsHandler = ReturnType<typeof cors>;

/** The CORS middleware for `origins` (CORS_ORIGINS), or undefined when none are configured. */
export function corsMiddleware(origins: readonly string[]): RequestHandler | undefined {
  return corsHandler(origins) as RequestHandler | undefined;
}

/** The same, as the connect-style function the calculate handler (src/api/calculate-route.ts) calls. */
export function corsHandler(origins: readonly string[]): CorsHandler | undefined {
  if (origins.length === 0) return undefined;
  const any = origins.includes('*');
  return cors({
    origin: any ? '*' : [...origins],
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'Content-Encoding', 'Accept', 'Authorization', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    optionsSuccessStatus: 204,
  });
}
