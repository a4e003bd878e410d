/**
 * Help text for the form, read from the service's own OpenAPI document (GET /v1/openapi.json) so the page and
 * the API describe each field in the same words. The long paragraph every decimal field repeats ("A JSON number
 * or a decimal string …") is cut: the page says once, above the form, how to write numbers.
 */

interface SchemaNode {
  description?: string;
  enum?: unknown[];
  anyOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
}

export interface FieldHelp {
  /** The description of a request field: `dependency_status`, or a term field as `terms[].credits_enrolled`. */
  describe(path: string): string | undefined;
  /** The enumerated values of a request field (e.g. the supported award years). */
  values(path: string): string[];
  /** The rule set the service reports in the document's info. */
  ruleSet: string | undefined;
}

const NUMBER_TEXT = / ?A JSON number or a decimal string[\s\S]*$/;

function find(node: SchemaNode | undefined, key: 'description' | 'enum'): SchemaNode[typeof key] {
  if (node === undefined) return undefined;
  if (node[key] !== undefined) return node[key];
  for (const alt of node.anyOf ?? []) {
    const found = find(alt, key);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function fieldHelp(document: unknown): FieldHelp {
  const doc = document as {
    info?: { 'x-rule-set'?: string };
    components?: { schemas?: Record<string, SchemaNode> };
  };
  const schemas = doc.components?.schemas ?? {};
  const node = (path: string): SchemaNode | undefined => {
    const term = /^terms\[\d*\]\.(.+)$/.exec(path);
    if (term) return schemas['Term']?.properties?.[term[1]!];
    return schemas['CalculationRequest']?.properties?.[path];
  };
  return {
    describe(path) {
      const text = find(node(path), 'description');
      return typeof text === 'string' ? text.replace(NUMBER_TEXT, '').trim() || undefined : undefined;
    },
    values(path) {
      const values = find(node(path), 'enum');
      return Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
    },
    ruleSet: doc.info?.['x-rule-set'],
  };
}

export async function loadFieldHelp(): Promise<FieldHelp> {
  try {
    const res = await fetch('/v1/openapi.json', { headers: { accept: 'application/json' } });
    if (!res.ok) return fieldHelp({});
    return fieldHelp(await res.json());
  } catch {
    return fieldHelp({});
  }
}
