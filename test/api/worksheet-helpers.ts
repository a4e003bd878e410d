/**
 * Helpers of the worksheet's HTTP tests: a worked example's request, a POST to /v1/calculate/worksheet, and a PDF's
 * text read back with pdf.js (unpdf), whole or page by page, as the standard fonts show it.
 */
import { getDocumentProxy } from 'unpdf';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { pdfText } from '../../src/api/worksheet/pdf.ts';

export const WORKSHEET_URL_PATH = '/v1/calculate/worksheet';

/** The request of a worked example (shared/spec/examples.json, as shipped in worked-examples.json). */
export function exampleRequest(id: string): unknown {
  const example = WORKED_EXAMPLES.find((e) => e.id === id);
  if (example === undefined) throw new Error(`no example ${id}`);
  return example.request;
}

export interface WorksheetAnswer {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** POSTs `body` (an object is stringified, a string sent as it is) to the worksheet of the service at `base`. */
export async function postWorksheet(
  base: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<WorksheetAnswer> {
  const res = await fetch(`${base}${WORKSHEET_URL_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

async function pageTexts(pdf: PdfDocument): Promise<string[]> {
  const pages: string[] = [];
  for (let p = 1; p <= pdf.numPages; p++) {
    const content = await (await pdf.getPage(p)).getTextContent();
    pages.push(
      content.items
        .map((item) => ('str' in item ? item.str : ''))
        .join(' ')
        .replace(/\s+/g, ' '),
    );
  }
  return pages;
}

/** Each page's text, spaces collapsed. */
export async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const pages = await pageTexts(pdf);
  await pdf.destroy();
  return pages;
}

/** The whole text (lines wrap at spaces: joined with spaces and collapsed, it reads as written) and the info. */
export async function pdfTextOf(bytes: Uint8Array): Promise<{ text: string; info: Record<string, unknown> }> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const pages = await pageTexts(pdf);
  const meta = await pdf.getMetadata();
  await pdf.destroy();
  return { text: pages.join(' ').replace(/\s+/g, ' '), info: meta.info as Record<string, unknown> };
}

/** The text as a PDF of the standard fonts shows it, spaces collapsed. */
export const shown = (text: string): string => pdfText(text).replace(/\s+/g, ' ');
