/**
 * The error catalogue (src/errors.ts) is data: every entry has a wire code, an HTTP status and a template whose
 * parameters are filled at each call site; no AppError is built outside the catalogue's file; the OpenAPI error
 * examples are envelopes of catalogue entries; and the one envelope builder hides internal detail.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AppError,
  appError,
  ERRORS,
  errorEnvelope,
  EVERY_TEMPLATE_IS_A_LITERAL,
  INTERNAL_MESSAGE,
  MAX_FIELD_ERRORS,
  type ErrorEntry,
  type ErrorName,
} from '../../src/errors.ts';
import { ERROR_CODES, EXTENDED_ERROR_CODES } from '../../src/error-codes.ts';
import { counted, renderTemplate } from '../../src/error-template.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import { jobsOpenApiPaths } from '../../src/api/openapi/jobs-paths.ts';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const entries = Object.entries(ERRORS) as [ErrorName, ErrorEntry][];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function paramNames(template: string): string[] {
  return [...template.matchAll(/\{([A-Za-z][A-Za-z0-9]*)\}/g)].map((m) => m[1]!);
}

/** A regular expression matching any filling of `template`. */
function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[A-Za-z][A-Za-z0-9]*\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`);
}

describe('the catalogue', () => {
  it('gives every entry a wire code of the interface, an HTTP error status and a message template', () => {
    const codes: readonly string[] = [...ERROR_CODES, ...EXTENDED_ERROR_CODES];
    expect(entries.length).toBeGreaterThan(30);
    for (const [name, entry] of entries) {
      expect(codes, name).toContain(entry.code);
      expect(Number.isInteger(entry.status) && entry.status >= 400 && entry.status <= 599, name).toBe(true);
      expect(entry.message.trim().length, name).toBeGreaterThan(10);
      expect(entry.message, name).toMatch(/[.)]$|\{[a-zA-Z]+\}$/);
    }
  });

  it('holds each entry of the area files (src/errors/*.ts) once: no name is in two areas, none is left out', async () => {
    const areaFiles = readdirSync(join(SRC, 'errors')).filter((f) => f !== 'entry.ts' && f.endsWith('.ts'));
    const names: string[] = [];
    for (const file of areaFiles) {
      const area = (await import(join(SRC, 'errors', file))) as Record<string, Record<string, ErrorEntry>>;
      for (const part of Object.values(area)) names.push(...Object.keys(part));
    }
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it('keeps the statuses of the wire codes', () => {
    const allowed: Record<string, number[]> = {
      invalid_json: [400],
      unsupported_media_type: [406, 415],
      validation_error: [400, 413, 422],
      internal_error: [500, 503],
      unauthenticated: [401],
      invalid_token: [401],
      not_found: [404],
      method_not_allowed: [405],
      job_not_ready: [409],
      job_lost: [410],
      job_store_full: [503],
      insufficient_storage: [507],
      service_busy: [503],
      expired_token: [403],
      revoked_token: [403],
      quota_exceeded: [429],
      listing_requires_auth: [403],
      job_cancelled: [409],
      idempotency_key_reused: [422],
      request_timeout: [408],
    };
    for (const [name, entry] of entries) expect(allowed[entry.code], name).toContain(entry.status);
  });

  it('has every template written as one literal, so TypeScript checks its parameters at each call site', () => {
    expect(EVERY_TEMPLATE_IS_A_LITERAL).toBe(true);
    // @ts-expect-error BODY_TOO_LARGE needs {limit}
    expect(() => appError('BODY_TOO_LARGE')).toThrow(/\{limit\} has no value/);
    // @ts-expect-error METHOD_NOT_ALLOWED needs {method} and {allow}, not just {method}
    expect(() => appError('METHOD_NOT_ALLOWED', { method: 'PUT' })).toThrow(/\{allow\} has no value/);
    // @ts-expect-error NOT_FOUND has no parameters
    appError('NOT_FOUND', { path: '/x' });
  });

  it('fills every parameter of every template and leaves no brace behind', () => {
    for (const [name, entry] of entries) {
      const params = Object.fromEntries(paramNames(entry.message).map((p) => [p, `<${p}>`]));
      const message = renderTemplate(entry.message, params);
      for (const p of Object.keys(params)) expect(message, name).toContain(`<${p}>`);
      expect(message.replace(/<[A-Za-z0-9]+>/g, ''), name).not.toMatch(/[{}]/);
    }
  });

  it('builds AppErrors that carry their entry, code, status and filled message', () => {
    const err = appError('BODY_TOO_LARGE', { limit: 1024 });
    expect(err).toBeInstanceOf(AppError);
    expect([err.entry, err.code, err.status]).toEqual(['BODY_TOO_LARGE', 'validation_error', 413]);
    expect(err.message).toBe('The request body is larger than the limit of 1024 bytes.');
  });

  it('has one wording per situation: every 413 for a CSV file says the same', () => {
    const csv413 = entries.filter(([, e]) => e.status === 413 && /bytes/.test(e.message) && /CSV/.test(e.message));
    expect(csv413.map(([name]) => name)).toEqual(['CSV_TOO_LARGE']);
  });
});

describe('no error outside the catalogue', () => {
  const files = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));

  it('constructs no AppError outside src/errors.ts', () => {
    const offenders = files
      .filter((f) => f.path !== 'errors.ts' && f.text.includes('new AppError('))
      .map((f) => f.path);
    expect(files.length).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
  });

  it('recognises no AppError by its message text', () => {
    const patterns = [/\.message\.(includes|startsWith|endsWith|match)\(/, /\.test\([^)]*\.message\)/];
    const offenders = files.filter((f) => patterns.some((p) => p.test(f.text))).map((f) => f.path);
    expect(offenders).toEqual([]);
  });
});

describe('the envelope builder', () => {
  it('answers internal_error with the fixed text, whatever the entry says, unless the entry is written for clients', () => {
    expect(errorEnvelope(appError('SHUTTING_DOWN'))).toEqual({ code: 'internal_error', message: INTERNAL_MESSAGE });
    expect(errorEnvelope(AppError.internal(new Error('secret /etc/passwd')))).toEqual({
      code: 'internal_error',
      message: INTERNAL_MESSAGE,
    });
    expect(errorEnvelope(appError('JOB_ABANDONED')).message).toMatch(/Submit the file again\.$/);
  });

  it('lists at most MAX_FIELD_ERRORS field errors and says so', () => {
    const fieldErrors = Array.from({ length: MAX_FIELD_ERRORS + 5 }, (_, i) => ({ field: `f${i}`, message: 'bad' }));
    const envelope = errorEnvelope(AppError.validation(fieldErrors));
    expect(envelope.field_errors).toHaveLength(MAX_FIELD_ERRORS);
    expect(envelope.message).toBe(
      `The request has ${MAX_FIELD_ERRORS + 5} invalid fields. The first ${MAX_FIELD_ERRORS} are listed.`,
    );
    expect(errorEnvelope(AppError.validation(fieldErrors.slice(0, 1))).message).toBe(
      'The request has 1 invalid field.',
    );
    expect(counted(2, 'error')).toBe('2 errors');
  });
});

describe('OpenAPI error examples', () => {
  type Node = Record<string, unknown>;
  /** Every `{code, message}` example value under a 4xx/5xx response of the document. */
  function errorExamples(paths: unknown): { where: string; value: { code: string; message: string } }[] {
    const out: { where: string; value: { code: string; message: string } }[] = [];
    for (const [path, item] of Object.entries(paths as Node)) {
      for (const [method, op] of Object.entries(item as Node)) {
        const responses = ((op as Node).responses ?? {}) as Node;
        for (const [status, response] of Object.entries(responses)) {
          if (!/^[45]\d\d$/.test(status)) continue;
          const content = ((response as Node).content ?? {}) as Node;
          const json = (content['application/json'] ?? {}) as Node;
          for (const [name, example] of Object.entries((json.examples ?? {}) as Node)) {
            const value = (example as Node).value as { code: string; message: string };
            out.push({ where: `${method} ${path} ${status} ${name}`, value });
            expect(value.code, `${method} ${path} ${status} ${name}`).toBeTypeOf('string');
          }
        }
      }
    }
    return out;
  }

  function fromCatalogue(status: string, value: { code: string; message: string }): boolean {
    if (value.code === 'internal_error' && value.message === INTERNAL_MESSAGE) return true;
    return entries.some(
      ([, e]) => e.code === value.code && String(e.status) === status && templatePattern(e.message).test(value.message),
    );
  }

  it('are envelopes of catalogue entries, in the document and in the jobs paths', () => {
    const document = buildOpenApiDocument({
      paths: jobsOpenApiPaths({ ttlSeconds: 3600, maxBytes: 1024, store: 'local' }),
    });
    const examples = errorExamples(document.paths);
    expect(examples.length).toBeGreaterThan(20);
    expect(examples.some((e) => e.where.includes('/v1/jobs'))).toBe(true);
    for (const { where, value } of examples) {
      const status = where.split(' ')[2]!;
      expect(fromCatalogue(status, value), `${where}: ${value.message}`).toBe(true);
    }
  });
});
