/**
 * The signature of a webhook delivery, Stripe's scheme: the header
 *
 *   Sor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with WEBHOOK_SECRET>
 *
 * signs the exact bytes sent with the time of the attempt, so a receiver that checks the HMAC (in constant time)
 * and that `t` is recent knows the event came from this service, unchanged, and is not a replay of an old
 * delivery. Each attempt of the same event is signed afresh (a new `t`, the same body).
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'Sor-Signature';

/** The signature scheme's version tag: a later scheme would add `v2=` beside it. */
export const SIGNATURE_SCHEME = 'v1';

/** The header's value for `body` sent at `t` (unix seconds). */
export function signatureHeader(secret: string, body: string, t: number): string {
  const mac = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
  return `t=${t},${SIGNATURE_SCHEME}=${mac}`;
}
