/**
 * The service's HTTP request listener: the real-time lookup — `POST /v1/calculate` with exactly that URL — goes
 * straight to its one handler (calculateHandler, src/api/calculate-route.ts), which runs the configured guards
 * (access control, rate limits) itself; every other request goes to the Express app (src/api/app.ts).
 *
 * Why: on this route Express's per-request machinery cost more than validating and calculating the student
 * (see calculate-route.ts). The app routes the other spellings of the same route (a query string, the absolute
 * form) to the same handler, so a client cannot tell which way its request went. Any other method (405, OPTIONS
 * preflights), a trailing slash, other letter case or any other spelling (404: routing is case-sensitive and
 * strict, src/api/routing.ts) is answered by Express (test/api/route-walk.test.ts).
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import type { AppContext } from './context.ts';
import { createApp, type AppExtras } from './app.ts';
import { CALCULATE_PATH, calculateHandler } from './calculate-route.ts';

/** True for the requests the front door hands to the calculate handler: exactly `POST /v1/calculate`. */
export function takesFastLane(req: IncomingMessage): boolean {
  return req.url === CALCULATE_PATH && req.method === 'POST';
}

/** The request listener of the whole service (server.ts; tests and benchmarks serve the same). */
export function createRequestListener(ctx: AppContext, extra: AppExtras = {}): RequestListener {
  const calculate = calculateHandler(ctx, extra.guards);
  const app = createApp(ctx, extra, calculate);
  return (req, res) => {
    if (takesFastLane(req)) calculate(req, res);
    else void app(req, res);
  };
}
