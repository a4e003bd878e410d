/**
 * The worksheet as a PDF (application/pdf of POST /v1/calculate/worksheet), made with pdfkit from the same content
 * as the HTML page: page 1 the summary (content.ts), the appendices from page 2 (appendix.ts). Standard PDF fonts
 * only (Helvetica, Courier: no embedded or external font), so text the WinAnsi encoding cannot hold is written in
 * ASCII (≥ as >=, − as -, → as ->), without an accent WinAnsi lacks, or as "?" (pdf-layout.ts pdfText).
 * Deterministic: the document's dates (CreationDate, ModDate, from which pdfkit also derives the file id) are the
 * worksheet's one date, so two worksheets of the same request made at the same time are byte-identical.
 */
import PDFDocument from 'pdfkit';
import type { WorksheetSummary } from '../../domain/summary.ts';
import { TERM_INPUT_HEADERS, inputRows, pairedRows, stepAppendix, termInputRows } from './appendix.ts';
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
  studentFields,
} from './content.ts';
import {
  BOLD,
  type Cell,
  type Doc,
  ITALIC,
  MONO,
  REGULAR,
  contentWidth,
  fit,
  heading,
  paragraph,
  pdfText,
  table,
} from './pdf-layout.ts';

export { pdfText } from './pdf-layout.ts';

const MARGIN = 40;

/** Widths that share `total` in the given proportions. */
const split = (total: number, shares: readonly number[]) => {
  const sum = shares.reduce((a, b) => a + b, 0);
  return shares.map((s) => ({ width: (total * s) / sum }));
};

/** "Label: value" pairs on one line, the values bold (wrapping as text does); a line to fill in for an empty one. */
function fields(doc: Doc, pairs: readonly [string, string][], size: number): void {
  const left = doc.page.margins.left;
  const width = contentWidth(doc);
  doc.x = left;
  pairs.forEach(([name, value], i) => {
    const last = i === pairs.length - 1;
    doc
      .font(REGULAR)
      .fontSize(size)
      .fillColor('#333333')
      .text(pdfText(`${name}: `), left, undefined, { width, continued: true });
    const shown = value === '' ? '_'.repeat(28) : fit(doc, value, BOLD, size, width);
    doc
      .font(BOLD)
      .fillColor('#000')
      .text(last ? shown : `${shown}      `, { continued: !last });
  });
  doc.moveDown(0.25);
}

function policyTable(doc: Doc, lines: readonly PolicyLine[]): void {
  const rows = lines.map((p) => {
    const chosen = p.note !== SERVICE_DEFAULT;
    return [
      { text: p.label, font: BOLD },
      { text: p.value, font: chosen ? BOLD : REGULAR },
      { text: p.note, font: chosen ? BOLD : ITALIC },
    ];
  });
  table(doc, split(contentWidth(doc), [30, 34, 36]), rows, { size: 8 });
}

/** Page 1: the options the school chose, and a sentence for the rest. */
function policySection(doc: Doc, summary: WorksheetSummary): void {
  heading(doc, 'School policy');
  const { chosen, rest } = policyOnPage1(summary);
  if (chosen.length > 0) policyTable(doc, chosen);
  paragraph(doc, rest, REGULAR, 8.5);
}

function percentageSection(doc: Doc, summary: WorksheetSummary): void {
  const p = summary.percentage;
  heading(doc, p.kind === 'final_period' ? 'Final-period proration' : 'Academic-year percentage');
  const left = doc.page.margins.left;
  const y = doc.y;
  doc.font(BOLD).fontSize(15).fillColor('#000').text(`${p.pct}%`, left, y, { lineBreak: false });
  const figureWidth = doc.widthOfString(`${p.pct}%`) + 12;
  const room = contentWidth(doc) - figureWidth;
  doc
    .font(REGULAR)
    .fontSize(11)
    .text(fit(doc, p.arithmetic, REGULAR, 11, room), left + figureWidth, y + 3, { width: room });
  doc.y = Math.max(doc.y, y + 18);
  paragraph(doc, p.text, REGULAR, 8.5);
  if (p.limits.length > 0) {
    doc.moveDown(0.3);
    const rows = p.limits.map((l) => [
      { text: l.label, font: BOLD },
      dollars(l.statutory),
      l.arithmetic,
      { text: dollars(l.prorated), font: BOLD },
    ]);
    const columns = split(contentWidth(doc), [34, 14, 36, 16]).map((c, i) =>
      i === 1 || i === 3 ? { ...c, align: 'right' as const } : c,
    );
    table(doc, columns, rows, { size: 8, header: [['Limit', 'Annual limit', 'Prorated', 'Prorated limit']] });
  }
  paragraph(doc, p.citation, ITALIC, 8, '#333333');
}

