/**
 * The OpenAPI document: valid OpenAPI 3.1 (checked by an independent validator), complete for the interface,
 * citing the regulation and every reading of rules.md §9, and every example in it valid against the document's
 * own JSON schemas (converted back with zod's JSON Schema reader, so the check does not reuse the source zod).
 */
import { POLICY_OPTIONS } from '../../../src/domain/policy.ts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../src/api/openapi/document.ts';
import { ERROR_CODES } from '../../../src/error-codes.ts';
import { INVALID_EXAMPLES, WORKED_EXAMPLES } from '../../../src/api/openapi/worked-examples.ts';
import { parseCalculationRequest } from '../../../src/schema/request.ts';
import { CalculationResultSchema } from '../../../src/schema/response.ts';
import { calculate } from '../../../src/domain/calculate.ts';
import { jobsOpenApiPaths } from '../../../src/api/openapi/jobs-paths.ts';
import { readFileSync } from 'node:fs';
import { SPEC_RULES_FILE } from '../../support/spec.ts';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  description?: string;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType>; headers?: Json }>;
}

const doc = buildOpenApiDocument() as unknown as Json & {
  openapi: string;
  info: { version: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components: Json & {
    schemas: Record<string, Json>;
    securitySchemes: Record<string, Json>;
    headers: Record<string, Json>;
    responses: Record<string, Json>;
  };
  security: unknown;
};
let resolved: typeof doc;

beforeAll(async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  resolved = validator.resolveRefs() as typeof doc;
});

const op = (path: string, method: string): Operation => {
  const o = doc.paths[path]?.[method];
  if (o === undefined) throw new Error(`missing ${method} ${path}`);
  return o;
};

