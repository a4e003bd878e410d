/**
 * Layout primitives of the PDF worksheet (pdf.ts), over pdfkit with the standard fonts: text made safe for them
 * (pdfText), text fitted to a width in linear time (pdf-wrap.ts), headings, paragraphs, and tables with fixed
 * columns whose header rows repeat on a new page and whose rows never split.
 */
import type PDFDocument from 'pdfkit';
import { showBidiControls } from './content.ts';
import { type CharWidth, breakLongRuns, cachedCharWidth } from './pdf-wrap.ts';

export type Doc = PDFKit.PDFDocument;
export type { PDFDocument };

export const REGULAR = 'Helvetica';
export const BOLD = 'Helvetica-Bold';
export const ITALIC = 'Helvetica-Oblique';
export const MONO = 'Courier';

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

const shownByStandardFonts = (ch: string) => ch.codePointAt(0)! <= 0xff || WIN_ANSI_EXTRA.has(ch);

/**
 * Text the standard fonts can show: bidirectional controls as visible escapes (‹U+202E›, content.ts), known symbols
 * in ASCII, a letter with an accent WinAnsi lacks as its letter (Nguyễn → Nguyen), anything else as "?".
 */
export function pdfText(text: string): string {
  let out = '';
  for (const ch of showBidiControls(text)) {
    const mapped = ASCII[ch];
    if (mapped !== undefined) out += mapped;
    else if (ch.codePointAt(0)! < 0x20 && ch !== '\n') out += ' ';
    else if (shownByStandardFonts(ch)) out += ch;
    else {
      const base = ch.normalize('NFKD').replace(/\p{M}+/gu, '');
      out += base !== '' && [...base].every(shownByStandardFonts) ? base : '?';
    }
  }
  return out;
}

/** Character widths per font and size, measured once per document. */
const charWidths = new WeakMap<Doc, Map<string, CharWidth>>();

/**
 * `text` as the standard fonts show it (pdfText), with every unbroken run wider than `width` cut into pieces that
 * fit (pdf-wrap.ts), so pdfkit lays it out in linear time. The pieces leave room for the space between them.
 */
export function fit(doc: Doc, text: string, font: string, size: number, width: number): string {
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

export function contentWidth(doc: Doc): number {
  return doc.page.width - doc.page.margins.left - doc.page.margins.right;
}

/** A new page unless `height` more points fit on this one. */
export function ensureRoom(doc: Doc, height: number): void {
  if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage();
}

export function heading(doc: Doc, text: string, size = 11): void {
  ensureRoom(doc, 44);
  doc.moveDown(0.4).font(BOLD).fontSize(size).fillColor('#000').text(pdfText(text), doc.page.margins.left);
  const y = doc.y + 1;
  doc
    .moveTo(doc.page.margins.left, y)
    .lineTo(doc.page.width - doc.page.margins.right, y)
    .lineWidth(0.5)
    .strokeColor('#999999')
    .stroke();
  doc.y = y + 3;
}

export function paragraph(doc: Doc, text: string, font = REGULAR, size = 9, color = '#000'): void {
  const width = contentWidth(doc);
  doc
    .font(font)
    .fontSize(size)
    .fillColor(color)
    .text(fit(doc, text, font, size, width), doc.page.margins.left, undefined, { width });
}

/** A table cell: its text and, when not the row's, its font; `span` columns wide. */
export interface Cell {
  text: string;
  font?: string;
  span?: number;
  /** Extra lines under the text, smaller (a term's credits and note). */
  sub?: string;
}

export interface Column {
  width: number;
  align?: 'left' | 'right';
}

export interface TableOptions {
  size: number;
  /** Header rows, drawn shaded, repeated at the top of a new page. */
  header?: readonly (readonly (string | Cell)[])[];
  /** Rows drawn bold and shaded (the totals). */
  strongRows?: ReadonlySet<number>;
  /** The body's default font (REGULAR). */
  font?: string;
}

const PAD = 2;
const cellOf = (c: string | Cell): Cell => (typeof c === 'string' ? { text: c } : c);

/** A table with fixed column widths; each row as tall as its tallest cell; rows never split across pages. */
export function table(
  doc: Doc,
  columns: readonly Column[],
  rows: readonly (readonly (string | Cell)[])[],
  options: TableOptions,
): void {
  const left = doc.page.margins.left;
  const { size } = options;
  const layout = (cells: readonly (string | Cell)[], font: string) => {
    let col = 0;
    return cells.map((raw) => {
      const cell = cellOf(raw);
      const span = cell.span ?? 1;
      const x = left + columns.slice(0, col).reduce((sum, c) => sum + c.width, 0);
      const width = columns.slice(col, col + span).reduce((sum, c) => sum + c.width, 0);
      const align: 'left' | 'right' | 'center' = span === 1 ? (columns[col]!.align ?? 'left') : 'center';
      col += span;
      const f = cell.font ?? font;
      const inner = width - 2 * PAD;
      const text = fit(doc, cell.text, f, size, inner);
      const sub = cell.sub === undefined ? '' : fit(doc, cell.sub, REGULAR, size - 1, inner);
      doc.font(f).fontSize(size);
      let height = doc.heightOfString(text === '' ? ' ' : text, { width: inner, align });
      if (sub !== '')
        height += doc
          .font(REGULAR)
          .fontSize(size - 1)
          .heightOfString(sub, { width: inner });
      return { text, sub, font: f, x, width, align, height };
    });
  };
  type Laid = ReturnType<typeof layout>;
  const heightOf = (laid: Laid) => Math.max(...laid.map((c) => c.height)) + 2 * PAD;
  const draw = (laid: Laid, shade: boolean) => {
    const height = heightOf(laid);
    const y = doc.y;
    for (const c of laid) {
      if (shade) doc.rect(c.x, y, c.width, height).fill('#eeeeee');
      doc.rect(c.x, y, c.width, height).lineWidth(0.5).strokeColor('#999999').stroke();
      doc
        .fillColor('#000')
        .font(c.font)
        .fontSize(size)
        .text(c.text, c.x + PAD, y + PAD, { width: c.width - 2 * PAD, align: c.align });
      if (c.sub !== '') {
        doc
          .fillColor('#333333')
          .font(REGULAR)
          .fontSize(size - 1)
          .text(c.sub, c.x + PAD, doc.y, { width: c.width - 2 * PAD, align: c.align });
      }
    }
    doc.x = left;
    doc.y = y + height;
  };
  const header = (options.header ?? []).map((h) => layout(h, BOLD));
  const headerHeight = header.reduce((sum, h) => sum + heightOf(h), 0);
  const drawHeader = () => {
    for (const h of header) draw(h, true);
  };
  const bottom = () => doc.page.height - doc.page.margins.bottom;
  rows.forEach((row, i) => {
    const strong = options.strongRows?.has(i) === true;
    const laid = layout(row, strong ? BOLD : (options.font ?? REGULAR));
    const height = heightOf(laid);
    const needed = height + (i === 0 ? headerHeight : 0);
    // A row taller than half a page is drawn where it starts and flows on (a pathological label); others move.
    if (doc.y + needed > bottom() && height <= doc.page.height / 2) {
      doc.addPage();
      drawHeader();
    } else if (i === 0) drawHeader();
    draw(laid, strong);
  });
  if (rows.length === 0) drawHeader();
  doc.moveDown(0.3);
}
