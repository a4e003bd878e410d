/**
 * The worksheet as one self-contained, printable HTML page (text/html of POST /v1/calculate/worksheet): page 1 is
 * the summary (content.ts), the appendices follow (appendix.ts). Inline CSS with a print stylesheet (html-style.ts),
 * no script, no external font or file. Every text from the request or the result is HTML-escaped, bidirectional
 * controls shown inert. Figures carry `data-field` with their JSON path in the result (`reduced_annual_pct`,
 * `terms[0].proportional.subsidized`), policy values `data-field="policy.<option>"`.
 */
import type { SummaryLoan, WorksheetSummary } from '../../domain/summary.ts';
import { type StepRow, TERM_INPUT_HEADERS, inputRows, pairedRows, stepAppendix, termInputRows } from './appendix.ts';
import {
  type WorksheetDocument,
  LOAN_SHORT,
  NONE,
  SIGNATURES,
  WORKSHEET_TITLE,
  annualCitations,
  dollars,
  metaFields,
  type PolicyLine,
  SERVICE_DEFAULT,
  scheduleShares,
  policyLines,
  policyOnPage1,
  scheduleLoans,
  showBidiControls,
  studentFields,
} from './content.ts';
import { WORKSHEET_STYLE } from './html-style.ts';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` safe in HTML text and attribute values; bidirectional controls shown as inert escapes (content.ts). */
export function escapeHtml(text: string): string {
  return showBidiControls(text).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const esc = escapeHtml;
const field = (path: string | null) => (path === null ? '' : ` data-field="${esc(path)}"`);
const num = (text: string, path: string | null = null) => `<td class="num"${field(path)}>${esc(text)}</td>`;

/** The result's name of a loan in an option (`subsidized`) and in the annual amounts (`sub`). */
const ANNUAL_FIELD: Readonly<Record<SummaryLoan, string>> = {
  subsidized: 'annual_basic_eligibility_sub',
  unsubsidized: 'annual_basic_eligibility_unsub',
  grad_plus: 'annual_basic_eligibility_grad_plus',
};

function definitions(className: string, pairs: readonly [string, string][], fields: (string | null)[] = []): string {
  const items = pairs.map(
    ([term, value], i) => `<div><dt>${esc(term)}</dt><dd${field(fields[i] ?? null)}>${esc(value)}</dd></div>`,
  );
  return `<dl class="${className}">${items.join('')}</dl>`;
}

function policyTable(lines: readonly PolicyLine[]): string {
  const rows = lines.map(
    (p) =>
      `<tr${p.note === SERVICE_DEFAULT ? '' : ' class="chosen"'}><th scope="row">${esc(p.label)}</th>` +
      `<td data-field="policy.${esc(p.option)}">${esc(p.value)}</td><td class="small">${esc(p.note)}</td></tr>`,
  );
  return (
    '<table class="policy"><caption class="visually-hidden">School policy</caption>' +
    '<colgroup><col style="width:30%"><col style="width:34%"><col style="width:36%"></colgroup>' +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

/** Page 1: the options the school chose, and a sentence for the rest. */
function policySection(summary: WorksheetSummary): string {
  const { chosen, rest } = policyOnPage1(summary);
  return `<h2>School policy</h2>${chosen.length === 0 ? '' : policyTable(chosen)}<p class="small">${esc(rest)}</p>`;
}

function percentageSection(summary: WorksheetSummary): string {
  const p = summary.percentage;
  const heading = p.kind === 'final_period' ? 'Final-period proration' : 'Academic-year percentage';
  let out =
    `<h2>${heading}</h2><p class="figure"><strong data-field="reduced_annual_pct">${p.pct}%</strong>` +
    `<span class="arith">${esc(p.arithmetic)}</span></p><p>${esc(p.text)}</p>`;
  if (p.limits.length > 0) {
    const rows = p.limits.map(
      (l) =>
        `<tr><th scope="row">${esc(l.label)}</th>${num(dollars(l.statutory))}<td class="arith">${esc(l.arithmetic)}</td>` +
        `${num(dollars(l.prorated))}</tr>`,
    );
    out +=
      '<table class="limits"><colgroup><col style="width:34%"><col style="width:14%"><col style="width:36%">' +
      '<col style="width:16%"></colgroup><thead><tr><th scope="col">Limit</th><th scope="col" class="num">Annual ' +
      'limit</th><th scope="col">Prorated</th><th scope="col" class="num">Prorated limit</th></tr></thead>' +
      `<tbody>${rows.join('')}</tbody></table>`;
  }
  return `${out}<p class="cite">${esc(p.citation)}</p>`;
}

function annualSection(summary: WorksheetSummary): string {
  const rows = summary.annual.map(
    (a) =>
      `<tr><th scope="row">${esc(a.label)}</th><td class="arith">${esc(a.arithmetic)}</td>` +
      `${num(dollars(a.amount), ANNUAL_FIELD[a.loan])}<td class="small">${esc(a.basis)}</td></tr>`,
  );
  return (
    '<h2>Annual amounts</h2><table class="annual"><colgroup><col style="width:19%"><col style="width:31%">' +
    '<col style="width:14%"><col style="width:36%"></colgroup><thead><tr><th scope="col">Loan</th>' +
    '<th scope="col">Starting amount × percentage</th><th scope="col" class="num">Annual amount</th>' +
    `<th scope="col">Starting amount</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
    `<p class="cite">${esc(annualCitations(summary).join('; '))}</p>`
  );
}