function annualSection(doc: Doc, summary: WorksheetSummary): void {
  heading(doc, 'Annual amounts');
  const rows = summary.annual.map((a) => [
    { text: a.label, font: BOLD },
    a.arithmetic,
    { text: dollars(a.amount), font: BOLD },
    a.basis,
  ]);
  const columns = split(contentWidth(doc), [19, 31, 14, 36]).map((c, i) =>
    i === 2 ? { ...c, align: 'right' as const } : c,
  );
  table(doc, columns, rows, {
    size: 8,
    header: [['Loan', 'Starting amount × percentage', 'Annual amount', 'Starting amount']],
  });
  paragraph(doc, annualCitations(summary).join('; '), ITALIC, 8, '#333333');
}

function scheduleSection(doc: Doc, summary: WorksheetSummary): void {
  heading(doc, 'Schedule per term');
  const loans = scheduleLoans(summary);
  const options = summary.totals.proportional === null ? (['equal'] as const) : (['equal', 'proportional'] as const);
  const [termShare, statusShare] = scheduleShares(options.length * loans.length);
  const amountShare = (100 - termShare - statusShare) / (options.length * loans.length);
  const columns = split(contentWidth(doc), [
    termShare,
    statusShare,
    ...options.flatMap(() => loans.map(() => amountShare)),
  ]).map((c, i) => (i >= 2 ? { ...c, align: 'right' as const } : c));
  const header: (string | Cell)[][] = [
    [
      { text: '', span: 2 },
      ...options.map((o) => ({ text: o === 'equal' ? 'Equal' : 'Proportional', span: loans.length })),
    ],
    ['Term', 'Status', ...options.flatMap(() => loans.map((l) => LOAN_SHORT[l]))],
  ];
  const rows: (string | Cell)[][] = summary.schedule.map((t) => [
    { text: t.label, font: BOLD },
    { text: `${t.status} (${t.intensity_pct}%)`, sub: [t.credits, t.note].filter((x) => x !== '').join('. ') },
    ...options.flatMap((o) =>
      loans.map((l) => {
        const option = o === 'equal' ? t.equal : t.proportional;
        return option === null ? '' : dollars(option[l]);
      }),
    ),
  ]);
  rows.push([
    'Total',
    '',
    ...options.flatMap((o) =>
      loans.map((l) => {
        const option = o === 'equal' ? summary.totals.equal : summary.totals.proportional;
        return option === null ? '' : dollars(option[l]);
      }),
    ),
  ]);
  table(doc, columns, rows, { size: 8, header, strongRows: new Set([rows.length - 1]) });
  paragraph(doc, summary.options, REGULAR, 8, '#333333');
}

function list(doc: Doc, title: string, items: readonly string[]): void {
  heading(doc, title);
  if (items.length === 0) paragraph(doc, NONE, REGULAR, 8);
  for (const item of items) paragraph(doc, `•  ${item}`, REGULAR, 8);
}

/** One row to sign: "Prepared by ____ Date ____   Reviewed by ____ Date ____". */
function signatures(doc: Doc): void {
  const left = doc.page.margins.left;
  const width = contentWidth(doc);
  const bottom = doc.page.height - doc.page.margins.bottom;
  // The line 26 pt below the last text when there is room, else as low as the page allows: a full page 1 keeps
  // its signatures rather than leaving them alone on a page of their own.
  if (bottom - doc.y < 28) {
    doc.addPage();
    paragraph(doc, `${WORKSHEET_TITLE}: summary (continued)`, ITALIC, 8, '#333333');
  }
  const y = Math.min(doc.y + 26, bottom - 12);
  const gap = 14;
  const name = (width - 3 * gap) * 0.34;
  const date = (width - 3 * gap) * 0.16;
  let x = left;
  for (const who of SIGNATURES) {
    for (const [label, w] of [
      [who, name],
      ['Date', date],
    ] as const) {
      doc
        .moveTo(x, y)
        .lineTo(x + w, y)
        .lineWidth(0.6)
        .strokeColor('#333333')
        .stroke();
      doc
        .font(REGULAR)
        .fontSize(8)
        .fillColor('#333333')
        .text(label, x, y + 2, { lineBreak: false });
      x += w + gap;
    }
  }
  doc.x = left;
  doc.y = y + 12;
}

