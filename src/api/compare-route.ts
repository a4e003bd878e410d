/**
 * POST /v1/calculate/compare: what-if comparisons for one student, JSON in, JSON out. The body is a base
 * CalculationRequest and 1 to 5 named scenarios of changes to its terms (src/schema/compare.ts); the answer is
 * `{rule_set, policy, base, scenarios: [{name, changes, result, differences}]}` (src/domain/compare.ts).
 *
 * The same door as POST /v1/calculate: the app's /v1 guards (access control, rate limits: one unit per request,
 * like /v1/calculate) run before it (src/api/app.ts), then 415 → 413 (MAX_BODY_BYTES) → 400
 * (src/api/json-body.ts) → 422 naming every offending field (`base.terms[1].credits_enrolled`,
 * `scenarios[0].changes[0].term`, `scenarios[1]` for a scenario whose changed request is not valid) → 200. The
 * deployment's SOR_POLICY is the default policy of the base and of every scenario, as on /v1/calculate.
 */
import { Router } from 'express';
import { compareScenarios } from '../domain/compare.ts';
import { RULE_SET_ID } from '../domain/rule-set.ts';
import { parseCompareRequest } from '../schema/compare.ts';
import type { WireCompareResult } from '../schema/compare-schema.ts';
import type { ParseOptions } from '../schema/request.ts';
import type { AppContext } from './context.ts';
import { JSON_CONTENT_TYPE, jsonParseOptions } from './calculate-route.ts';
import { sendError, validationFailure } from './error-envelope.ts';
import { readJsonObject } from './json-body.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import { ROUTER_OPTIONS } from './routing.ts';
import { wirePolicy } from './worksheet/content.ts';

export const COMPARE_PATH = '/v1/calculate/compare';

/** The 200 body for a request's JSON object, or an AppError 422 naming every offending field. */
export function comparisonJson(body: Record<string, unknown>, options?: ParseOptions): string {
  const parsed = parseCompareRequest(body, options);
  if (!parsed.ok) throw validationFailure(parsed.fieldErrors);
  const answer: WireCompareResult = {
    rule_set: RULE_SET_ID,
    policy: wirePolicy(parsed.value.base.policy),
    ...compareScenarios(parsed.value),
  };
  return JSON.stringify(answer);
}

export function compareRouter(ctx: AppContext): Router {
  const router = Router(ROUTER_OPTIONS);
  const limit = ctx.config.MAX_BODY_BYTES;
  const parseOptions = jsonParseOptions(ctx.config); // SOR_POLICY, the requests' default policy

  router.post(COMPARE_PATH, async (req, res) => {
    let json: string;
    try {
      json = comparisonJson(await readJsonObject(req, res, limit), parseOptions);
    } catch (err) {
      // A client that left (its connection is closed) can read no answer: its request is logged as aborted.
      if (req.socket.destroyed) return;
      sendError(res, err);
      return;
    }
    res.status(200);
    res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    res.setHeader('Cache-Control', 'no-store');
    res.end(json);
  });
  router.all(COMPARE_PATH, methodNotAllowed('POST'));
  return router;
}
