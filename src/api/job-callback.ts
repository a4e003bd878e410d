/**
 * A job's callback at the job door (POST /v1/jobs): `callback_url` as a query parameter, read before the body so
 * a refused URL is answered before any row is used, or as a multipart form field, before or after the file part.
 * Given once at most. Checked by the webhooks (src/webhooks/webhooks.ts `checkCallback`); without them (no
 * WEBHOOK_SECRET) any callback_url is refused, never silently dropped. Without one, the job takes WEBHOOK_URL.
 */
import type { Request } from 'express';
import { appError, type AppError } from '../errors.ts';
import type { Webhooks } from '../webhooks/webhooks.ts';

export const CALLBACK_PARAMETER = 'callback_url';

/** What the job door needs of the webhooks. */
export type CallbackDoor = Pick<Webhooks, 'checkCallback' | 'deploymentUrl' | 'register'>;

function givenTwice(): AppError {
  const reason = 'is given more than once; give it once, as a query parameter or as a form field';
  return appError(
    'CALLBACK_URL_REFUSED',
    { reason },
    { fieldErrors: [{ field: CALLBACK_PARAMETER, message: reason }] },
  );
}

function notText(): AppError {
  const reason = 'must be a URL';
  return appError(
    'CALLBACK_URL_REFUSED',
    { reason },
    { fieldErrors: [{ field: CALLBACK_PARAMETER, message: reason }] },
  );
}

/** The callback_url query parameter, if given. */
export function queryCallback(req: Pick<Request, 'query'>): string | undefined {
  const value: unknown = (req.query as Record<string, unknown> | undefined)?.[CALLBACK_PARAMETER];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw givenTwice();
  if (typeof value !== 'string') throw notText();
  return value;
}

/** The callback_url form field of a multipart upload, if given (with the query's, once in all). */
export function fieldCallback(fields: ReadonlyMap<string, readonly string[]>, fromQuery: string | undefined) {
  const values = fields.get(CALLBACK_PARAMETER) ?? [];
  if (values.length === 0) return undefined;
  if (values.length > 1 || fromQuery !== undefined) throw givenTwice();
  return values[0];
}

/** The checked callback of `url`; throws the 400 (or the lookup's 503). */
export async function checkedCallback(webhooks: CallbackDoor | undefined, url: string): Promise<string> {
  if (webhooks === undefined) throw appError('CALLBACK_NOT_CONFIGURED');
  return webhooks.checkCallback(url);
}

/** The job's callback: the one given (already checked), else the deployment's WEBHOOK_URL, else null. */
export function jobCallback(webhooks: CallbackDoor | undefined, given: string | undefined): string | null {
  return given ?? webhooks?.deploymentUrl ?? null;
}
