/**
 * The webhook in the OpenAPI document (an OpenAPI 3.1 `webhooks` entry): the POST the service makes to a job's
 * callback when the job ends, its Sor-Signature header and the event (src/webhooks/event.ts), and how an answer
 * is read (docs/webhooks.md says the same for people).
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { MAX_CALLBACK_URL_CHARS } from '../../webhooks/callback-url.ts';
import { EVENT_TYPES } from '../../webhooks/event.ts';
import { SIGNATURE_HEADER } from '../../webhooks/signature.ts';
import { JOB_EXAMPLE, JobSchema } from './job-schema.ts';

/** `callback_url` of POST /v1/jobs (a query parameter, or a form field of a multipart upload). */
export const CallbackUrlSchema = z
  .string()
  .max(MAX_CALLBACK_URL_CHARS)
  .optional()
  .meta({
    description:
      'Where to POST the signed event when the job ends (the `jobEnded` webhook; docs/webhooks.md): an https URL ' +
      'whose host is, and resolves only to, public addresses (loopback, private, link-local, unique-local, CGNAT, ' +
      'multicast and unspecified addresses, and their IPv4-mapped forms, are refused) unless its origin is in ' +
      "the deployment's WEBHOOK_ALLOW. Checked before the job is created: a refused URL is a 400 naming the " +
      'reason (field callback_url), and so is any callback_url while the service has no WEBHOOK_SECRET. Give it ' +
      "once, as a query parameter or a form field. Without it the job's callback is the deployment's WEBHOOK_URL, " +
      'if set. The job shows every delivery attempt as `callback`.',
    example: 'https://hooks.example.edu/sor',
  });

const EventTypeSchema = z.enum(EVENT_TYPES).meta({
  id: 'WebhookEventType',
  description:
    'job.completed, job.failed (data.error says why; job_lost when the job’s records were lost) or job.cancelled.',
});

export const WebhookEventSchema = z
  .object({
    id: z
      .string()
      .regex(/^evt_[0-9a-f]{24}$/)
      .meta({ description: 'The same on every attempt of this event: ignore an event whose id you have seen.' }),
    type: EventTypeSchema,
    created: z.int().min(0).meta({ description: 'When the event was made (the job ended), Unix seconds.' }),
    data: JobSchema.omit({ callback: true }).meta({
      id: 'WebhookJob',
      description:
        'The job as GET /v1/jobs/{id} showed it when it ended, without `callback` (the state of this delivery). ' +
        'Its links are paths on the API that took the job.',
    }),
  })
  .meta({ id: 'WebhookEvent', description: 'What a job’s callback receives when the job ends.' });

/** The event of the completed job of the Job schema's example. */
export const WEBHOOK_EVENT_EXAMPLE = (() => {
  const { callback: _callback, ...data } = JOB_EXAMPLE;
  const created = Math.floor(Date.parse(JOB_EXAMPLE.finished_at as string) / 1000);
  return { id: 'evt_5f0c6a1e9b2d4c7a8e3f1d20', type: 'job.completed', created, data };
})();

/** The `webhooks` of the OpenAPI document. */
export function jobWebhooks(): ZodOpenApiPathsObject {
  return {
    jobEnded: {
      post: {
        operationId: 'jobEnded',
        tags: ['jobs'],
        security: [], // the service calls the receiver: no token; the body is signed instead
        summary: 'A job ended: the event POSTed to its callback',
        description:
          'Sent to the job’s `callback_url` (or the deployment’s WEBHOOK_URL) when the job is completed, failed ' +
          'or cancelled, once WEBHOOK_SECRET is set. Verify the signature over the raw body before parsing it (see ' +
          'docs/webhooks.md). Answer any 2xx within WEBHOOK_TIMEOUT_MS (10 s by default). Anything else, no ' +
          'answer, or a redirect (never followed) is a failed attempt: the next waits min(30 s × 2^(n−1), 1 h), ' +
          'drawn between half and all of it, until 24 h after the job ended. Delivery is at least once. Every ' +
          'attempt is shown on the job (`callback`).',
        requestParams: {
          header: z.object({
            [SIGNATURE_HEADER]: z
              .string()
              .regex(/^t=\d+(,v1=[0-9a-f]{64})+$/)
              .meta({
                description:
                  '`t=<Unix seconds of this attempt>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with ' +
                  'WEBHOOK_SECRET>`. Compare in constant time; refuse a t more than 5 minutes from your clock.',
                example: 't=1767225600,v1=3f1c0b9de2a8f6a1c4e7b2d9f0a3c6e8b1d4f7a0c3e6b9d2f5a8c1e4b7d0a3f6',
              }),
          }),
        },
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: WebhookEventSchema,
              examples: { completed: { value: WEBHOOK_EVENT_EXAMPLE } },
            },
          },
        },
        responses: {
          '2XX': { description: 'Delivered: no further attempt of this event.' },
          default: { description: 'A failed attempt: it is made again later (see above).' },
        },
      },
    },
  };
}
