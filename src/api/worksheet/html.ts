/**
 * The worksheet as one self-contained, printable HTML page (text/html of POST /v1/calculate/worksheet): inline
 * CSS with a print stylesheet, no script, no external font or file. Every text from the request or the result is
 * HTML-escaped. Result cells carry `data-field` with their JSON path (`terms[0].proportional.subsidized`).
 */
import {
  type WorksheetDocument,
  RESULT_COLUMNS,
  TERM_INPUT_COLUMNS,
  WORKSHEET_TITLE,
  POLICY_HEADERS,
  adjustmentNotes,
  defaultText,
  formatDate,
  formatValue,
  inputLines,
  outputLines,
  policyNote,
  policyRows,
  showBidiControls,
  studentLine,
  studentRows,
  summaryRows,
  termInputRows,
  totalCells,
} from './content.ts';

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

const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1a1a1a;
  margin: 2rem auto; max-width: 72rem; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 .5rem; border-bottom: 1px solid #bbb; padding-bottom: .2rem; }
.meta { color: #444; margin: 0 0 1rem; }
.meta span { margin-right: 1.5rem; white-space: nowrap; }
table { border-collapse: collapse; width: 100%; margin: .25rem 0 1rem; }
th, td { border: 1px solid #bbb; padding: .25rem .4rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.total td { font-weight: 600; background: #fafafa; }
tr.non-default td { font-weight: 600; }
.scroll { overflow-x: auto; }
ol.steps { padding-left: 1.5rem; }
ol.steps li { margin: 0 0 .75rem; break-inside: avoid; page-break-inside: avoid; }
.step-head { font-weight: 600; }
.step-id { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-weight: 400; color: #333; }
.citation { color: #333; font-style: italic; }
.formula { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; }
.output { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; color: #0b4f2c; }
ul.warnings li { margin-bottom: .35rem; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  h2 { break-after: avoid; page-break-after: avoid; }
  table, tr { break-inside: avoid; page-break-inside: avoid; }
  .scroll { overflow: visible; }
  th { background: #eee !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  @page { margin: 12mm; }
}
`;

function cell(text: string, numeric: boolean, field: string | null): string {
  const attr = field === null ? '' : ` data-field="${escapeHtml(field)}"`;
  return `<td${numeric ? ' class="num"' : ''}${attr}>${escapeHtml(text)}</td>`;
}

function isNumeric(value: unknown): boolean {
  return typeof value === 'number' || value === null;
}

function keyValueTable(caption: string, rows: [string, string][], dataFields: boolean): string {
  const body = rows
    .map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th>${cell(v, false, dataFields ? k : null)}</tr>`)
    .join('');
  return `<table><caption class="visually-hidden">${escapeHtml(caption)}</caption><tbody>${body}</tbody></table>`;
}

function termInputsTable(doc: WorksheetDocument): string {
  const head = TERM_INPUT_COLUMNS.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('');
  const rows = termInputRows(doc.input)
    .map((r) => `<tr>${r.map((v, i) => cell(v, i > 0, null)).join('')}</tr>`)
    .join('');
  return `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The school policy in force: every option of the table, its value (data-field policy.<option>), default or not. */
function policyTable(doc: WorksheetDocument): string {
  const head = POLICY_HEADERS.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const rows = policyRows(doc.input.policy)
    .map(
      (r) =>
        `<tr${r.isDefault ? '' : ' class="non-default"'}><th scope="row">${escapeHtml(r.option)}</th>` +
        cell(r.value, false, `policy.${r.option}`) +
        cell(defaultText(r), false, null) +
        cell(policyNote(r), false, null) +
        '</tr>',
    )
    .join('');
  return `<div class="scroll"><table class="policy"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function resultsTable(doc: WorksheetDocument): string {
  const head = RESULT_COLUMNS.map((c) => `<th scope="col">${escapeHtml(c.header)}</th>`).join('');
  const rows = doc.result.terms
    .map((t, i) => {
      const cells = RESULT_COLUMNS.map((c) => {
        const value = c.value(t);
        return cell(formatValue(value), isNumeric(value), `terms[${i}].${c.field}`);
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('');
  const total = totalCells(doc.result)
    .map((c, i) => cell(c.text, i > 0, c.path))
    .join('');
  return (
    `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${rows}` +
    `<tr class="total">${total}</tr></tbody></table></div>`
  );
}

function list(items: string[], className: string, empty: string): string {
  if (items.length === 0) return `<p>${escapeHtml(empty)}</p>`;
  return `<ul class="${className}">${items.map((i) => `<li>${i}</li>`).join('')}</ul>`;
}

function stepsList(doc: WorksheetDocument): string {
  const items = doc.steps.map((s) => {
    const inputs = inputLines(s);
    const outputs = outputLines(s);
    return (
      `<li id="step-${escapeHtml(s.id)}"><div class="step-head">${escapeHtml(s.section)} ${escapeHtml(s.title)} ` +
      `<span class="step-id">(${escapeHtml(s.id)})</span></div>` +
      `<div class="citation">${escapeHtml(s.citation)}</div>` +
      `<div class="formula">${escapeHtml(s.formula)}</div>` +
      (inputs.length === 0 ? '' : `<div class="inputs">Inputs: ${escapeHtml(inputs.join('; '))}</div>`) +
      (outputs.length === 0 ? '' : `<div class="output">→ ${escapeHtml(outputs.join('; '))}</div>`) +
      `</li>`
    );
  });
  return `<ol class="steps">${items.join('')}</ol>`;
}

export function renderWorksheetHtml(doc: WorksheetDocument): string {
  const warnings = doc.result.warnings.map((w) => escapeHtml(w));
  const notes = adjustmentNotes(doc.result).map(
    ([label, text]) => `<strong>${escapeHtml(label)}</strong>: ${escapeHtml(text)}`,
  );
  return (
    '<!DOCTYPE html>\n' +
    `<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(WORKSHEET_TITLE)}</title><style>${STYLE}.visually-hidden{position:absolute;width:1px;` +
    'height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}</style></head><body><main>' +
    `<h1>${escapeHtml(WORKSHEET_TITLE)}</h1>` +
    (doc.summary.student === null ? '' : `<p class="meta">${escapeHtml(studentLine(doc.summary.student))}</p>`) +
    `<p class="meta"><span>Rule set <strong data-field="rule_set">${escapeHtml(doc.ruleSet)}</strong></span>` +
    `<span>Date <strong>${escapeHtml(formatDate(doc.generatedAt))}</strong></span>` +
    `<span>Request id <strong>${escapeHtml(doc.requestId)}</strong></span></p>` +
    '<h2>Student</h2>' +
    keyValueTable('Student inputs', studentRows(doc.input), false) +
    termInputsTable(doc) +
    '<h2>School policy</h2>' +
    policyTable(doc) +
    '<h2>Results</h2>' +
    keyValueTable('Student results', summaryRows(doc.result), true) +
    resultsTable(doc) +
    '<h2>Adjustments</h2>' +
    list(notes, 'adjustments', 'No adjustment: no credits changed after enrollment, or none changed an amount.') +
    '<h2>Warnings</h2>' +
    list(warnings, 'warnings', 'No warnings.') +
    '<h2>How each amount was computed</h2>' +
    stepsList(doc) +
    '</main></body></html>\n'
  );
}
