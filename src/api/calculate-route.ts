/**
 * POST /v1/calculate: one student, JSON in, JSON out.
 *   415 → 413 → 400 (src/api/json-body.ts) → 422 (src/schema/request.ts, every offending field) → 200.
 * Any other failure is a 500 internal_error (src/api/error-envelope.ts).
 */
import { Router } from 'express';
import type { AppContext } from './context.ts';
import { calculate } from '../domain/calculate.ts';
import { parseCalculationRequest } from '../schema/request.ts';
import { readJsonObject } from './json-body.ts';
import { sendError, validationFailure } from './error-envelope.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export const CALCULATE_PATH = '/v1/calculate';

export function calculateRouter(ctx: AppContext): Router {
  const router = Router();
  const limit = ctx.config.MAX_BODY_BYTES;

  router.post(CALCULATE_PATH, async (req, res) => {
    try {
      const body = await readJsonObject(req, res, limit);
      const parsed = parseCalculationRequest(body);
      if (!parsed.ok) {
        sendError(res, validationFailure(parsed.fieldErrors));
        return;
      }
      const json = JSON.stringify(calculate(parsed.value));
      res.status(200);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      res.end(json);
    } catch (err) {
      sendError(res, err);
    }
  });
  router.all(CALCULATE_PATH, methodNotAllowed('POST'));
  return router;
}
