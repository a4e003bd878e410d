/**
 * POST /v1/calculate: one student, JSON in, JSON out.
 *   415 → 413 → 400 (src/api/json-body.ts) → 422 (src/schema/request.ts, every offending field) → 200.
 * Any other failure is a 500 internal_error (src/api/error-envelope.ts).
 *
 * `answerCalculation` works on Node's own request and response (the Express route below); the fast lane of
 * src/api/front-door.ts answers with the same pieces (checkJsonHeaders, collectBody, jsonObjectOf,
 * calculationJson) without a promise.
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
/** The Content-Type of the JSON answers (the error envelope's too, src/api/error-envelope.ts). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The body of the 200 answer for a request's JSON object: validated (an AppError 422 naming every offending field
 * otherwise), calculated and serialised.
 */
export function calculationJson(body: Record<string, unknown>): string {
  const parsed = parseCalculationRequest(body);
  if (!parsed.ok) throw validationFailure(parsed.fieldErrors);
  return JSON.stringify(calculate(parsed.value));
}

/** Reads, validates and calculates one student; answers 200 with the result or the error envelope. Never rejects. */
export async function answerCalculation(req: IncomingMessage, res: ServerResponse, limit: number): Promise<void> {
  try {
    const json = calculationJson(await readJsonObject(req, res, limit));
    res.statusCode = 200;
    res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    res.setHeader('Cache-Control', 'no-store');
    res.end(json);
  } catch (err) {
    sendError(res, err);
  }
}

export function calculateRouter(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const limit = ctx.config.MAX_BODY_BYTES;
  router.post(CALCULATE_PATH, (req, res) => answerCalculation(req, res, limit));
  router.all(CALCULATE_PATH, methodNotAllowed('POST'));
  return router;
}
