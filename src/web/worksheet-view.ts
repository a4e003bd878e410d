/**
 * The worksheet on the page (POST /v1/calculate/worksheet, Accept: application/json): its summary first, as page 1
 * of the PDF reads (worksheet-summary.ts: the student, the award year, the rule set and policy, the percentage with
 * its arithmetic, each annual amount as base × percentage, the schedule per term under both options, adjustments
 * and warnings), then every step of the calculation as a folded appendix, each step's outputs in words. The same
 * worksheet as a PDF for the student's file (Accept: application/pdf). The student's name and ID go with these two
 * requests only (`student`), never with the calculation or in a link.
 */
import { apiFetch, saveAs } from './api.ts';
import { formatDollars, formatNumber, h, inert } from './dom.ts';
import type { StudentIdentity } from './form.ts';
import type { Disbursement } from './policy.ts';
import type { WorksheetSummary } from './summary-types.ts';
import { summaryView } from './worksheet-summary.ts';
import { inWords, isDollars, pathWords, statusWords } from './words.ts';

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
  summary?: WorksheetSummary;
  result?: { terms?: { label: string }[] };
}

/** The worksheet request: the calculation's request, with the student's name and ID when given. */
export function worksheetBody(request: Record<string, unknown>, student: StudentIdentity): string {
  return JSON.stringify(Object.keys(student).length > 0 ? { ...request, student } : request);
}

/** A step's output value as the page writes it: dollars, percentages, words. */
function valueText(path: string, value: unknown): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (value === '') return 'none';
  if (value === null) return '—';
  if (typeof value === 'string') return path.endsWith('enrollment_status') ? statusWords(value) : inWords(value);
  if (typeof value === 'number') {
    if (isDollars(path)) return formatDollars(value);
    return path.endsWith('_pct') ? `${value}%` : formatNumber(value);
  }
  return '—';
}

/** What a step produced, each figure named in words and tagged with its path in the result (`data-field`). */
function outputs(data: unknown, termName: (index: number) => string): HTMLElement | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const entries = Object.entries(data);
  if (entries.length === 0) return null;
  return h(
    'dl',
    { class: 'values' },
    ...entries.flatMap(([path, value]) => [
      h('dt', {}, inert(pathWords(path, termName))),
      h('dd', { 'data-field': path }, inert(valueText(path, value))),
    ]),
  );
}

function stepView(step: Step, index: number, termName: (index: number) => string): HTMLElement {
  return h(
    'li',
    { class: 'step', 'data-step': step.id },
    h('h4', {}, `${index + 1}. `, inert(inWords(step.title))),
    h('p', { class: 'cite' }, h('cite', {}, inert(inWords(step.citation)))),
    h('p', { class: 'formula api' }, h('span', { class: 'vh' }, 'Formula: '), inert(step.formula)),
    outputs(step.output, termName),
  );
}

/** The step trace, folded: for an auditor who wants every step (the PDF prints it after the summary). */
function appendix(sheet: Worksheet): HTMLElement {
  const labels = sheet.result?.terms?.map((t) => t.label) ?? [];
  const termName = (i: number) => labels[i] ?? `Term ${i + 1}`;
  return h(
    'details',
    { class: 'appendix', id: 'worksheet-steps' },
    h('summary', {}, `Every step of the calculation (${sheet.steps.length} steps)`),
    h(
      'p',
      { class: 'note' },
      'Each step with its legal source, its formula as the service computes it, and the figures it produced.',
    ),
    h('ol', { class: 'steps' }, ...sheet.steps.map((step, i) => stepView(step, i, termName))),
  );
}

/** Fetches and shows the worksheet; says so plainly when it cannot. Resolves to true when it is shown. */
export async function showWorksheet(
  target: HTMLElement,
  request: Record<string, unknown>,
  student: StudentIdentity,
  school: Disbursement,
): Promise<boolean> {
  const heading = h('h2', { id: 'worksheet-heading' }, 'Worksheet for the student’s file');
  target.replaceChildren(heading, h('p', { role: 'status' }, 'Preparing the worksheet…'));
  let res: Response;
  try {
    res = await apiFetch(WORKSHEET_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: worksheetBody(request, student),
    });
  } catch {
    target.replaceChildren(heading, h('p', {}, 'The worksheet could not be loaded: the service did not answer.'));
    return false;
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { message?: string; field_errors?: { message: string }[] };
    const why = body.field_errors?.[0]?.message ?? body.message;
    const text = `The worksheet could not be made${why ? `: ${inWords(why)}` : '.'}`;
    target.replaceChildren(heading, h('p', { class: 'error inert' }, text));
    return false;
  }
  const sheet = (await res.json()) as Worksheet;
  target.replaceChildren(
    heading,
    ...(sheet.summary ? summaryView(sheet.summary, school) : []),
    h(
      'div',
      { class: 'signoff print-only' },
      h('p', {}, 'Prepared by: ____________________   Date: ____________'),
      h('p', {}, 'Reviewed by: ____________________   Date: ____________'),
    ),
    appendix(sheet),
  );
  return true;
}

/** The file name the service gives the PDF (Content-Disposition), else a plain one. */
export function pdfFileName(disposition: string | null): string {
  const m = /filename="?([^";]+)"?/i.exec(disposition ?? '');
  return m?.[1] ?? 'worksheet.pdf';
}

/** Downloads the worksheet PDF; resolves to an error message, or null when it was saved. */
export function downloadPdf(request: Record<string, unknown>, student: StudentIdentity): Promise<string | null> {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/pdf' },
    body: worksheetBody(request, student),
  };
  return saveAs(WORKSHEET_PATH, init, pdfFileName);
}
