/**
 * The worksheet as a PDF (application/pdf of POST /v1/calculate/worksheet), made with pdfkit from the same content
 * as the HTML page (content.ts). Standard PDF fonts only (Helvetica, no embedded or external font), so text the
 * WinAnsi encoding cannot hold is written in ASCII (≥ as >=, − as -, → as ->) or as "?". Deterministic: the
 * document's dates (CreationDate, ModDate, from which pdfkit also derives the file id) are the worksheet's one
 * date, so two worksheets of the same request made at the same time are byte-identical.
 */
import PDFDocument from 'pdfkit';
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
import { type CharWidth, breakLongRuns, cachedCharWidth } from './pdf-wrap.ts';

const ASCII: Readonly<Record<string, string>> = {
  '≥': '>=',
  '≤': '<=',
  '≈': '~',
  '→': '->',
  '−': '-',
  Σ: 'sum',
  '≠': '!=',
  '\u2009': ' ',
  '\u00a0': ' ',
};
/** Characters beyond Latin-1 that WinAnsi (the standard fonts' encoding) holds. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/**
 * Text the standard fonts can show: bidirectional controls as visible escapes (‹U+202E›, content.ts), known symbols
 * in ASCII, anything else outside WinAnsi as "?".
 */
export function pdfText(text: string): string {
  let out = '';
  for (const ch of showBidiControls(text)) {
    const mapped = ASCII[ch];
    if (mapped !== undefined) out += mapped;
    else if (ch.codePointAt(0)! < 0x20 && ch !== '\n') out += ' ';
    else if (ch.codePointAt(0)! <= 0xff || WIN_ANSI_EXTRA.has(ch)) out += ch;
    else out += '?';
  }
  return out;
}

const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const ITALIC = 'Helvetica-Oblique';
const MONO = 'Courier';
const MARGIN = 40;

type Doc = PDFKit.PDFDocument;

/** Character widths per font and size, measured once per document. */
const charWidths = new WeakMap<Doc, Map<string, CharWidth>>();

/**
 * `text` as the standard fonts show it (pdfText), with every unbroken run wider than `width` cut into pieces that
 * fit (pdf-wrap.ts), so pdfkit lays it out in linear time. The pieces leave room for the space between them.
 */
function fit(doc: Doc, text: string, font: string, size: number, width: number): string {
  let fonts = charWidths.get(doc);
  if (fonts === undefined) charWidths.set(doc, (fonts = new Map()));
  const key = `${font} ${size}`;
  let charWidth = fonts.get(key);
  if (charWidth === undefined) {
    doc.font(font).fontSize(size);
    charWidth = cachedCharWidth((ch) => doc.widthOfString(ch));
    fonts.set(key, charWidth);
  }
  const room = width - charWidth(' ') - 0.01 * size;
  return breakLongRuns(pdfText(text), room, charWidth);
}

function contentWidth(doc: Doc): number {
  return doc.page.width - doc.page.margins.left - doc.page.margins.right;
}

function ensureRoom(doc: Doc, height: number): void {
  if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage();
}

function heading(doc: Doc, text: string): void {
  ensureRoom(doc, 40);
  doc.moveDown(0.6).font(BOLD).fontSize(12).fillColor('#000').text(pdfText(text), doc.page.margins.left);
  doc.moveDown(0.2);
}

/** A table with fixed column widths; each row is as tall as its tallest cell, rows never split across pages. */
function table(
  doc: Doc,
  widths: readonly number[],
  header: readonly string[],
  rows: readonly string[][],
  size: number,
): void {
  const left = doc.page.margins.left;
  const pad = 2;
  const drawRow = (cells: readonly string[], font: string, shade: boolean) => {
    const texts = cells.map((c, i) => fit(doc, c, font, size, widths[i]! - 2 * pad));
    doc.font(font).fontSize(size);
    const heights = texts.map((t, i) => doc.heightOfString(t, { width: widths[i]! - 2 * pad }));
    const height = Math.max(...heights) + 2 * pad;
    ensureRoom(doc, height);
    const y = doc.y;
    let x = left;
    texts.forEach((t, i) => {
      const w = widths[i]!;
      if (shade) doc.rect(x, y, w, height).fill('#eeeeee');
      doc.rect(x, y, w, height).lineWidth(0.5).strokeColor('#999999').stroke();
      doc
        .fillColor('#000')
        .font(font)
        .fontSize(size)
        .text(t, x + pad, y + pad, { width: w - 2 * pad });
      x += w;
    });
    doc.x = left;
    doc.y = y + height;
  };
  drawRow(header, BOLD, true);
  for (const r of rows) drawRow(r, REGULAR, false);
  doc.moveDown(0.5);
}

