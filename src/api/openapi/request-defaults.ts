/**
 * The defaults of the document's object properties, said in words instead of with the `default` keyword: a field
 * with a default may be left out of a request, but code generators read `default` as "always present" (the
 * default settings of openapi-typescript make every such property required in the generated types, so a client
 * written against them would have to send every optional field). Each property that had a default other than
 * null gets "Default: value." at the end of its description, and the request schemas keep `required` as it was:
 * only the fields that must be sent.
 *
 * Query and header parameters keep their `default` (generators read it as meant there).
 */
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** "Default: undergraduate." — none for a null default: a nullable field left out is null, as its type says. */
const spoken = (value: unknown) => (value === null ? '' : `Default: ${String(value)}.`);

/** Moves the default of every property under `schema` (nested schemas included) into its description. */
function sayDefaults(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) sayDefaults(item);
    return;
  }
  if (!isObject(schema)) return;
  const properties = schema.properties;
  if (isObject(properties)) {
    for (const property of Object.values(properties)) {
      if (!isObject(property) || !('default' in property)) continue;
      const words = spoken(property.default);
      delete property.default;
      if (words === '') continue;
      const description = typeof property.description === 'string' ? property.description.trimEnd() : '';
      property.description = description === '' ? words : `${description} ${words}`;
    }
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'examples' && key !== 'example') sayDefaults(value);
  }
}

/** The document with the defaults of its schemas said in words (components and the bodies of every operation). */
export function defaultsInWords<D extends { components?: unknown; paths?: unknown }>(document: D): D {
  const components = document.components;
  if (isObject(components)) sayDefaults(components.schemas);
  const paths = document.paths;
  if (isObject(paths)) {
    for (const item of Object.values(paths)) {
      if (!isObject(item)) continue;
      for (const operation of Object.values(item)) {
        if (!isObject(operation)) continue;
        sayDefaults(operation.requestBody);
        sayDefaults(operation.responses);
      }
    }
  }
  return document;
}