function scheduleSection(summary: WorksheetSummary): string {
  const loans = scheduleLoans(summary);
  const proportional = summary.totals.proportional !== null;
  const options = proportional ? (['equal', 'proportional'] as const) : (['equal'] as const);
  const group = (o: string) => `<th scope="colgroup" colspan="${loans.length}" class="group">${o}</th>`;
  const loanHeads = options.flatMap(() => loans.map((l) => `<th scope="col" class="num">${LOAN_SHORT[l]}</th>`));
  const head =
    '<thead><tr><th scope="col" rowspan="2">Term</th><th scope="col" rowspan="2">Status</th>' +
    `${options.map((o) => group(o === 'equal' ? 'Equal' : 'Proportional')).join('')}</tr>` +
    `<tr>${loanHeads.join('')}</tr></thead>`;
  const rows = summary.schedule.map((t, i) => {
    const cells = options.flatMap((o) =>
      loans.map((l) => {
        const option = o === 'equal' ? t.equal : t.proportional;
        return option === null ? num('') : num(dollars(option[l]), `terms[${i}].${o}.${l}`);
      }),
    );
    const note = t.note === '' ? '' : `<span class="term-note">${esc(t.note)}</span>`;
    return (
      `<tr><th scope="row">${esc(t.label)}</th><td>${esc(t.status)} (${t.intensity_pct}%)` +
      `<span class="term-note">${esc(t.credits)}</span>${note}</td>${cells.join('')}</tr>`
    );
  });
  const totals = options.flatMap((o) =>
    loans.map((l) => {
      const option = o === 'equal' ? summary.totals.equal : summary.totals.proportional;
      return num(option === null ? '' : dollars(option[l]), `total_${o}.${l}`);
    }),
  );
  const [termShare, statusShare] = scheduleShares(options.length * loans.length);
  const share = (100 - termShare - statusShare) / (options.length * loans.length);
  const cols =
    `<colgroup><col style="width:${termShare}%"><col style="width:${statusShare}%">` +
    options.flatMap(() => loans.map(() => `<col style="width:${share.toFixed(2)}%">`)).join('') +
    '</colgroup>';
  return (
    `<h2>Schedule per term</h2><table class="schedule">${cols}${head}<tbody>${rows.join('')}` +
    `<tr class="total"><th scope="row">Total</th><td></td>${totals.join('')}</tr></tbody></table>` +
    `<p class="small">${esc(summary.options)}</p>`
  );
}

function list(heading: string, items: readonly string[]): string {
  const body = items.length === 0 ? `<p>${NONE}</p>` : `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`;
  return `<h2>${heading}</h2>${body}`;
}

function signatures(): string {
  const lines = SIGNATURES.flatMap((who) => [`<div>${who}</div>`, '<div>Date</div>']);
  return `<div class="signatures">${lines.join('')}</div>`;
}

