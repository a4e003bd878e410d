/**
 * The JSON Schemas the MCP tools list, made by zod-openapi from the very zod schemas that validate the API's
 * requests (src/schema/request-schema.ts, built from the field table) — the same conversion that writes the
 * OpenAPI document, so a tool's schema is never a hand-written copy of the fields. A tool's input schema is one
 * self-contained object: the named components (CalculationRequest, Term, SchoolPolicy) become `$defs`. As in the
 * document, a field's default is said in its description rather than with the `default` keyword
 * (src/api/openapi/request-defaults.ts): a field with a default may be left out, and an assistant should not read
 * the default as a value to fill in.
 */
import 'zod-openapi';
import type { z } from 'zod';
import { createSchema } from 'zod-openapi';
import { defaultsInWords } from '../api/openapi/request-defaults.ts';

export type JsonObject = Record<string, unknown>;

const DEFS = '#/$defs/';

/**
 * The input JSON Schema of a tool from its zod schema (read as input: what a caller sends). A schema that is itself
 * a named component (CalculationRequest) is inlined at the top, so the schema is an object as MCP requires.
 */
export function toolInputSchema(schema: z.ZodType): JsonObject {
  const made = createSchema(schema, { io: 'input', schemaRefPath: DEFS, openapiVersion: '3.1.0' });
  const defs: Record<string, JsonObject> = { ...(made.components as Record<string, JsonObject>) };
  let top = made.schema as JsonObject;
  const ref = top.$ref;
  if (typeof ref === 'string' && ref.startsWith(DEFS)) {
    const name = ref.slice(DEFS.length);
    top = defs[name]!;
    if (!JSON.stringify(defs).includes(JSON.stringify(ref))) delete defs[name];
  }
  if (top.type !== 'object') throw new Error('a tool input schema must describe a JSON object');
  defaultsInWords({ components: { schemas: { top, ...defs } } });
  return Object.keys(defs).length === 0 ? { ...top } : { ...top, $defs: defs };
}
