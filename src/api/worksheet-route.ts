/**
 * POST /v1/calculate/worksheet: one student, the same body and validation as POST /v1/calculate plus the optional
 * `student` {name, id} (schema/student.ts: printed on the worksheet and in the PDF's file name, never logged or
 * stored), answered with the summary (src/domain/summary.ts), the result and every step that made it
 * (src/domain/trace.ts), in the format the Accept header asks for:
 *   application/json (also for no Accept or *\/*)  {rule_set, policy, summary, result, steps}
 *   text/html                                      the printable worksheet (src/api/worksheet/html.ts)
 *   application/pdf                                the same as a PDF (src/api/worksheet/pdf.ts), laid out on a worker
 *                                                  thread within a time budget (worksheet/pdf-pool.ts): 503
 *                                                  service_busy with Retry-After past it or when too many wait
 *   anything else                                  406 unsupported_media_type (checked before the body is read)
 * Every answer is nosniff; the HTML page also forbids framing, scripts and referrers (worksheet/headers.ts).
 * Then 415 → 413 → 400 → 422 exactly as /v1/calculate. The date printed on the HTML and PDF comes from the
 * context's clock (the system clock unless a test fixes it).
 */
import { Router, type Request } from 'express';
import { AppError, appError } from '../errors.ts';
import { RULE_SET_ID } from '../domain/rule-set.ts';
import { worksheetSummary } from '../domain/summary.ts';
import { calculateWithTrace } from '../domain/trace.ts';
import { parseCalculationRequest } from '../schema/request.ts';
import { STUDENT_FIELD, parseStudent } from '../schema/student.ts';
import type { WireWorksheet } from '../schema/worksheet.ts';
import type { AppContext } from './context.ts';
import { jsonParseOptions } from './calculate-route.ts';
import { sendError, validationFailure } from './error-envelope.ts';
import { readJsonObject } from './json-body.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';
import { type WorksheetDocument, wirePolicy } from './worksheet/content.ts';
import { setWorksheetHeaders, setWorksheetHtmlHeaders, worksheetPdfFilename } from './worksheet/headers.ts';
import { renderWorksheetHtml } from './worksheet/html.ts';
import { PDF_RETRY_AFTER_SECONDS, renderPdfOffThread } from './worksheet/pdf-pool.ts';

export const WORKSHEET_PATH = '/v1/calculate/worksheet';

export const WORKSHEET_MEDIA_TYPES = ['application/json', 'text/html', 'application/pdf'] as const;
type WorksheetMediaType = (typeof WORKSHEET_MEDIA_TYPES)[number];

/** The format the Accept header allows (JSON first on a tie, and for no Accept or *\/*); null → 406. */
export function negotiateWorksheet(req: Request): WorksheetMediaType | null {
  const type = req.accepts([...WORKSHEET_MEDIA_TYPES]);
  return type === false ? null : (type as WorksheetMediaType);
}

export function worksheetRouter(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const limit = ctx.config.MAX_BODY_BYTES;
  const clock = ctx.clock ?? (() => new Date());
  const parseOptions = jsonParseOptions(ctx.config); // SOR_POLICY, the requests' default policy

  router.post(WORKSHEET_PATH, async (req, res) => {
    setWorksheetHeaders(res);
    try {
      const format = negotiateWorksheet(req);
      if (format === null) throw appError('WORKSHEET_NOT_ACCEPTABLE');
      const body = await readJsonObject(req, res, limit);
      // `student` is the worksheet's own field: validated apart, never logged or stored (schema/student.ts).
      const { [STUDENT_FIELD]: studentField, ...request } = body;
      const parsed = parseCalculationRequest(request, parseOptions);
      const student = parseStudent(studentField);
      if (!parsed.ok || !student.ok) {
        const fieldErrors = [...(parsed.ok ? [] : parsed.fieldErrors), ...(student.ok ? [] : student.fieldErrors)];
        sendError(res, validationFailure(fieldErrors));
        return;
      }
      const { result, steps } = calculateWithTrace(parsed.value);
      const summary = worksheetSummary(parsed.value, result, steps, student.value);
      res.status(200);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Vary', 'Accept');
      if (format === 'application/json') {
        const worksheet: WireWorksheet = {
          rule_set: RULE_SET_ID,
          policy: wirePolicy(parsed.value.policy),
          summary,
          result,
          steps,
        };
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(JSON.stringify(worksheet));
        return;
      }
      const doc: WorksheetDocument = {
        ruleSet: RULE_SET_ID,
        generatedAt: clock(),
        requestId: String(res.getHeader(REQUEST_ID_HEADER) ?? ''),
        input: parsed.value,
        summary,
        result,
        steps,
      };
      if (format === 'text/html') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        setWorksheetHtmlHeaders(res);
        res.end(renderWorksheetHtml(doc));
        return;
      }
      // Laid out on a worker thread with a time budget (worksheet/pdf-pool.ts); stopped if the client goes away.
      const gone = new AbortController();
      const onClose = () => gone.abort();
      res.once('close', onClose);
      let pdf: Buffer;
      try {
        pdf = await renderPdfOffThread(doc, { signal: gone.signal });
      } catch (err) {
        if (gone.signal.aborted && !(err instanceof AppError)) return; // the client went away: no one to answer
        throw err;
      } finally {
        res.off('close', onClose);
      }
      res.setHeader('Content-Type', 'application/pdf');
      res.setHeader('Content-Disposition', `inline; filename="${worksheetPdfFilename(summary)}"`);
      res.end(pdf);
    } catch (err) {
      if (err instanceof AppError && (err.entry === 'WORKSHEET_PDF_BUSY' || err.entry === 'WORKSHEET_PDF_TIMEOUT')) {
        res.setHeader('Retry-After', String(PDF_RETRY_AFTER_SECONDS));
      }
      sendError(res, err);
    }
  });
  router.all(WORKSHEET_PATH, methodNotAllowed('POST'));
  return router;
}
