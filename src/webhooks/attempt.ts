/**
 * One attempt of a claimed delivery: the event signed at this moment (signature.ts) and POSTed (delivery.ts), then
 * what follows from the answer: delivered on a 2xx, else the next attempt's time (retry-schedule.ts), or given
 * up past the retry window. Writing the outcome is the caller's (the claim decides whether it still may).
 */
import { deliver } from './delivery.ts';
import type { Resolver } from './callback-url.ts';
import type { Claim, DeliveryAttempt, Settlement } from './outbox.ts';
import { nextAttemptAt } from './retry-schedule.ts';
import type { WebhookSettings } from './settings.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';

export const USER_AGENT = 'sor-webhooks/1';

export interface AttemptOutcome {
  attempt: DeliveryAttempt;
  next: Settlement;
}

export async function attemptDelivery(
  claim: Claim,
  settings: WebhookSettings,
  resolve: Resolver,
  clock: () => number = Date.now,
): Promise<AttemptOutcome> {
  const { entry } = claim;
  const { event } = entry;
  const started = clock();
  const outcome = await deliver(
    {
      url: entry.url,
      body: event.body,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        [SIGNATURE_HEADER]: signatureHeader(settings.secret, event.body, Math.floor(started / 1000)),
      },
    },
    { allow: settings.allow, resolve, timeoutMs: settings.timeoutMs },
  );
  const attempt: DeliveryAttempt = {
    at: new Date(started).toISOString(),
    event: event.type,
    status: outcome.status,
    error: outcome.error,
  };
  if (outcome.ok) return { attempt, next: { state: 'delivered', nextAttemptAt: null } };
  const at = nextAttemptAt(entry.attempts.length + 1, event.endedAt, clock(), settings.retry);
  return {
    attempt,
    next: at === null ? { state: 'failed', nextAttemptAt: null } : { state: 'pending', nextAttemptAt: at },
  };
}