function summaryPage(doc: Doc, w: WorksheetDocument): void {
  const s = w.summary;
  doc.font(BOLD).fontSize(16).fillColor('#000').text(pdfText(WORKSHEET_TITLE));
  doc.moveDown(0.3);
  fields(doc, studentFields(s.student), 11);
  fields(doc, metaFields(w), 8);
  policySection(doc, s);
  percentageSection(doc, s);
  annualSection(doc, s);
  scheduleSection(doc, s);
  list(doc, 'Adjustments', s.adjustments);
  list(doc, 'Warnings', s.warnings);
  signatures(doc);
}

function appendices(doc: Doc, w: WorksheetDocument): void {
  doc.addPage();
  heading(doc, 'Appendix A. The student’s inputs and the school policy', 12);
  const width = contentWidth(doc);
  table(
    doc,
    split(width, [30, 20, 30, 20]),
    pairedRows(inputRows(w.input)).map(([k1, v1, k2, v2]) => [
      { text: k1!, font: BOLD },
      v1!,
      { text: k2!, font: BOLD },
      v2!,
    ]),
    { size: 7.5 },
  );
  const termColumns = split(width, [22, ...TERM_INPUT_HEADERS.slice(1).map(() => 13)]).map((c, i) =>
    i > 0 ? { ...c, align: 'right' as const } : c,
  );
  table(doc, termColumns, termInputRows(w.input), { size: 7.5, header: [[...TERM_INPUT_HEADERS]] });
  doc.moveDown(0.3);
  paragraph(doc, 'School policy in force', BOLD, 9);
  doc.moveDown(0.2);
  policyTable(doc, policyLines(w.summary));

  heading(doc, 'Appendix B. How each amount was computed', 12);
  const { rows, sources } = stepAppendix(w.steps, w.result);
  const columns = split(width, [3, 15, 13, 44, 25]);
  columns[0] = { ...columns[0]!, align: 'right' } as (typeof columns)[number];
  table(
    doc,
    columns,
    rows.map((r) => [
      String(r.number),
      { text: r.title, font: BOLD },
      `${r.rule} [${r.source}]`,
      { text: r.formula, font: MONO, size: 6.5 },
      r.outputs.map(([what, value]) => `${what}: ${value}`).join('\n'),
    ]),
    { size: 7, header: [['#', 'Step', 'Rule [source]', 'How it was computed', 'Result']] },
  );
  heading(doc, 'Sources', 10);
  sources.forEach((c, i) => paragraph(doc, `[${i + 1}] ${c}`, REGULAR, 7, '#333333'));
}

function render(doc: Doc, w: WorksheetDocument): void {
  summaryPage(doc, w);
  appendices(doc, w);
}

/** The worksheet as PDF bytes. */
export function renderWorksheetPdf(worksheet: WorksheetDocument): Promise<Buffer> {
  const who = worksheet.summary.student?.name ?? worksheet.summary.student?.id ?? null;
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: MARGIN,
    info: {
      Title: pdfText(
        `${WORKSHEET_TITLE}${who === null ? '' : ` - ${who}`} (${worksheet.summary.award_year}, rule set ${worksheet.ruleSet})`,
      ),
      Subject: `Request ${worksheet.requestId}`,
      Creator: 'sor-loan-limits',
      Producer: 'sor-loan-limits (pdfkit)',
      CreationDate: worksheet.generatedAt,
      ModDate: worksheet.generatedAt,
    },
  });
  const chunks: Buffer[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    try {
      render(doc, worksheet);
      doc.end();
    } catch (err) {
      reject(err);
    }
  });
}