describe('OpenAPI 3.1 document', () => {
  it('passes the OpenAPI 3.1 schema validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
    expect(result.valid).toBe(true);
    expect(validator.version).toMatch(/^3\.1/);
  });

  it('is version 1.0.0 of OpenAPI 3.1', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
  });

  it('has every endpoint and status of the interface, plus 413 (and 406/415 for bulk)', () => {
    expect(Object.keys(op('/v1/calculate', 'post').responses).sort()).toEqual(
      ['200', '400', '413', '415', '422', '500'].sort(),
    );
    expect(Object.keys(op('/v1/calculate/bulk', 'post').responses)).toEqual(
      expect.arrayContaining(['200', '400', '406', '413', '415']),
    );
    expect(Object.keys(op('/v1/openapi.json', 'get').responses)).toEqual(['200']);
    expect(op('/v1/calculate', 'post').requestBody?.content).toHaveProperty(['application/json']);
  });

  it('describes bulk: CSV and multipart (field file) in; CSV and NDJSON out; the CSV columns', () => {
    const bulk = op('/v1/calculate/bulk', 'post');
    const content = bulk.requestBody?.content ?? {};
    expect(Object.keys(content).sort()).toEqual(['application/octet-stream', 'multipart/form-data', 'text/csv']);
    expect(content['multipart/form-data']?.schema).toMatchObject({ properties: { file: {} }, required: ['file'] });
    expect(Object.keys(bulk.responses['200']?.content ?? {}).sort()).toEqual(['application/x-ndjson', 'text/csv']);
    for (const column of [
      'student_id',
      'term_label',
      'full_time_credits',
      'credits_enrolled',
      'actual_final_credits',
      'prior_disbursement_sub',
      'prior_disbursement_unsub',
      'prior_disbursement_grad_plus',
      'dependency_status',
      'degree_level',
      'grade_level',
      'academic_year_terms',
      'cost_of_attendance',
      'is_legacy_borrower',
      'plus_denied',
      'subsidized_amount',
      'total_limit',
      'row_status',
      'error_code',
      'error_field',
      'error_message',
      'equal_sub',
      'proportional_grad_plus',
      'adjustment_explanation',
      'final_term_overdisbursement',
      'term_warning',
    ]) {
      expect(bulk.description).toContain(column);
    }
    expect(bulk.description).toContain('406');
  });

  it('declares bearerAuth (http bearer) without enforcing it', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(String(doc.components.securitySchemes.bearerAuth?.description)).toMatch(/not enforced/i);
    // Anonymous access is one of the alternatives: the scheme is optional.
    expect(doc.security).toEqual([{}, { bearerAuth: [] }]);
    expect(doc.info.description).toContain('svc_live_');
    expect(doc.info.description).toContain('svc_test_');
  });

  it('documents the reserved error codes and rate-limit headers as reserved', () => {
    expect(doc.components.schemas.ErrorCode).toMatchObject({ enum: [...ERROR_CODES] });
    expect(ERROR_CODES).toHaveLength(9);
    for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
      expect(JSON.stringify(doc.components.headers[h])).toMatch(/RESERVED/);
    }
    const reserved = JSON.stringify(doc.components.responses);
    for (const code of ['unauthenticated', 'invalid_token', 'expired_token', 'revoked_token', 'quota_exceeded']) {
      expect(reserved).toContain(code);
      expect(doc.info.description).toContain(code);
    }
  });

  it('cites the regulation', () => {
    const text = JSON.stringify(doc);
    for (const citation of [
      '34 CFR 685.203(m)',
      'HEA §455(a)',
      'Pub. L. 119-21 §81001',
      '91 FR 23768',
      'Schedule of Reductions',
      'Direct Loan Enrollment Intensity',
      // rules.md §0 (2026-27.2): the statute and the FR page for $20,500 / $50,000, the relayed examples at their
      // pinned commit, the vendor focus group behind the below-half-time reading, traditional proration.
      'HEA §455(a)(4)',
      '91 FR 23883',
      'as relayed by project-sor at commit 43254b1e4d12cc75e18bcbd91fa7ecf194e0a928',
      'FSA vendor focus group of 2026-04-15 as relayed by project-sor',
      'not a published Electronic Announcement',
      '34 CFR 685.203(a)(4)–(6), (d)',
    ]) {
      expect(text).toContain(citation);
    }
    // The CFR paragraph whose amendment the eCFR could not complete is not cited as the source of the limits.
    expect(text).not.toMatch(/limits[^.]*: 34 CFR 685\.203\(b\)\(2\)\(iv\)/);
  });

  it('reports the rule set in info and as the X-Rule-Set header of the calculation responses', () => {
    expect((doc.info as Json)['x-rule-set']).toBe('2026-27.3');
    expect(doc.info.description).toContain('`X-Rule-Set`');
    for (const path of ['/v1/calculate', '/v1/calculate/bulk']) {
      expect(Object.keys(op(path, 'post').responses['200']?.headers ?? {})).toContain('X-Rule-Set');
    }
  });

  it('says plainly that enrollment_intensity_pct is not necessarily COD’s Direct Loan Enrollment Intensity', () => {
    for (const text of [doc.info.description, op('/v1/calculate', 'post').description ?? '']) {
      expect(text).toMatch(/`enrollment_intensity_pct` is the term’s own credit ratio/);
      expect(text).toMatch(/\*\*not\*\* necessarily the value of COD’s "Direct Loan Enrollment Intensity"/);
      expect(text).toMatch(/`reduced_annual_pct` of the calculation in force when that disbursement is made/);
    }
  });

  it('documents the §2.3 request fields and the absent subsidized_amount', () => {
    const request = doc.components.schemas.CalculationRequest as { properties: Record<string, Json> };
    // The default in words, not as the `default` keyword (src/api/openapi/request-defaults.ts).
    expect(request.properties.final_period_of_program).toMatchObject({ type: 'boolean' });
    expect(request.properties.final_period_of_program?.description).toMatch(/Default: false\.$/);
    expect(JSON.stringify(request.properties.academic_year_credits)).toContain('null');
    expect(JSON.stringify(request.properties.academic_year_credits)).toMatch(/Required \(non-null\) when/);
    expect(JSON.stringify(request.properties.subsidized_amount)).toMatch(/no subsidized eligibility was assumed/);
    expect(op('/v1/calculate/bulk', 'post').description).toContain('final_period_of_program');
    expect(op('/v1/calculate/bulk', 'post').description).toContain('academic_year_credits');
  });

  // rules.md §9, copied from the spec: each question and the choice made must be stated in the calculate
  // operation's description.
  const RULES_9: Array<[string, string]> = [
    ["Below-half-time credits in the year's sum", 'counted (April 2026 guidance)'],
    ['Proportional when there is no reduction', 'not offered'],
    ['Single-term loan period', 'per-term formula on the full annual amount (FSA example 2)'],
    ['Remainder dollars', 'largest remainder, ties to the earlier term (matches all published examples)'],
    ['Sub and unsub', 'reduce each separately (FSA example 1, Oracle SFP)'],
    ['Reduction base', "the student's eligibility (FSA example 3)"],
    ['Legacy borrowers', "reduced like everyone (the statute's exception list omits this paragraph)"],
    ['What `total_limit` covers', 'Sub + Unsub + Grad PLUS, as (m)(2) says; a warning when it squeezes Grad PLUS'],
    ['Proportional with one eligible term', 'not offered: identical to equal'],
    ['What closes a term', 'a payment; final credits alone only replace the credits'],
    ['Parent PLUS', 'never reduced, not in scope'],
    ['Non-term and clock-hour programs', 'out of scope'],
    [
      'Grad PLUS base',
      'the gap after it (COA − the reduced Sub and Unsub), then reduced once (Oracle SFP, project-sor)',
    ],
    [
      'Final period of an undergraduate program shorter than an academic year',
      'traditional proration only, reduction not applied on top (§2.3; vendors relaying the Department, 2026-07-23)',
    ],
    [
      'Final-period proration: how the two limits are rounded',
      'the combined limit and the subsidized limit each prorated directly (FSA Handbook ch. 5, example 8: 4,583 / 2,917); 2026-27.3',
    ],
    [
      'Final-period proration: fraction or decimal',
      "the exact fraction by default; a school's policy may choose either decimal (§10)",
    ],
    [
      'Final-period proration: below-half-time terms',
      'left out: they receive no loan, so only the credits of the terms that can be paid are used (Handbook ch. 5, example 5); 2026-27.3',
    ],
    [
      'Final-period proration: credits that change after origination',
      'fixed at origination (`credits_enrolled`): no retroactive proration (Handbook ch. 5; 34 CFR 685.301(a)(5)(ii)); 2026-27.3',
    ],
    [
      'What a payment closes',
      'the whole term: any prior disbursement > 0 closes it for every loan type, null counts as 0 (§6)',
    ],
  ];

  /** The rows of the markdown table that follows `heading` in `text`: [question, other readings, choice]. */
  function tableRows(text: string, heading: RegExp): string[][] {
    const lines = text.split('\n');
    const start = lines.findIndex((l) => heading.test(l));
    const rows: string[][] = [];
    for (const line of lines.slice(start + 1)) {
      if (!line.startsWith('|')) {
        if (rows.length > 0) break;
        continue;
      }
      rows.push(line.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, '')));
    }
    return rows.slice(2); // header and separator
  }

  it.runIf(SPEC_RULES_FILE !== undefined)('the readings table is rules.md §9, row for row', () => {
    const spec = tableRows(readFileSync(SPEC_RULES_FILE!, 'utf8'), /^## 9\./);
    expect(spec.length).toBe(20);
    const description = op('/v1/calculate', 'post').description ?? '';
    expect(tableRows(description, /^### Readings chosen where the sources disagree/)).toEqual(spec);
    const readme = readFileSync(new URL('../../../docs/readings-and-policy.md', import.meta.url), 'utf8');
    expect(tableRows(readme, /^## Which readings of the regulation this service takes/)).toEqual(spec);
  });

  it.each(RULES_9)('states the §9 reading: %s', (question, choice) => {
    const description = op('/v1/calculate', 'post').description ?? '';
    const row = description.split('\n').find((line) => line.startsWith(`| ${question} |`));
    expect(row, question).toBeDefined();
    expect(row).toContain(choice);
  });

  it('states the rounding rules', () => {
    const description = op('/v1/calculate', 'post').description ?? '';
    expect(description).toMatch(/half up to a whole percent/);
    expect(description).toMatch(/half up to a whole dollar/);
    expect(description).toMatch(/largest remainder/i);
    expect(description).toMatch(/ties to the earlier term/);
  });

  it('carries every worked example as a request and a 200 example, and every invalid one as a 422 example', () => {
    const calc = op('/v1/calculate', 'post');
    const reqExamples = calc.requestBody?.content['application/json']?.examples ?? {};
    const okExamples = calc.responses['200']?.content?.['application/json']?.examples ?? {};
    const badExamples = calc.responses['422']?.content?.['application/json']?.examples ?? {};
    for (const ex of WORKED_EXAMPLES) {
      expect(reqExamples[ex.id]?.value).toEqual(ex.request);
      // Every published figure is the example's.
      expect(okExamples[ex.id]?.value).toMatchObject(ex.expected);
    }
    for (const inv of INVALID_EXAMPLES) {
      const value = badExamples[inv.id]?.value as { field_errors: { field: string }[] };
      expect(value.field_errors.map((f) => f.field)).toEqual(expect.arrayContaining(inv.expected_field_paths));
    }
  });

  it('the 200 examples are exactly what the service answers (figures and wording)', () => {
    const okExamples = op('/v1/calculate', 'post').responses['200']?.content?.['application/json']?.examples ?? {};
    for (const ex of WORKED_EXAMPLES) {
      const parsed = parseCalculationRequest(ex.request);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) continue;
      expect(JSON.stringify(okExamples[ex.id]?.value)).toBe(JSON.stringify(calculate(parsed.value)));
    }
  });

  it('every example validates against its schema in the document', () => {
    let checked = 0;
    const check = (schema: Json | undefined, value: unknown, where: string) => {
      expect(schema, where).toBeDefined();
      const validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
      const result = validator.safeParse(value);
      expect(result.success, `${where}: ${JSON.stringify(result.error?.issues)}`).toBe(true);
      checked++;
    };
    for (const [path, item] of Object.entries(resolved.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          for (const [type, media] of Object.entries(response.content ?? {})) {
            for (const [name, example] of Object.entries(media.examples ?? {})) {
              check(media.schema, example.value, `${method} ${path} ${status} ${type} ${name}`);
            }
            if (media.example !== undefined) check(media.schema, media.example, `${method} ${path} ${status}`);
          }
        }
        for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
          for (const [name, example] of Object.entries(media.examples ?? {})) {
            // Examples of rejected requests are deliberately invalid.
            if (INVALID_EXAMPLES.some((e) => e.id === name)) continue;
            check(media.schema, example.value, `${method} ${path} request ${type} ${name}`);
          }
          if (media.example !== undefined) check(media.schema, media.example, `${method} ${path} request ${type}`);
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(WORKED_EXAMPLES.length * 2 + INVALID_EXAMPLES.length);
  });

  it("the document's result schema rejects what the interface forbids (the check above can fail)", () => {
    const calc = resolved.paths['/v1/calculate']?.post;
    const schema = calc?.responses['200']?.content?.['application/json']?.schema;
    const validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    const parsed = parseCalculationRequest(WORKED_EXAMPLES[0]!.request);
    if (!parsed.ok) throw new Error('example 0 must be valid');
    const good = calculate(parsed.value);
    expect(validator.safeParse(good).success).toBe(true);
    expect(CalculationResultSchema.safeParse(good).success).toBe(true);
    expect(validator.safeParse({ ...good, extra: 1 }).success).toBe(false);
    expect(validator.safeParse({ ...good, reduced_annual_pct: 63.5 }).success).toBe(false);
    const { warnings: _w, ...missing } = good;
    expect(validator.safeParse(missing).success).toBe(false);
  });

  it('accepts extra paths through the extension point and refuses to redefine one', () => {
    const extended = buildOpenApiDocument({
      paths: {
        '/v1/extra': {
          get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: z.string() } } } } },
        },
      },
    }) as unknown as { paths: Record<string, unknown> };
    expect(extended.paths).toHaveProperty(['/v1/extra']);
    expect(() => buildOpenApiDocument({ paths: { '/v1/calculate': {} } })).toThrow(/already defined/);
  });

  it('states the configured body limit', () => {
    const d = buildOpenApiDocument({ limits: { maxBodyBytes: 2048 } }) as unknown as typeof doc;
    expect(d.paths['/v1/calculate']?.post?.description).toContain('2,048 bytes');
  });
});

