/**
 * The OpenAPI document is generated per configuration: with AUTH_MODE=required it stays a valid OpenAPI 3.1
 * document (jobs paths with list and cancel included), requires bearerAuth, leaves the open paths open, documents
 * 401/403/429 on every guarded operation and no longer calls them reserved; with AUTH_MODE=off it is unchanged.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import { jobsOpenApiPaths } from '../../src/api/openapi/jobs-paths.ts';
import { withJobsAccessPaths } from '../../src/api/jobs-access.ts';

type Doc = {
  security: unknown;
  info: { description: string };
  paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
  components: { securitySchemes: { bearerAuth: { description: string } } };
};

const paths = withJobsAccessPaths(jobsOpenApiPaths({ ttlSeconds: 86_400, maxBytes: 1 << 20, store: 'local' }));
const build = (required: boolean) =>
  buildOpenApiDocument({ paths, auth: { required, prefix: 'svc_test_' } }) as unknown as Doc;

async function valid(doc: Doc): Promise<void> {
  const result = await new Validator().validate(structuredClone(doc) as unknown as Record<string, unknown>);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
}

describe('OpenAPI with AUTH_MODE=required', () => {
  const doc = build(true);

  it('is a valid OpenAPI 3.1 document', async () => {
    await valid(doc);
  });

  it('requires bearerAuth, except on the document and the probes', () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const path of ['/v1/openapi.json', '/healthz', '/readyz']) expect(doc.paths[path]?.get?.security).toEqual([]);
    expect(doc.components.securitySchemes.bearerAuth.description).toContain('ENFORCED');
    expect(doc.components.securitySchemes.bearerAuth.description).toContain('svc_test_');
  });

  it('documents 401, 403 and 429 on every guarded operation', () => {
    let guarded = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/') || path === '/v1/openapi.json') continue;
      for (const [method, op] of Object.entries(item)) {
        guarded++;
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['401', '403', '429']));
      }
    }
    // calculate, worksheet, compare, bulk, bulk template; jobs: submit, list, status, cancel, and the four downloads
    // (the result as asked, the CSV, the NDJSON, the errors-only CSV)
    expect(guarded).toBe(13);
  });

  it('says the scheme is enforced, not reserved', () => {
    expect(doc.info.description).toContain('This service **requires a token**');
    expect(doc.info.description).not.toContain('not enforced');
    expect(doc.info.description).toContain('### Conventions');
  });
});

describe('OpenAPI with AUTH_MODE=off', () => {
  it('is valid and identical to the document built without the option', async () => {
    const doc = build(false);
    await valid(doc);
    expect(doc).toEqual(buildOpenApiDocument({ paths }));
    expect(doc.security).toEqual([{}, { bearerAuth: [] }]);
    expect(doc.info.description).toContain('not enforced');
  });
});