function summaryPage(doc: WorksheetDocument): string {
  const s = doc.summary;
  return (
    '<section class="summary" aria-labelledby="worksheet-title">' +
    `<h1 id="worksheet-title">${esc(WORKSHEET_TITLE)}</h1>` +
    definitions('who', studentFields(s.student)) +
    definitions('meta', metaFields(doc), [null, 'rule_set', null, null]) +
    policySection(s) +
    percentageSection(s) +
    annualSection(s) +
    scheduleSection(s) +
    list('Adjustments', s.adjustments) +
    list('Warnings', s.warnings) +
    signatures() +
    '</section>'
  );
}

function inputsAppendix(doc: WorksheetDocument): string {
  const student = pairedRows(inputRows(doc.input))
    .map(
      ([k1, v1, k2, v2]) =>
        `<tr><th scope="row">${esc(k1!)}</th><td>${esc(v1!)}</td>` +
        (k2 === '' ? '<td></td><td></td>' : `<th scope="row">${esc(k2!)}</th><td>${esc(v2!)}</td>`) +
        '</tr>',
    )
    .join('');
  const head = TERM_INPUT_HEADERS.map((h) => `<th scope="col">${esc(h)}</th>`).join('');
  const terms = termInputRows(doc.input)
    .map((r) => `<tr>${r.map((v, i) => (i === 0 ? `<th scope="row">${esc(v)}</th>` : num(v))).join('')}</tr>`)
    .join('');
  return (
    '<h2>Appendix A. The student’s inputs and the school policy</h2>' +
    '<table class="inputs"><colgroup><col style="width:30%"><col style="width:20%"><col style="width:30%">' +
    '<col style="width:20%"></colgroup>' +
    `<tbody>${student}</tbody></table>` +
    `<table class="terms"><thead><tr>${head}</tr></thead><tbody>${terms}</tbody></table>` +
    '<h3>School policy in force</h3>' +
    policyTable(policyLines(doc.summary))
  );
}

function stepRow(row: StepRow): string {
  const outputs =
    row.outputs.length === 0
      ? ''
      : `<ul>${row.outputs.map(([what, value]) => `<li>${esc(what)}: <strong>${esc(value)}</strong></li>`).join('')}</ul>`;
  return (
    `<tr id="step-${esc(row.id)}"><td class="num">${row.number}</td><th scope="row">${esc(row.title)}</th>` +
    `<td>${esc(row.rule)} <a href="#source-${row.source}">[${row.source}]</a></td>` +
    `<td class="formula">${esc(row.formula)}</td><td>${outputs}</td></tr>`
  );
}

function stepsAppendix(doc: WorksheetDocument): string {
  const { rows, sources } = stepAppendix(doc.steps, doc.result);
  return (
    '<h2>Appendix B. How each amount was computed</h2>' +
    '<table class="steps"><colgroup><col style="width:4%"><col style="width:15%"><col style="width:13%">' +
    '<col style="width:43%"><col style="width:25%"></colgroup><thead><tr><th scope="col" class="num">#</th>' +
    '<th scope="col">Step</th><th scope="col">Rule [source]</th><th scope="col">How it was computed</th>' +
    `<th scope="col">Result</th></tr></thead><tbody>${rows.map(stepRow).join('')}</tbody></table>` +
    '<h3>Sources</h3><ol class="sources">' +
    sources.map((c, i) => `<li id="source-${i + 1}">${esc(c)}</li>`).join('') +
    '</ol>'
  );
}

export function renderWorksheetHtml(doc: WorksheetDocument): string {
  const who = doc.summary.student?.name ?? doc.summary.student?.id;
  const title = `${WORKSHEET_TITLE}${who === undefined || who === null ? '' : ` — ${who}`} (${doc.summary.award_year})`;
  return (
    '<!DOCTYPE html>\n' +
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${esc(title)}</title><style>${WORKSHEET_STYLE}</style></head><body><main>` +
    summaryPage(doc) +
    `<section class="appendix">${inputsAppendix(doc)}${stepsAppendix(doc)}</section>` +
    '</main></body></html>\n'
  );
}
