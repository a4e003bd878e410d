/**
 * The webhook settings of a deployment, from its Config: none without WEBHOOK_SECRET (no event can be signed, so
 * no callback is accepted and nothing is delivered).
 */
import type { Config } from '../config.ts';
import type { RetrySettings } from './retry-schedule.ts';

export interface WebhookSettings {
  /** WEBHOOK_SECRET: the HMAC key of Sor-Signature. */
  secret: string;
  /** WEBHOOK_URL: the callback of every job submitted without its own callback_url. */
  deploymentUrl: string | undefined;
  /** WEBHOOK_ALLOW: origins exempt from the https and public-address rules. */
  allow: ReadonlySet<string>;
  /** WEBHOOK_TIMEOUT_MS: the longest one attempt may take. */
  timeoutMs: number;
  retry: RetrySettings;
  /** JOB_TTL_SECONDS in ms: a finished delivery is shown on its job as long as the job is kept. */
  retentionMs: number;
}

export function webhookSettings(config: Config): WebhookSettings | undefined {
  if (!config.WEBHOOK_SECRET) return undefined;
  return {
    secret: config.WEBHOOK_SECRET,
    deploymentUrl: config.WEBHOOK_URL,
    allow: new Set(config.WEBHOOK_ALLOW),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retry: {
      baseMs: config.WEBHOOK_RETRY_BASE_MS,
      maxMs: config.WEBHOOK_RETRY_MAX_MS,
      windowMs: config.WEBHOOK_RETRY_WINDOW_SECONDS * 1000,
    },
    retentionMs: config.JOB_TTL_SECONDS * 1000,
  };
}
