/**
 * The worksheet: every step of the calculation with its rules.md section, its legal citation, the formula and
 * what went in and came out (POST /v1/calculate/worksheet, Accept: application/json), and the same worksheet as
 * a PDF for the student's file (Accept: application/pdf).
 */
import { apiFetch, saveAs } from './api.ts';
import { formatNumber, h, inert } from './dom.ts';

export const WORKSHEET_PATH = '/v1/calculate/worksheet';

interface Step {
  id: string;
  section: string;
  title: string;
  citation: string;
  formula: string;
  inputs: unknown;
  output: unknown;
}
interface Worksheet {
  rule_set: string;
  steps: Step[];
  /** The school policy used, every option (rules.md §10). */
  policy?: unknown;
}

/** Inputs and outputs as name → value lines; a list or a nested object is shown as compact text. */
function values(data: unknown, withFields: boolean): HTMLElement {
  if (data === null || typeof data !== 'object') return h('p', {}, formatNumber(data));
  const entries = Array.isArray(data) ? data.map((v, i) => [String(i), v] as const) : Object.entries(data);
  if (entries.length === 0) return h('p', { class: 'none' }, '—');
  return h(
    'dl',
    { class: 'values' },
    ...entries.flatMap(([name, value]) => [
      h('dt', {}, inert(name)),
      h(
        'dd',
        withFields ? { 'data-field': name } : {},
        inert(typeof value === 'object' && value !== null ? JSON.stringify(value) : formatNumber(value)),
      ),
    ]),
  );
}

function stepView(step: Step, index: number): HTMLElement {
  return h(
    'li',
    { class: 'step', 'data-step': step.id },
    h('h3', {}, `${index + 1}. `, inert(step.title)),
    h(
      'p',
      { class: 'cite' },
      h('span', {}, `rules.md ${step.section.startsWith('§') ? '' : '§'}${step.section}`),
      ' · ',
      h('cite', {}, inert(step.citation)),
    ),
    h('p', { class: 'formula' }, inert(step.formula)),
    h(
      'div',
      { class: 'io' },
      h('div', {}, h('h4', {}, 'Inputs'), values(step.inputs, false)),
      h('div', {}, h('h4', {}, 'Output'), values(step.output, true)),
    ),
  );
}

/** The worksheet's school policy, every option as the service used it (rules.md §10). */
function policyLine(policy: unknown): HTMLElement | null {
  if (policy === null || typeof policy !== 'object') return null;
  const text = Object.entries(policy)
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(', ');
  return h('p', { class: 'cite', 'data-field': 'policy' }, 'School policy used: ', inert(text));
}

/** Fetches and shows the worksheet; says so plainly when this server has no worksheet endpoint. */
export async function showWorksheet(target: HTMLElement, request: unknown): Promise<boolean> {
  target.replaceChildren(h('h2', {}, 'Worksheet'), h('p', { role: 'status' }, 'Loading the worksheet…'));
  let res: Response;
  try {
    res = await apiFetch(WORKSHEET_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request),
    });
  } catch {
    target.replaceChildren(h('h2', {}, 'Worksheet'), h('p', {}, 'The worksheet could not be loaded.'));
    return false;
  }
  if (!res.ok) {
    const why = res.status === 404 ? 'This server has no worksheet.' : `The worksheet failed (${res.status}).`;
    target.replaceChildren(h('h2', {}, 'Worksheet'), h('p', {}, why));
    return false;
  }
  const sheet = (await res.json()) as Worksheet;
  target.replaceChildren(
    h('h2', {}, 'Worksheet'),
    h('p', {}, `How each dollar was computed (rule set ${sheet.rule_set}), step by step, with the rule behind it.`),
    policyLine(sheet.policy) ?? '',
    h('ol', { class: 'steps' }, ...sheet.steps.map(stepView)),
  );
  return true;
}

/** Downloads the worksheet PDF for `request`; resolves to an error message, or null when it was saved. */
export function downloadPdf(request: unknown, fileName: string): Promise<string | null> {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/pdf' },
    body: JSON.stringify(request),
  };
  return saveAs(WORKSHEET_PATH, init, fileName);
}
