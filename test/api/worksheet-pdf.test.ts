/**
 * The PDF worksheet never holds the event loop: the layout cuts an unbroken run into pieces
 * that fit, measuring each character once (a 40,000-character word took 36 s before, all on the event loop); the
 * PDF is made on a worker thread within a time budget (worksheet/pdf-pool.ts), so /healthz keeps answering while
 * ten PDFs are made; a PDF past its budget or beyond the waiting room is a 503 service_busy in the envelope.
 * The wall-clock bounds here are the ones the issue asks for, made generous for a loaded two-core machine.
 */
import { getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import type { WorksheetDocument } from '../../src/api/worksheet/content.ts';
import { pdfText, renderWorksheetPdf } from '../../src/api/worksheet/pdf.ts';
import { PDF_MAX_WAITING, PDF_THREADS, closePdfPool, renderPdfOffThread } from '../../src/api/worksheet/pdf-pool.ts';
import { breakLongRuns, cachedCharWidth } from '../../src/api/worksheet/pdf-wrap.ts';
import { worksheetSummary } from '../../src/domain/summary.ts';
import { calculateWithTrace } from '../../src/domain/trace.ts';
import { RULE_SET_ID } from '../../src/domain/rule-set.ts';
import { AppError, appError, errorEnvelope } from '../../src/errors.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';
import { type TestServer, startTestServer } from './helpers.ts';

const URL_PATH = '/v1/calculate/worksheet';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  await closePdfPool();
});

function exampleRequest(id: string): { terms: { label: string }[] } & Record<string, unknown> {
  const example = WORKED_EXAMPLES.find((e) => e.id === id);
  if (example === undefined) throw new Error(`no example ${id}`);
  return structuredClone(example.request) as { terms: { label: string }[] } & Record<string, unknown>;
}

/** FSA example 4 with every term labelled `label(i)`. */
function withLabels(label: (i: number) => string) {
  const body = exampleRequest('FSA-4');
  return { ...body, terms: body.terms.map((t, i) => ({ ...t, label: label(i) })) };
}

/** A worksheet document for `body`, made without the schema's label bound (the layout must not rely on it). */
function documentFor(body: unknown, labels: (i: number) => string): WorksheetDocument {
  const parsed = parseCalculationRequest(body);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.fieldErrors));
  const input = { ...parsed.value, terms: parsed.value.terms.map((t, i) => ({ ...t, label: labels(i) })) };
  const { result, steps } = calculateWithTrace(input);
  const summary = worksheetSummary(input, result, steps);
  const generatedAt = new Date('2026-08-01T12:00:00Z');
  return { ruleSet: RULE_SET_ID, generatedAt, requestId: 'r', input, summary, result, steps };
}

async function postPdf(body: unknown): Promise<{ status: number; headers: Headers; bytes: Buffer; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${server.base}${URL_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/pdf' },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, ms: performance.now() - started };
}

/** The PDF's text with all whitespace removed (a run cut to fit its column reads back in pieces). */
async function pdfLetters(bytes: Uint8Array): Promise<string> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const parts: string[] = [];
  for (let p = 1; p <= pdf.numPages; p++) {
    const content = await (await pdf.getPage(p)).getTextContent();
    for (const item of content.items) if ('str' in item) parts.push(item.str);
  }
  await pdf.destroy();
  return parts.join('').replace(/\s+/g, '');
}

describe('breakLongRuns (the layout of an unbroken run)', () => {
  const width = (ch: string) => (ch === 'W' ? 9.44 : ch === 'i' ? 2.22 : 5.56);

  it('cuts a 40,000-character word into pieces that fit, measuring each character once', () => {
    const word = 'W'.repeat(20_000) + 'ai'.repeat(10_000);
    let measured = 0;
    const out = breakLongRuns(`Fall: ${word} end`, 100, (ch) => {
      measured++;
      return width(ch);
    });
    expect(measured).toBe('Fall:'.length + word.length + 'end'.length);
    const pieces = out.split(' ');
    expect(pieces[0]).toBe('Fall:');
    expect(pieces.at(-1)).toBe('end');
    expect(pieces.slice(1, -1).join('')).toBe(word);
    for (const piece of pieces) {
      const w = [...piece].reduce((sum, ch) => sum + width(ch), 0);
      expect(w).toBeLessThanOrEqual(100);
    }
    // Full pieces: 10 W (94.4) per piece in the first part, never fewer characters than fit.
    expect(pieces[1]).toBe('W'.repeat(10));
  });

  it('leaves text without an over-wide run as it is, and gives each piece at least one character', () => {
    const text = 'Spring 2027  term\nwith words';
    expect(breakLongRuns(text, 100, width)).toBe(text);
    expect(breakLongRuns('WWW', 5, width)).toBe('W W W');
  });

  it('cachedCharWidth measures each distinct character once', () => {
    let calls = 0;
    const cw = cachedCharWidth((ch) => {
      calls++;
      return width(ch);
    });
    for (const ch of 'W'.repeat(1000) + 'i'.repeat(1000)) cw(ch);
    expect(calls).toBe(2);
  });

  it('a PDF with a 40,000-character label is laid out in linear time and shows the whole label', async () => {
    const label = 'A'.repeat(40_000);
    const doc = documentFor(exampleRequest('FSA-1'), (i) => (i === 0 ? label : `Term ${i}`));
    const started = performance.now();
    const bytes = await renderWorksheetPdf(doc);
    const ms = performance.now() - started;
    console.info(`40,000-character label: PDF laid out in ${ms.toFixed(0)} ms`);
    // Before: 36 s. Now about 0.25 s on an idle machine; the bound leaves room for a loaded one.
    expect(ms).toBeLessThan(5000);
    expect(await pdfLetters(bytes)).toContain(label);
  });
});

