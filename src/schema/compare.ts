/**
 * The request of POST /v1/calculate/compare: a base CalculationRequest and 1 to MAX_SCENARIOS named scenarios,
 * each a list of changes to the base's terms (a term's credits_enrolled, its actual_final_credits, or the term
 * dropped). `parseCompareRequest` reports every offending field by path (`base.terms[1].credits_enrolled`,
 * `scenarios[0].changes[0].term`) or returns the CompareInput of src/domain/compare.ts.
 *
 * Nothing of CalculationRequest is checked here: the base goes through parseCalculationRequest (its fast path
 * included), a change's value through the Term schema's own field, and each scenario is the base request as the
 * client wrote it with its changes applied — parsed by parseCalculationRequest again, so a scenario is exactly
 * what POST /v1/calculate would answer for that request, and one that is not a valid request (every term dropped)
 * is a 422 naming the scenario.
 */
import type { FieldError } from '../errors.ts';
import type { CompareInput, ScenarioChange, ScenarioInput } from '../domain/compare.ts';
import { formatPath, parseCalculationRequest, type ParseOptions } from './request.ts';
import { MAX_INSPECTED_TERMS, labelLength } from './request-limits.ts';
import { isPlainObject } from './request-fast-path.ts';
import {
  CHANGE_FIELDS,
  MAX_CHANGES,
  MAX_SCENARIOS,
  MAX_SCENARIO_NAME_LENGTH,
  termField,
  type ChangeField,
} from './compare-schema.ts';

export {
  CHANGE_FIELDS,
  CompareRequestSchema,
  CompareResultSchema,
  MAX_CHANGES,
  MAX_SCENARIOS,
  MAX_SCENARIO_NAME_LENGTH,
} from './compare-schema.ts';

type ChangeKind = ChangeField | 'drop';
const CHANGE_KINDS: readonly ChangeKind[] = [...CHANGE_FIELDS, 'drop'];
const REQUEST_KEYS = ['base', 'scenarios'] as const;
const SCENARIO_KEYS = ['name', 'changes'] as const;

export type CompareParseResult = { ok: true; value: CompareInput } | { ok: false; fieldErrors: FieldError[] };

const own = (object: Record<string, unknown>, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;

const has = (object: Record<string, unknown>, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(object, key);

const MAX_ECHOED_KEY_LENGTH = 100;
const echoKey = (key: string) => (key.length > MAX_ECHOED_KEY_LENGTH ? `${key.slice(0, MAX_ECHOED_KEY_LENGTH)}…` : key);

/** Every own key of `object` outside `allowed`: `is not an allowed field` at `<path>.<key>`. */
function unknownKeys(
  object: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  errors: FieldError[],
): void {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      errors.push({
        field: path === '' ? echoKey(key) : `${path}.${echoKey(key)}`,
        message: 'is not an allowed field',
      });
    }
  }
}

/** `base.<path>` for an error of the base request (its whole-body error at `base`). */
const underBase = (error: FieldError): FieldError => ({
  field: error.field === 'body' ? 'base' : `base.${error.field}`,
  message: error.message,
});

// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function nameError(name: unknown): string | null {
  const range = `a string of 1 to ${MAX_SCENARIO_NAME_LENGTH} characters`;
  if (name === undefined) return 'is required';
  if (typeof name !== 'string') return `must be ${range}`;
  const length = labelLength(name);
  if (length === 0 || length > MAX_SCENARIO_NAME_LENGTH) return `must be ${range} (got ${length})`;
  if (name.trim() === '') return 'must contain a character other than spaces';
  if (CONTROL.test(name)) return 'must not contain control characters (line breaks, tabs…)';
  return null;
}

/** A change as the client wrote it (its value not yet canonical), once its shape is valid. */
interface RawChange {
  term: number;
  kind: ChangeKind;
  value: unknown;
}

