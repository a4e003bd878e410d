/**
 * What the MCP server lists, through the SDK's Client (in memory): each tool's input schema is the API's own
 * request schema — equal to the CalculationRequest, Term and SchoolPolicy of the OpenAPI document, and naming every
 * field of the field table — and each resource reads the one table it is derived from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import { STATUTORY_LIMIT_TABLE } from '../../src/domain/limits.ts';
import { DEFAULT_POLICY, POLICY_OPTION_NAMES, resolvePolicy } from '../../src/domain/policy.ts';
import { CHECK_REASONS, SERVICE_READINGS } from '../../src/domain/readings.ts';
import { STUDENT_FIELDS, TERM_FIELDS } from '../../src/schema/fields.ts';
import { EXAMPLES, inProcess, type InProcess } from './helpers.ts';

let mcp: InProcess;
beforeAll(async () => {
  mcp = await inProcess({ policy: resolvePolicy({ proration_fraction: 'decimal_rounded' }) });
});
afterAll(() => mcp.close());

type Schema = Record<string, unknown> & { properties?: Record<string, unknown>; $defs?: Record<string, Schema> };

/** The OpenAPI document's component schemas, their refs written as the tools' ($defs). */
function openApiComponents(): Record<string, Schema> {
  const doc = buildOpenApiDocument() as { components: { schemas: Record<string, Schema> } };
  return JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', '#/$defs/')) as Record<
    string,
    Schema
  >;
}

describe('the tools’ input schemas', () => {
  it('list every tool with an object schema, read-only hints and the needs_input contract', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'calculate_loan_limits',
      'compare_scenarios',
      'explain_amount',
      'check_school_figures',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(tool.description).toMatch(/needs_input/);
    }
  });

  it('calculate_loan_limits takes the OpenAPI document’s CalculationRequest, with its Term and SchoolPolicy', async () => {
    const { tools } = await mcp.client.listTools();
    const schema = tools.find((t) => t.name === 'calculate_loan_limits')!.inputSchema as Schema;
    const components = openApiComponents();
    const { $defs, ...top } = schema;
    expect(top).toEqual(components.CalculationRequest);
    expect($defs).toEqual({ Term: components.Term, SchoolPolicy: components.SchoolPolicy });
    expect(Object.keys(top.properties!)).toEqual(STUDENT_FIELDS.map((f) => f.name));
    expect(Object.keys($defs!.Term!.properties!)).toEqual(TERM_FIELDS.map((f) => f.name));
    expect(Object.keys($defs!.SchoolPolicy!.properties!)).toEqual(POLICY_OPTION_NAMES);
  });

  it('compare_scenarios takes the OpenAPI document’s CompareRequest; explain_amount and check_school_figures its CalculationRequest as `request`', async () => {
    const { tools } = await mcp.client.listTools();
    const components = openApiComponents();
    for (const name of ['explain_amount', 'check_school_figures']) {
      const schema = tools.find((t) => t.name === name)!.inputSchema as Schema;
      expect(schema.properties!.request).toEqual({ $ref: '#/$defs/CalculationRequest' });
      expect(schema.$defs!.CalculationRequest).toEqual(components.CalculationRequest);
      expect(schema.additionalProperties).toBe(false);
    }
    const compare = tools.find((t) => t.name === 'compare_scenarios')!.inputSchema as Schema;
    const { $defs: compareDefs, ...compareTop } = compare;
    expect(compareTop).toEqual(components.CompareRequest);
    expect(compareDefs!.CalculationRequest).toEqual(components.CalculationRequest);
    expect(compareDefs!.Scenario).toEqual(components.Scenario);
    const check = tools.find((t) => t.name === 'check_school_figures')!.inputSchema as Schema;
    const figures = check.properties!.school_figures as Schema;
    expect(Object.keys(figures.properties!)).toEqual(['sis_reduced_annual_pct', 'sis_option', 'terms']);
  });
});

async function read(uri: string): Promise<Record<string, unknown>> {
  const { contents } = await mcp.client.readResource({ uri });
  expect(contents).toHaveLength(1);
  expect(contents[0]!.mimeType).toBe('application/json');
  return JSON.parse((contents[0] as { text: string }).text) as Record<string, unknown>;
}

describe('the resources', () => {
  it('are the readings, the school policy, the limits and the worked examples', async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['sor://readings', 'sor://policy', 'sor://limits', 'sor://examples']);
    for (const r of resources) expect(r.description).toEqual(expect.any(String));
  });

  it('sor://limits is the limit table, every award year and row with its citation', async () => {
    const limits = await read('sor://limits');
    expect(limits.award_years).toEqual(JSON.parse(JSON.stringify(STATUTORY_LIMIT_TABLE)));
  });

  it('sor://policy lists every option and the deployment’s default (SOR_POLICY) beside the service’s', async () => {
    const policy = await read('sor://policy');
    expect((policy.options as { name: string }[]).map((o) => o.name)).toEqual(POLICY_OPTION_NAMES);
    expect(policy.service_default).toEqual({ ...DEFAULT_POLICY });
    expect(policy.deployment_default).toEqual({ ...DEFAULT_POLICY, proration_fraction: 'decimal_rounded' });
  });

  it('sor://readings names every reading with the service’s value and every shadow-check reason', async () => {
    const readings = await read('sor://readings');
    const table = readings.readings as { reading: string; service: string; alternatives: unknown[] }[];
    expect(table.map((r) => r.reading)).toEqual(Object.keys(SERVICE_READINGS));
    for (const r of table) expect(r.alternatives.length, r.reading).toBeGreaterThan(0);
    expect((readings.check_reasons as { reason: string }[]).map((r) => r.reason)).toEqual([...CHECK_REASONS]);
  });

  it('sor://examples holds the published worked examples', async () => {
    const examples = await read('sor://examples');
    expect(examples.examples).toEqual(EXAMPLES);
  });

  it('reads are logged by their URI only', () => {
    const lines = mcp.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.msg === 'mcp: resource read').map((l) => l.resource)).toEqual([
      'sor://limits',
      'sor://policy',
      'sor://readings',
      'sor://examples',
    ]);
  });
});
