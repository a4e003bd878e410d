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
import { parseCalculationRequest, type ParseOptions } from '../schema/request.ts';
import { readJsonObject } from './json-body.ts';
import { sendError, validationFailure } from './error-envelope.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export const CALCULATE_PATH = '/v1/calculate';
/** The Content-Type of the JSON answers (the error envelope's too, src/api/error-envelope.ts). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The body of the 200 answer for a request's JSON object: validated (an AppError 422 naming every offending field
 * otherwise), calculated and serialised. `options.policy`: the deployment's default school policy (SOR_POLICY),
 * which the request's own `policy` overrides option by option (see `jsonParseOptions`).
 */
export function calculationJson(body: Record<string, unknown>, options?: ParseOptions): string {
  const parsed = parseCalculationRequest(body, options);
  if (!parsed.ok) throw validationFailure(parsed.fieldErrors);
  return JSON.stringify(calculate(parsed.value));
}

/** The parse options of the JSON doors: the deployment's default policy (SOR_POLICY), built once per app. */
export function jsonParseOptions(config: Pick<AppContext['config'], 'SOR_POLICY'>): ParseOptions {
  return config.SOR_POLICY === undefined ? {} : { policy: config.SOR_POLICY };
}

/** Reads, validates and calculates one student; answers 200 with the result or the error envelope. Never rejects. */
export async function answerCalculation(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  options?: ParseOptions,
): Promise<void> {
  try {
    const json = calculationJson(await readJsonObject(req, res, limit), options);
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
  const options = jsonParseOptions(ctx.config);
  router.post(CALCULATE_PATH, (req, res) => answerCalculation(req, res, limit, options));
  router.all(CALCULATE_PATH, methodNotAllowed('POST'));
  return router;
}
