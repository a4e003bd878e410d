/**
 * The OpenAPI document of a service running with AUTH_MODE=required (document generated per configuration):
 * bearerAuth becomes the document's security requirement (no anonymous alternative), the open paths
 * (GET /v1/openapi.json, /healthz, /readyz) say `security: []`, every other /v1 operation lists 401
 * (unauthenticated, invalid_token), 403 (expired_token, revoked_token) and 429 (quota_exceeded) by reference,
 * and the reserved components are described as active. With AUTH_MODE=off the document is left as it is: the
 * scheme declared, not enforced, and the codes reserved.
 */
import type { createDocument } from 'zod-openapi';

type Document = ReturnType<typeof createDocument>;

const OPEN_PATHS = new Set(['/v1/openapi.json', '/healthz', '/readyz']);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

const rateHeader = (description: string) => ({ description, schema: { type: 'string' } });

export function requireBearer(document: Document, prefix: string): Document {
  const doc = structuredClone(document) as Document & Record<string, unknown>;
  doc.security = [{ bearerAuth: [] }];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as
        { security?: unknown[]; responses?: Record<string, unknown> } | undefined;
      if (!op) continue;
      if (OPEN_PATHS.has(path)) {
        op.security = [];
        continue;
      }
      op.responses ??= {};
      op.responses['401'] ??= { $ref: '#/components/responses/Unauthenticated' };
      op.responses['403'] ??= { $ref: '#/components/responses/Forbidden' };
      op.responses['429'] ??= { $ref: '#/components/responses/QuotaExceeded' };
    }
  }
  const components = (doc.components ??= {}) as Record<string, Record<string, unknown>>;
  components.securitySchemes = {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description:
        `ENFORCED on this service (AUTH_MODE=required): send Authorization: Bearer ${prefix}<32 letters and ` +
        'digits>, a token from `sor token create`. Tokens are opaque and revocable; one of the other environment ' +
        'is invalid_token.',
    },
  };
  const rateHeaders = {
    'X-RateLimit-Limit': rateHeader(
      'Units allowed in the current window (a request 1, a bulk file or job 1 more per student).',
    ),
    'X-RateLimit-Remaining': rateHeader('Units left in the current window.'),
    'X-RateLimit-Reset': rateHeader('When the current window resets (Unix time, seconds).'),
  };
  components.headers = { ...(components.headers ?? {}), ...rateHeaders };
  const envelope = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  const www = {
    'WWW-Authenticate': rateHeader('Bearer realm="sor" with error="invalid_token" when a token was sent (RFC 6750).'),
  };
  components.responses = {
    Unauthenticated: {
      description:
        'No usable token: Authorization missing or malformed (unauthenticated), or the token is not valid, not of this environment or unknown (invalid_token).',
      headers: www,
      content: envelope,
    },
    Forbidden: {
      description: 'The token expired (expired_token) or was revoked (revoked_token).',
      headers: www,
      content: envelope,
    },
    QuotaExceeded: {
      description: 'The rate limit of the token is used up (quota_exceeded); retry after Retry-After seconds.',
      headers: {
        'Retry-After': rateHeader('Seconds until the window resets.'),
        ...rateHeaders,
      },
      content: envelope,
    },
  };
  // The prose of the open API (prose.ts) says the scheme is not enforced and the codes reserved: say what is true here.
  const info = doc.info as { description?: string };
  const start = info.description?.indexOf('### Authentication') ?? -1;
  const end = info.description?.indexOf('### Conventions') ?? -1;
  if (info.description !== undefined && start >= 0 && end > start) {
    info.description = `${info.description.slice(0, start)}${enforcedProse(prefix)}\n\n${info.description.slice(end)}`;
  }
  const errorCode = (components.schemas as Record<string, { description?: string }> | undefined)?.ErrorCode;
  if (errorCode) {
    errorCode.description =
      'invalid_json, unsupported_media_type, validation_error and internal_error describe request failures; ' +
      'unauthenticated (401), invalid_token (401), expired_token (403), revoked_token (403) and quota_exceeded ' +
      '(429) are returned on this service, which requires a token (AUTH_MODE=required).';
  }
  return doc;
}

function enforcedProse(prefix: string): string {
  return [
    '### Authentication',
    `This service **requires a token**: every /v1 operation except GET /v1/openapi.json needs \`Authorization: ` +
      `Bearer ${prefix}<token>\` (the \`bearerAuth\` scheme). Tokens are opaque and revocable; a token of the ` +
      'other environment is refused. A job and its result are visible only to the token that submitted it; ' +
      'GET /v1/jobs lists the caller’s own jobs.',
    '',
    '### Errors and limits of access control',
    '- unauthenticated (401, Authorization missing or malformed), invalid_token (401, wrong format, other ' +
      'environment or unknown token), expired_token (403), revoked_token (403): with a `WWW-Authenticate: Bearer` ' +
      'header (RFC 6750). See components.responses.',
    '- Rate limits per token: X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset on every limited ' +
      'response; quota_exceeded (429) with Retry-After beyond. A request costs 1; a bulk file or job 1 more per ' +
      'student, charged once its upload is counted.',
  ].join('\n');
}
