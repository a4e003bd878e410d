/**
 * Webhooks (a job's `callback_url`): a callback URL refused at submission, and a service that cannot sign
 * events. Part of the one catalogue, src/errors.ts.
 */
import type { ErrorEntry } from './entry.ts';

export const WEBHOOK_ERRORS = {
  /** 400 with field_errors [{field: 'callback_url', message: reason}]: what is wrong, in words the client can act on. */
  CALLBACK_URL_REFUSED: {
    code: 'validation_error',
    status: 400,
    message: 'callback_url {reason}',
  },
  CALLBACK_NOT_CONFIGURED: {
    code: 'validation_error',
    status: 400,
    message:
      'callback_url cannot be used: this service has no WEBHOOK_SECRET to sign its events with. Ask its operator to set WEBHOOK_SECRET, or submit the job without callback_url and poll its status.',
  },
  /** The host name's DNS lookup failed for a reason that may pass (a timeout, a server failure): not the URL's fault. */
  CALLBACK_DNS_UNAVAILABLE: {
    code: 'service_busy',
    status: 503,
    message:
      'The host name of callback_url could not be looked up just now ({detail}); submit the job again in {retryAfter} seconds.',
  },
} as const satisfies Record<string, ErrorEntry>;