describe('the document as served, with the async jobs paths added through the extension point', () => {
  it('is still valid OpenAPI 3.1', async () => {
    for (const store of ['redis', 'local'] as const) {
      const full = buildOpenApiDocument({
        paths: jobsOpenApiPaths({ ttlSeconds: 86_400, maxBytes: 512 * 1024 * 1024, store }),
      }) as unknown as Record<string, unknown> & { paths: Record<string, unknown> };
      const validator = new Validator();
      const result = await validator.validate(structuredClone(full));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(Object.keys(full.paths).some((p) => p.startsWith('/v1/jobs'))).toBe(true);
    }
  });

  it('POST /v1/jobs takes the query parameters of the bulk door (charset, delimiter, extra_columns, bom, output_delimiter, policy.*) and callback_url', () => {
    type Op = { parameters?: { in: string; name: string }[] };
    const full = buildOpenApiDocument({
      paths: jobsOpenApiPaths({ ttlSeconds: 86_400, maxBytes: 1 << 20, store: 'local' }),
    }) as unknown as { paths: Record<string, { post?: Op }> };
    const queryOf = (path: string) =>
      (full.paths[path]?.post?.parameters ?? [])
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort();
    const policy = POLICY_OPTIONS.map((o) => `policy.${o.name}`); // one per option of the policy table
    expect(queryOf('/v1/calculate/bulk')).toEqual(
      ['bom', 'charset', 'delimiter', 'extra_columns', 'output_delimiter', ...policy].sort(),
    );
    expect(queryOf('/v1/jobs')).toEqual([...queryOf('/v1/calculate/bulk'), 'callback_url'].sort());
  });
});