function parseChange(
  raw: unknown,
  path: string,
  termCount: number | null,
  errors: FieldError[],
): { raw: RawChange; change: ScenarioChange } | null {
  if (!isPlainObject(raw)) {
    errors.push({ field: path, message: 'must be an object (a change: {"term": 1, "credits_enrolled": 6})' });
    return null;
  }
  const before = errors.length;
  unknownKeys(raw, ['term', ...CHANGE_KINDS], path, errors);
  const term = own(raw, 'term');
  const termRange =
    termCount === null
      ? 'a whole number from 0'
      : `a whole number from 0 to ${termCount - 1} (base.terms has ${termCount})`;
  if (term === undefined) errors.push({ field: `${path}.term`, message: 'is required' });
  else if (
    typeof term !== 'number' ||
    !Number.isInteger(term) ||
    term < 0 ||
    (termCount !== null && term >= termCount)
  ) {
    errors.push({ field: `${path}.term`, message: `must be the index of a term of base.terms: ${termRange}` });
  }
  const kinds = CHANGE_KINDS.filter((kind) => has(raw, kind));
  if (kinds.length !== 1) {
    errors.push({
      field: path,
      message: `must have exactly one of ${CHANGE_KINDS.join(', ')} (got ${kinds.length === 0 ? 'none' : kinds.join(' and ')})`,
    });
  }
  let change: ScenarioChange | null = null;
  for (const kind of kinds) {
    const value = own(raw, kind);
    if (kind === 'drop') {
      if (value !== true) {
        errors.push({ field: `${path}.drop`, message: 'must be true (leave the change out to keep the term)' });
      }
      change = { term: term as number, drop: true };
      continue;
    }
    const parsed = termField(kind).safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        errors.push({ field: formatPath([path, kind, ...issue.path]), message: issue.message });
      }
      continue;
    }
    change =
      kind === 'credits_enrolled'
        ? { term: term as number, credits_enrolled: parsed.data as string }
        : { term: term as number, actual_final_credits: parsed.data as string | null };
  }
  if (errors.length > before || change === null) return null;
  return { raw: { term: term as number, kind: kinds[0]!, value: own(raw, kinds[0]!) }, change };
}

/** A second change of the same field of a term, or any change of a term the scenario drops. */
function conflicts(changes: readonly RawChange[], path: string, errors: FieldError[]): void {
  changes.forEach((change, j) => {
    const earlier = changes.findIndex(
      (other, i) =>
        i < j &&
        other.term === change.term &&
        (other.kind === change.kind || other.kind === 'drop' || change.kind === 'drop'),
    );
    if (earlier === -1) return;
    const other = changes[earlier]!;
    errors.push({
      field: `${path}[${j}]`,
      message:
        other.kind === change.kind
          ? `changes ${change.kind === 'drop' ? 'drops' : change.kind + ' of'} term ${change.term} again (${path}[${earlier}] already does)`
          : `term ${change.term} is dropped in this scenario and takes no other change (${path}[${earlier}])`,
    });
  });
}

/** The request of a scenario: the base request as written, with the changes applied (dropped terms left out). */
export function appliedRequest(
  base: Record<string, unknown>,
  changes: readonly { term: number; kind: ChangeKind; value: unknown }[],
): Record<string, unknown> {
  const terms = own(base, 'terms') as readonly Record<string, unknown>[];
  const applied = terms.map((term) => ({ ...term }));
  const dropped = new Set<number>();
  for (const change of changes) {
    if (change.kind === 'drop') dropped.add(change.term);
    else applied[change.term]![change.kind] = change.value;
  }
  return { ...base, terms: applied.filter((_, i) => !dropped.has(i)) };
}

