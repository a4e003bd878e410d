/**
 * PDF worksheets are laid out on worker threads (pdf-thread.ts), never on the event loop: a PDF costs tens of
 * milliseconds of CPU or more, and while it is made the process keeps answering /healthz and every other request.
 *
 * One pool per process, started on the first PDF: PDF_THREADS threads (one on a two-core machine, so the event
 * loop keeps a core), which exit after PDF_IDLE_MS without work (idle threads never keep the process alive). Each
 * PDF has a time budget (PDF_BUDGET_MS, from the moment it is asked for, waiting included): past it the thread
 * making it is stopped and the request gets 503 `service_busy` (WORKSHEET_PDF_TIMEOUT). At most PDF_MAX_WAITING
 * PDFs wait for a thread; one more is refused at once (WORKSHEET_PDF_BUSY). A request whose client goes away
 * stops its PDF too.
 *
 * The thread file is resolved next to this module: pdf-thread.ts when running from source (Node strips the
 * types; vitest), dist/src/api/worksheet/pdf-thread.js when running the build.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { appError } from '../../errors.ts';
import type { WorksheetDocument } from './content.ts';
import type { PdfTask } from './pdf-thread.ts';

/** Threads making PDFs: one per core beyond the event loop's, at least one, at most two. */
export const PDF_THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));
/** The time a PDF may take from the request to its last byte, waiting for a thread included. */
export const PDF_BUDGET_MS = 10_000;
/** PDFs that may wait for a thread; one more is answered 503 at once. */
export const PDF_MAX_WAITING = 32;
/** A thread with no PDF to make exits after this long. */
const PDF_IDLE_MS = 30_000;
/** The Retry-After of a refused or stopped PDF, in seconds. */
export const PDF_RETRY_AFTER_SECONDS = 5;

/** URL of the thread module matching how this module runs (source .ts or built .js). */
export function pdfThreadUrl(): URL {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./pdf-thread${ext}`, import.meta.url);
}

let pool: Piscina<PdfTask, Uint8Array> | undefined;

function pdfPool(): Piscina<PdfTask, Uint8Array> {
  if (pool === undefined) {
    pool = new Piscina<PdfTask, Uint8Array>({
      filename: pdfThreadUrl().href,
      minThreads: 0,
      maxThreads: PDF_THREADS,
      concurrentTasksPerWorker: 1,
      idleTimeout: PDF_IDLE_MS,
      // A worksheet's PDF needs a few MB; the cap stops a runaway layout from taking the machine's memory.
      resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 256 },
    });
    // A thread that dies rejects its PDF (→ 500); piscina reports a second notice of the same death as an
    // 'error' event, which without a listener would take the whole process down.
    pool.on('error', () => {});
  }
  return pool;
}

export interface PdfRenderOptions {
  /** The time budget (default PDF_BUDGET_MS). */
  budgetMs?: number;
  /** Aborted when the answer is no longer wanted (the client went away): the PDF is stopped. */
  signal?: AbortSignal;
}

/**
 * The worksheet's PDF bytes, made on a worker thread. Rejects with WORKSHEET_PDF_BUSY when PDF_MAX_WAITING PDFs
 * wait already, WORKSHEET_PDF_TIMEOUT when the budget runs out (the thread is stopped), or the thread's error.
 */
export async function renderPdfOffThread(doc: WorksheetDocument, options: PdfRenderOptions = {}): Promise<Buffer> {
  const budgetMs = options.budgetMs ?? PDF_BUDGET_MS;
  const threads = pdfPool();
  if (threads.queueSize >= PDF_MAX_WAITING) {
    throw appError('WORKSHEET_PDF_BUSY', { limit: PDF_MAX_WAITING + PDF_THREADS, retryAfter: PDF_RETRY_AFTER_SECONDS });
  }
  const budget = AbortSignal.timeout(budgetMs);
  const signal = options.signal === undefined ? budget : AbortSignal.any([budget, options.signal]);
  try {
    const bytes = await threads.run({ doc }, { signal });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (err) {
    if (budget.aborted) {
      throw appError(
        'WORKSHEET_PDF_TIMEOUT',
        { seconds: budgetMs / 1000, retryAfter: PDF_RETRY_AFTER_SECONDS },
        { cause: err },
      );
    }
    throw err;
  }
}

/** Stops the PDF threads (tests; a process exits without it, idle threads hold nothing open). */
export async function closePdfPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}
