/**
 * Piscina task of the PDF pool (pdf-pool.ts): one worksheet in, its PDF bytes out, laid out by pdf.ts on a worker
 * thread so that pdfkit's layout never runs on the event loop. The bytes come back in their own buffer, moved (not
 * copied) across the thread boundary.
 */
import { move } from 'piscina';
import type { WorksheetDocument } from './content.ts';
import { renderWorksheetPdf } from './pdf.ts';

export interface PdfTask {
  doc: WorksheetDocument;
}

export default async function renderPdfTask(task: PdfTask): Promise<Uint8Array> {
  const pdf = await renderWorksheetPdf(task.doc);
  // A copy that owns its whole ArrayBuffer: pdfkit's Buffer may be a view into a larger shared allocation.
  const bytes = new Uint8Array(pdf.byteLength);
  bytes.set(pdf);
  return move(bytes) as unknown as Uint8Array;
}
