/**
 * POST /v1/calculate: one student, JSON in, JSON out.
 *   415 → 413 → 400 (src/api/json-body.ts) → 422 (src/schema/request.ts, every offending field) → 200.
 * Any other failure is a 500 internal_error (src/api/error-envelope.ts).
 *
 * `answerCalculation` works on Node's own request and response: the Express route below and the fast lane of
 * src/api/front-door.ts answer with the same function.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router } from 'express';
import type { AppContext } from './context.ts';
import { calculate } from '../domain/calculate.ts';
import { parseCalculationRequest } from '../schema/request.ts';
import { readJsonObject } from './json-body.ts';
import { sendError, validationFailure } from './error-envelope.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export const CALCULATE_PATH = '/v1/calculate';

/** Reads, validates and calculates one student; answers 200 with the result or the error envelope. Never rejects. */
export async function answerCalculation(req: IncomingMessage, res: ServerResponse, limit: number): Promise<void> {
  try {
    const body = await readJsonObject(req, res, limit);
    const parsed = parseCalculationRequest(body);
    if (!parsed.ok) {
      sendError(res, validationFailure(parsed.fieldErrors));
      return;
    }
    const json = JSON.stringify(calculate(parsed.value));
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end(json);
  } catch (err) {
    sendError(res, err);
  }
}

export function calculateRouter(ctx: AppContext): Router {
  const router = Router();
  const limit = ctx.config.MAX_BODY_BYTES;
  router.post(CALCULATE_PATH, (req, res) => answerCalculation(req, res, limit));
  router.all(CALCULATE_PATH, methodNotAllowed('POST'));
  return router;
}
