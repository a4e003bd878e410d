/** The webhook variables of the service (docs/webhooks.md), a section of src/config/env-schema.ts. */
import { z } from 'zod';
import { commaList, int } from './env-types.ts';
import { doc } from './variable-doc.ts';

export const WEBHOOK_VARIABLES = {
  WEBHOOK_SECRET: doc(
    z
      .string()
      .min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)')
      .optional()
      .or(z.literal('').transform(() => undefined)),
    {
      section: 'Webhooks',
      default: 'unset: webhooks off',
      description:
        'The key of the HMAC-SHA256 in the `Sor-Signature` header of every webhook delivery (at least 32 characters; receivers verify with it, see [webhooks.md](webhooks.md)). Unset, a job submitted with `callback_url` is refused (400) and nothing is delivered. Never logged.',
    },
  ),
  WEBHOOK_URL: doc(
    z
      .string()
      .trim()
      .refine(httpUrl, 'must be an absolute https URL (http only for an origin listed in WEBHOOK_ALLOW)')
      .optional()
      .or(z.literal('').transform(() => undefined)),
    {
      section: 'Webhooks',
      default: 'unset',
      description:
        "The callback of every job submitted without its own `callback_url`. Checked at start-up like a job's (https, a public address, unless its origin is in WEBHOOK_ALLOW); needs WEBHOOK_SECRET. Logged only without its query.",
    },
  ),
  WEBHOOK_ALLOW: doc(
    commaList(
      z
        .string()
        .refine(
          isOrigin,
          'must be a comma list of origins such as http://127.0.0.1:9000 (scheme://host[:port], no path)',
        )
        .transform((o) => new URL(o).origin),
    ),
    {
      section: 'Webhooks',
      default: 'unset: none',
      description:
        'Origins (`scheme://host[:port]`, comma-separated, e.g. `http://127.0.0.1:9000`) a callback may use although they are plain http or a loopback, private or link-local address: receivers on your own network. Every other callback must be https to a public address.',
    },
  ),
  WEBHOOK_TIMEOUT_MS: doc(int(1000, 120_000).default(10_000), {
    section: 'Webhooks',
    description:
      "One delivery attempt (connection, TLS, the receiver's answer) may take this long; longer, it is a failed attempt and is retried.",
  }),
  WEBHOOK_RETRY_BASE_MS: doc(int(10, 3_600_000).default(30_000), {
    section: 'Webhooks',
    advanced: true,
    description:
      'The wait after the first failed attempt; each later wait doubles (up to WEBHOOK_RETRY_MAX_MS), drawn at random between half and all of it.',
  }),
  WEBHOOK_RETRY_MAX_MS: doc(int(10, 86_400_000).default(3_600_000), {
    section: 'Webhooks',
    advanced: true,
    description: 'The longest wait between two attempts.',
  }),
  WEBHOOK_RETRY_WINDOW_SECONDS: doc(int(60, 30 * 86_400).default(86_400), {
    section: 'Webhooks',
    advanced: true,
    description: 'Attempts are made for this long after the job ended; then the delivery is given up (`failed`).',
  }),
};

/** An absolute http(s) URL without a user name or password (the scheme and address rules apply at start-up). */
function httpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** `http://127.0.0.1:9000`: a scheme, a host and an optional port, nothing else. */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && /^https?:\/\/[^/?#@\s]+\/?$/.test(text);
  } catch {
    return false;
  }
}