describe('text the standard fonts cannot hold', () => {
  it('a letter with an accent WinAnsi lacks loses the accent; Latin-1 stays; the rest is "?"; controls are inert', () => {
    expect(pdfText('Nguyễn Thị Hạnh')).toBe('Nguyen Thi Hanh');
    expect(pdfText('Ana Díaz, Zoë, Ørsted')).toBe('Ana Díaz, Zoë, Ørsted');
    expect(pdfText('王小明')).toBe('???');
    expect(pdfText('(6 + 12 + 12) ÷ 36 ≈ 83.33% → 83%')).toBe('(6 + 12 + 12) ÷ 36 ~ 83.33% -> 83%');
    expect(pdfText('A\u202E1')).toBe('A‹U+202E›1');
  });
});

describe('PDFs on worker threads', () => {
  it('a 100-character unbroken label: the PDF is ready well under a second and shows the label', async () => {
    const label = 'X'.repeat(100);
    await postPdf(withLabels(() => 'warm-up')); // the first PDF starts a thread
    const res = await postPdf(withLabels((i) => (i === 0 ? label : `Term${i}`)));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    console.info(`100-character label: PDF in ${res.ms.toFixed(0)} ms`);
    expect(res.ms).toBeLessThan(2000);
    expect(await pdfLetters(res.bytes)).toContain(label);
  });

  it('/healthz answers within the bound while ten PDFs are made', async () => {
    await postPdf(withLabels(() => 'warm-up'));
    const label = (i: number) => `${'Z'.repeat(99)}${i}`;
    let done = false;
    const pdfs = Promise.all(Array.from({ length: 10 }, () => postPdf(withLabels(label)))).finally(() => {
      done = true;
    });
    const latencies: number[] = [];
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${server.base}/healthz`);
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      expect(res.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const results = await pdfs;
    for (const r of results) expect(r.status).toBe(200);
    const slowestPdf = Math.max(...results.map((r) => r.ms));
    const max = Math.max(...latencies);
    console.info(
      `/healthz over ${latencies.length} polls while ten PDFs rendered (last done after ${slowestPdf.toFixed(0)} ms): ` +
        `max ${max.toFixed(1)} ms, median ${latencies.sort((a, b) => a - b)[latencies.length >> 1]!.toFixed(1)} ms`,
    );
    expect(latencies.length).toBeGreaterThanOrEqual(3);
    expect(max).toBeLessThan(250);
    expect(await pdfLetters(results[0]!.bytes)).toContain(label(0));
  });

  it('a PDF past its time budget is stopped with 503 service_busy; the next one is made as usual', async () => {
    const doc = documentFor(exampleRequest('FSA-1'), (i) => `Term ${i}`);
    const failure = await renderPdfOffThread(doc, { budgetMs: 1 }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).entry).toBe('WORKSHEET_PDF_TIMEOUT');
    expect(errorEnvelope(failure as AppError)).toEqual(
      errorEnvelope(appError('WORKSHEET_PDF_TIMEOUT', { seconds: 0.001, retryAfter: 5 })),
    );
    expect(errorEnvelope(failure as AppError).code).toBe('service_busy');
    const bytes = await renderPdfOffThread(doc);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('beyond the waiting room a PDF is refused at once with 503 service_busy', async () => {
    const doc = documentFor(exampleRequest('FSA-1'), (i) => `Term ${i}`);
    const outcomes = await Promise.all(
      Array.from({ length: PDF_MAX_WAITING + PDF_THREADS + 4 }, () =>
        renderPdfOffThread(doc).then(
          () => 'made',
          (err: unknown) => (err instanceof AppError ? err.entry : String(err)),
        ),
      ),
    );
    const refused = outcomes.filter((o) => o === 'WORKSHEET_PDF_BUSY').length;
    expect(refused).toBeGreaterThanOrEqual(4);
    expect(outcomes.filter((o) => o === 'made').length).toBe(outcomes.length - refused);
  });

  it('the same request gives the same bytes from the thread as in-process', async () => {
    const doc = documentFor(exampleRequest('FSA-4'), (i) => `Term ${i}`);
    const [threaded, inline] = await Promise.all([renderPdfOffThread(doc), renderWorksheetPdf(doc)]);
    expect(threaded.equals(inline)).toBe(true);
  });
});