function paragraph(doc: Doc, text: string, font = REGULAR, size = 9, color = '#000'): void {
  const width = contentWidth(doc);
  doc
    .font(font)
    .fontSize(size)
    .fillColor(color)
    .text(fit(doc, text, font, size, width), doc.page.margins.left, undefined, { width });
}

function steps(doc: Doc, worksheet: WorksheetDocument): void {
  worksheet.steps.forEach((s, k) => {
    ensureRoom(doc, 48);
    paragraph(doc, `${k + 1}. ${s.section} ${s.title} (${s.id})`, BOLD, 9);
    paragraph(doc, s.citation, ITALIC, 8, '#333333');
    paragraph(doc, s.formula, MONO, 8);
    const inputs = inputLines(s);
    if (inputs.length > 0) paragraph(doc, `Inputs: ${inputs.join('; ')}`, REGULAR, 8, '#333333');
    const outputs = outputLines(s);
    if (outputs.length > 0) paragraph(doc, `Output: ${outputs.join('; ')}`, MONO, 8, '#0b4f2c');
    doc.moveDown(0.4);
  });
}

function render(doc: Doc, w: WorksheetDocument): void {
  doc.font(BOLD).fontSize(16).text(pdfText(WORKSHEET_TITLE));
  if (w.summary.student !== null) paragraph(doc, studentLine(w.summary.student), BOLD, 11);
  paragraph(
    doc,
    `Rule set ${w.ruleSet}    Date ${formatDate(w.generatedAt)}    Request id ${w.requestId}`,
    REGULAR,
    9,
    '#333333',
  );

  heading(doc, 'Student');
  const half = contentWidth(doc);
  table(doc, [half * 0.4, half * 0.6], ['Field', 'Value'], studentRows(w.input), 8);
  const termWidths = [half * 0.22, ...TERM_INPUT_COLUMNS.slice(1).map(() => (half * 0.78) / 6)];
  table(
    doc,
    termWidths,
    TERM_INPUT_COLUMNS.map((c) => c.replace(/_/g, ' ')),
    termInputRows(w.input),
    7,
  );

  heading(doc, 'School policy');
  table(
    doc,
    [half * 0.2, half * 0.16, half * 0.18, half * 0.46],
    POLICY_HEADERS,
    policyRows(w.input.policy).map((r) => [r.option, r.value, defaultText(r), policyNote(r)]),
    7,
  );

  heading(doc, 'Results');
  table(doc, [half * 0.4, half * 0.6], ['Result', 'Value'], summaryRows(w.result), 8);
  const amountWidth = (half - 62 - 66) / (RESULT_COLUMNS.length - 2);
  const widths = RESULT_COLUMNS.map((_, i) => (i === 0 ? 62 : i === 1 ? 66 : amountWidth));
  const rows = w.result.terms.map((t) => RESULT_COLUMNS.map((c) => formatValue(c.value(t))));
  rows.push(totalCells(w.result).map((c) => c.text));
  table(
    doc,
    widths,
    RESULT_COLUMNS.map((c) => c.header),
    rows,
    6.5,
  );

  heading(doc, 'Adjustments');
  const notes = adjustmentNotes(w.result);
  if (notes.length === 0)
    paragraph(doc, 'No adjustment: no credits changed after enrollment, or none changed an amount.');
  for (const [label, text] of notes) paragraph(doc, `${label}: ${text}`);

  heading(doc, 'Warnings');
  if (w.result.warnings.length === 0) paragraph(doc, 'No warnings.');
  for (const text of w.result.warnings) paragraph(doc, `- ${text}`);

  heading(doc, 'How each amount was computed');
  steps(doc, w);
}

/** The worksheet as PDF bytes. */
export function renderWorksheetPdf(worksheet: WorksheetDocument): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: MARGIN,
    info: {
      Title: `${WORKSHEET_TITLE} (rule set ${worksheet.ruleSet})`,
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
