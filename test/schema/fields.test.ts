/**
 * The table of request fields (src/schema/fields.ts) is the one place the fields are spelled: the zod schema, the
 * OpenAPI document, the bulk CSV layout, the worksheet and the page all list exactly its fields, in its order.
 * (The compile-time check in fields.ts ties the names to the domain's CalculationInput and TermInput as well.)
 */
import { describe, expect, it } from 'vitest';
import { REQUEST_FIELDS, STUDENT_FIELDS, TERM_FIELDS } from '../../src/schema/fields.ts';
import { CalculationRequestSchema, TermSchema, parseCalculationRequest } from '../../src/schema/request.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import { INPUT_COLUMNS, REQUIRED_COLUMNS, STUDENT_COLUMNS, TERM_COLUMNS } from '../../src/bulk/csv-layout.ts';
import { TERM_INPUT_HEADERS, inputRows } from '../../src/api/worksheet/appendix.ts';
import { serviceTablesModule } from '../../scripts/build-web.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';

const studentNames = STUDENT_FIELDS.map((f) => f.name);
const termNames = TERM_FIELDS.map((f) => f.name);

/** The keys of a zod object schema, in its order. */
const shapeKeys = (schema: unknown): string[] =>
  Object.keys((schema as { def: { shape: Record<string, unknown> } }).def.shape);

describe('the request-field table', () => {
  it('is the zod schema: CalculationRequest and Term have exactly its fields, in its order', () => {
    expect(shapeKeys(CalculationRequestSchema)).toEqual(studentNames);
    expect(shapeKeys(TermSchema)).toEqual(termNames);
  });

  it('is the OpenAPI document: the properties and required fields of CalculationRequest and Term', () => {
    const schemas = buildOpenApiDocument().components!.schemas! as Record<
      string,
      { properties: Record<string, { description?: string }>; required?: string[] }
    >;
    for (const [id, fields] of [
      ['CalculationRequest', STUDENT_FIELDS],
      ['Term', TERM_FIELDS],
    ] as const) {
      const schema = schemas[id]!;
      expect(Object.keys(schema.properties), id).toEqual(fields.map((f) => f.name));
      const required = fields.filter((f) => f.presence === 'required').map((f) => f.name);
      expect(schema.required ?? [], id).toEqual(required);
    }
    // Each field's description is the table's (decimals add the shared paragraph on how numbers are written;
    const request = schemas['CalculationRequest']!.properties;
    for (const field of STUDENT_FIELDS.filter((f) => f.type.kind !== 'policy' && f.type.kind !== 'award_year')) {
      // a nullable field's description may sit inside its anyOf).
      expect(JSON.stringify(request[field.name]), field.name).toContain(JSON.stringify(field.description).slice(1, -1));
    }
  });

  it('is the bulk CSV layout: one column per field but the terms (rows) and the policy (the file’s)', () => {
    expect(TERM_COLUMNS).toEqual(TERM_FIELDS.map((f) => f.column));
    expect(TERM_COLUMNS[termNames.indexOf('label')]).toBe('term_label');
    expect(STUDENT_COLUMNS).toEqual(studentNames.filter((n) => n !== 'terms' && n !== 'policy'));
    expect(INPUT_COLUMNS).toEqual(expect.arrayContaining([...TERM_COLUMNS, ...STUDENT_COLUMNS]));
    expect(REQUIRED_COLUMNS).toEqual([
      'student_id',
      'term_label',
      'full_time_credits',
      'credits_enrolled',
      'dependency_status',
    ]);
  });

  it('is the worksheet: its term columns and its student rows (all but the terms and the policy), by page label', () => {
    expect(TERM_INPUT_HEADERS).toEqual(TERM_FIELDS.map((f) => f.page.label));
    const parsed = parseCalculationRequest(WORKED_EXAMPLES[0]!.request);
    if (!parsed.ok) throw new Error('the worked example must be valid');
    expect(inputRows(parsed.value).map(([label]) => label)).toEqual(
      STUDENT_FIELDS.filter((f) => f.name !== 'terms' && f.name !== 'policy').map(
        (f) => (f as { page?: { label: string } }).page?.label,
      ),
    );
  });

  it('is the page: service-tables.js lists every field the form shows, with its label, in the table’s order', () => {
    const line = serviceTablesModule()
      .split('\n')
      .find((l) => l.startsWith('export const REQUEST_FIELDS = '))!;
    const page = JSON.parse(line.slice('export const REQUEST_FIELDS = '.length, -1)) as {
      name: string;
      level: string;
      label: string;
    }[];
    expect(page.map((f) => `${f.level}.${f.name}`)).toEqual(
      REQUEST_FIELDS.filter((f) => f.name !== 'terms' && f.name !== 'policy').map((f) => `${f.level}.${f.name}`),
    );
    for (const f of page) expect(f.label, f.name).toMatch(/^[A-Z]/);
  });

  it('holds a consistent row for every field: defaults match presence and nullability', () => {
    for (const f of REQUEST_FIELDS) {
      if (f.presence === 'required') expect(f.default, f.name).toBeUndefined();
      if (f.nullable) expect([f.presence, f.default], f.name).toEqual(['default', null]);
      if (f.type.kind === 'boolean') expect(f.default, f.name).toBe(false);
      if (f.level === 'term') expect(f.column, f.name).not.toBe('');
      expect(f.description.length, f.name).toBeGreaterThan(20);
    }
    expect(new Set(REQUEST_FIELDS.map((f) => `${f.level}.${f.name}`)).size).toBe(REQUEST_FIELDS.length);
  });
});
