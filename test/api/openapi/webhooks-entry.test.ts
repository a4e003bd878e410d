/**
 * The webhook in the OpenAPI document: a 3.1 `webhooks` entry whose body is the event the service sends (an event
 * made by the service's own code from a job's view parses with it) and whose Sor-Signature pattern the service's
 * signature matches; callback_url on POST /v1/jobs as a query parameter and as a form field.
 */
import { describe, expect, it } from 'vitest';
import { jobView } from '../../../src/api/job-view.ts';
import { buildOpenApiDocument } from '../../../src/api/openapi/document.ts';
import { jobsOpenApiPaths } from '../../../src/api/openapi/jobs-paths.ts';
import { WEBHOOK_EVENT_EXAMPLE, WebhookEventSchema } from '../../../src/api/openapi/webhooks-entry.ts';
import { newJobId } from '../../../src/jobs/job-id.ts';
import type { JobRecord } from '../../../src/jobs/job-store.ts';
import { makeEvent } from '../../../src/webhooks/event.ts';
import { signatureHeader } from '../../../src/webhooks/signature.ts';

type Doc = {
  webhooks: Record<
    string,
    {
      post: {
        parameters: { in: string; name: string; schema: { pattern: string } }[];
        requestBody: { content: Record<string, { schema: { $ref: string } }> };
      };
    }
  >;
  paths: Record<
    string,
    { post?: { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } } }
  >;
};

const doc = buildOpenApiDocument({
  paths: jobsOpenApiPaths({ ttlSeconds: 86_400, maxBytes: 1 << 20, store: 'local' }),
}) as unknown as Doc;

const record: JobRecord = {
  id: newJobId(Date.UTC(2026, 10, 24, 2, 0, 3)),
  status: 'failed',
  format: 'csv',
  created_at: '2026-11-24T02:00:03.120Z',
  started_at: '2026-11-24T02:00:03.410Z',
  finished_at: '2026-11-24T02:00:04.000Z',
  students_done: 10,
  students_total: 20,
  rows_done: 24,
  error_rows: 0,
  error: { code: 'job_lost', message: 'This job was accepted but its records were lost.' },
  fingerprint: 'f'.repeat(64),
  lease_until: 0,
};

describe('the jobEnded webhook', () => {
  it('declares the POST with its Sor-Signature header and the WebhookEvent body', () => {
    const post = doc.webhooks.jobEnded!.post;
    const signature = post.parameters.find((p) => p.in === 'header' && p.name === 'Sor-Signature');
    expect(signature).toBeDefined();
    expect(post.requestBody.content['application/json']!.schema.$ref).toBe('#/components/schemas/WebhookEvent');
    expect(signatureHeader('k'.repeat(32), '{}', 1767225600)).toMatch(new RegExp(signature!.schema.pattern));
  });

  it('describes the event the service makes from a job', () => {
    const event = makeEvent(record, 'job.failed', (r) => jobView(r), Date.UTC(2026, 10, 24, 2, 0, 4));
    const parsed = WebhookEventSchema.safeParse(JSON.parse(event.body));
    expect(parsed.error).toBeUndefined();
    expect(JSON.parse(event.body)).toMatchObject({ type: 'job.failed', created: 1795485604, data: { id: record.id } });
    expect(JSON.parse(event.body).data).not.toHaveProperty('callback');
  });

  it('gives an example that is an event (the completed job of the Job example)', () => {
    expect(WebhookEventSchema.safeParse(WEBHOOK_EVENT_EXAMPLE).error).toBeUndefined();
    expect(WEBHOOK_EVENT_EXAMPLE.data).not.toHaveProperty('callback');
  });

  it('puts callback_url on POST /v1/jobs as a form field too', () => {
    const form = doc.paths['/v1/jobs']!.post!.requestBody.content['multipart/form-data']!.schema;
    expect(Object.keys(form.properties)).toEqual(['file', 'callback_url']);
  });
});