function parseScenario(
  raw: unknown,
  index: number,
  firstWithName: number,
  baseBody: Record<string, unknown> | null,
  termCount: number | null,
  options: ParseOptions,
  errors: FieldError[],
): ScenarioInput | null {
  const path = `scenarios[${index}]`;
  if (!isPlainObject(raw)) {
    errors.push({ field: path, message: 'must be an object (a scenario: {"name": "…", "changes": […]})' });
    return null;
  }
  const before = errors.length;
  unknownKeys(raw, SCENARIO_KEYS, path, errors);
  const name = own(raw, 'name');
  const nameProblem = nameError(name);
  if (nameProblem !== null) errors.push({ field: `${path}.name`, message: nameProblem });
  else if (firstWithName < index) {
    errors.push({
      field: `${path}.name`,
      message: `must differ from the other scenarios' names (scenarios[${firstWithName}] has this name)`,
    });
  }
  const list = own(raw, 'changes');
  const changesPath = `${path}.changes`;
  const parsed: { raw: RawChange; change: ScenarioChange }[] = [];
  if (list === undefined) errors.push({ field: changesPath, message: 'is required' });
  else if (!Array.isArray(list)) {
    errors.push({ field: changesPath, message: `must be an array of 1 to ${MAX_CHANGES} changes` });
  } else if (list.length === 0) errors.push({ field: changesPath, message: 'must contain at least 1 change' });
  else if (list.length > MAX_CHANGES) {
    errors.push({ field: changesPath, message: `must contain at most ${MAX_CHANGES} changes (got ${list.length})` });
  } else {
    list.forEach((item: unknown, j) => {
      const change = parseChange(item, `${changesPath}[${j}]`, termCount, errors);
      if (change !== null) parsed.push(change);
    });
    if (errors.length === before)
      conflicts(
        parsed.map((c) => c.raw),
        changesPath,
        errors,
      );
  }
  if (errors.length > before || baseBody === null) return null;
  const request = parseCalculationRequest(
    appliedRequest(
      baseBody,
      parsed.map((c) => c.raw),
    ),
    options,
  );
  if (!request.ok) {
    for (const problem of request.fieldErrors) {
      errors.push({
        field: path,
        message: `with its changes applied, the request is not valid: ${problem.field} ${problem.message}`,
      });
    }
    return null;
  }
  return { name: name as string, changes: parsed.map((c) => c.change), input: request.value };
}

/**
 * Validates a comparison request (already JSON-parsed) and returns the base and every scenario as calculation
 * inputs, or every offending field. `options` are parseCalculationRequest's (the deployment's default policy…),
 * for the base and the scenarios alike.
 */
export function parseCompareRequest(body: unknown, options: ParseOptions = {}): CompareParseResult {
  if (!isPlainObject(body)) return { ok: false, fieldErrors: [{ field: 'body', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  unknownKeys(body, REQUEST_KEYS, '', errors);

  const rawBase = own(body, 'base');
  let base: CompareInput['base'] | null = null;
  if (rawBase === undefined) errors.push({ field: 'base', message: 'is required' });
  else {
    const parsed = parseCalculationRequest(rawBase, options);
    if (parsed.ok) base = parsed.value;
    else errors.push(...parsed.fieldErrors.map(underBase));
  }
  // The base's terms as written bound the changes' term indexes (when the base has a list of terms at all).
  const rawTerms = isPlainObject(rawBase) ? own(rawBase, 'terms') : undefined;
  const termCount = Array.isArray(rawTerms) && rawTerms.length <= MAX_INSPECTED_TERMS ? rawTerms.length : null;

  const rawScenarios = own(body, 'scenarios');
  const scenarios: ScenarioInput[] = [];
  if (rawScenarios === undefined) errors.push({ field: 'scenarios', message: 'is required' });
  else if (!Array.isArray(rawScenarios)) {
    errors.push({ field: 'scenarios', message: `must be an array of 1 to ${MAX_SCENARIOS} scenarios` });
  } else if (rawScenarios.length === 0) {
    errors.push({ field: 'scenarios', message: 'must contain at least 1 scenario' });
  } else if (rawScenarios.length > MAX_SCENARIOS) {
    errors.push({
      field: 'scenarios',
      message: `must contain at most ${MAX_SCENARIOS} scenarios (got ${rawScenarios.length})`,
    });
  } else {
    const baseBody = base === null ? null : (rawBase as Record<string, unknown>);
    const names = rawScenarios.map((raw: unknown) => (isPlainObject(raw) ? own(raw, 'name') : undefined));
    rawScenarios.forEach((raw: unknown, i) => {
      const scenario = parseScenario(raw, i, names.indexOf(names[i]), baseBody, termCount, options, errors);
      if (scenario !== null) scenarios.push(scenario);
    });
  }

  if (errors.length > 0 || base === null) {
    return { ok: false, fieldErrors: errors.length > 0 ? errors : [{ field: 'body', message: 'is invalid' }] };
  }
  return { ok: true, value: { base, scenarios } };
}
