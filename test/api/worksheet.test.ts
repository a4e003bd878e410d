/**
 * POST /v1/calculate/worksheet over a real HTTP server: JSON, HTML and PDF of FSA examples 1 and 4 (figures from
 * shared/spec/examples.json and rules.md), the PDF's text read back with pdf.js (unpdf), identical PDF bytes for the
 * same request once the clock is fixed, the school policy listed in all three, the security headers, bidirectional
 * controls shown inert, and the 406 / 415 / 422 / 405 answers in the documented envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeCsp } from '../../src/api/worksheet/headers.ts';
import { CITATIONS } from '../../src/domain/citations.ts';
import { RULE_SET_ID } from '../../src/domain/rule-set.ts';
import { appError, errorEnvelope } from '../../src/errors.ts';
import { WorksheetSchema } from '../../src/schema/worksheet.ts';
import { type TestServer, startTestServer } from './helpers.ts';
import {
  WORKSHEET_URL_PATH as URL_PATH,
  exampleRequest,
  pdfPages,
  pdfTextOf,
  postWorksheet,
  shown,
} from './worksheet-helpers.ts';

const FIXED = new Date('2026-08-01T12:00:00Z');
let now = FIXED;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: () => now });
});
afterAll(async () => {
  await server.close();
});

const request = exampleRequest;
const post = (body: unknown, headers: Record<string, string> = {}) => postWorksheet(server.base, body, headers);

describe('application/json', () => {
  it('FSA example 1: {rule_set, result, steps}; proportional 882 + 1,323 as the outputs of their steps', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await post(request('FSA-1'), accept === undefined ? {} : { accept });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-rule-set')).toBe(RULE_SET_ID);
      const body = WorksheetSchema.parse(JSON.parse(res.bytes.toString('utf8')));
      expect(body.rule_set).toBe(RULE_SET_ID);
      expect(body.result.reduced_annual_pct).toBe(63);
      expect(body.result.terms.map((t) => t.proportional?.subsidized)).toEqual([882, 1323]);
      const fall = body.steps.find((s) => s.id === 'term[0].proportional.sub');
      expect(fall?.output).toEqual({ 'terms[0].proportional.subsidized': 882 });
      expect(fall?.formula).toContain('2205 × 6 ÷ 15 = 882');
    }
  });

  it('FSA example 1: the summary holds the arithmetic of rules.md: (6 + 9) ÷ 24 = 62.5% → 63%, $3,500 × 63%', async () => {
    const res = await post(request('FSA-1'), { accept: 'application/json' });
    const { summary } = WorksheetSchema.parse(JSON.parse(res.bytes.toString('utf8')));
    expect(summary.percentage).toMatchObject({ pct: 63, arithmetic: '(6 + 9) ÷ 24 = 62.5% → 63%' });
    expect(summary.percentage.citation).toBe(CITATIONS.reduction.short);
    expect(summary.annual.map((a) => a.arithmetic)).toEqual(['$3,500 × 63% = $2,205', '$2,000 × 63% = $1,260']);
    expect(summary.schedule.map((t) => t.proportional?.subsidized)).toEqual([882, 1323]);
    expect(summary.totals.equal).toEqual({ subsidized: 2205, unsubsidized: 1260, grad_plus: 0 });
    expect(summary.student).toBeNull();
  });

  it('FSA example 4: the -90 adjustments of spring and summer with their steps', async () => {
    const res = await post(request('FSA-4'), { accept: 'application/json' });
    expect(res.status).toBe(200);
    const body = WorksheetSchema.parse(JSON.parse(res.bytes.toString('utf8')));
    expect(body.result.terms.map((t) => t.adjustment_sub)).toEqual([0, -90, -90]);
    for (const j of [1, 2]) {
      const step = body.steps.find((s) => s.id === `term[${j}].adjustment`);
      expect(step?.output[`terms[${j}].adjustment_sub`]).toBe(-90);
      expect(step?.citation).toBe(CITATIONS.recalculation.citation);
    }
  });
});

describe('text/html', () => {
  it('FSA example 1: a self-contained printable page with inputs, results, steps, rule set, date, request id', async () => {
    const res = await post(request('FSA-1'), { accept: 'text/html', 'x-request-id': 'case-file-17' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('x-rule-set')).toBe(RULE_SET_ID);
    const html = res.bytes.toString('utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('@media print');
    expect(html).not.toMatch(/<script|<link|\bsrc=|@import|url\(/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toContain(RULE_SET_ID);
    expect(html).toContain('2026-08-01 12:00:00 UTC');
    expect(html).toContain('case-file-17');
    expect(html).toContain('<td class="num" data-field="terms[0].proportional.subsidized">$882</td>');
    expect(html).toContain('<td class="num" data-field="terms[1].proportional.subsidized">$1,323</td>');
    expect(html).toContain('<strong data-field="reduced_annual_pct">63%</strong>');
    expect(html).toContain('id="step-term[0].proportional.sub"');
    expect(html).toContain('2205 × 6 ÷ 15 = 882');
    // Page 1, the summary: the arithmetic of rules.md and FSA example 1, then the lines to sign; the steps after it.
    const page1 = html.slice(html.indexOf('<section class="summary"'), html.indexOf('<section class="appendix"'));
    expect(page1).toContain('(6 + 9) ÷ 24 = 62.5% → 63%');
    expect(page1).toContain('$3,500 × 63% = $2,205');
    expect(page1).toContain('$2,000 × 63% = $1,260');
    expect(page1).toContain('<div>Prepared by</div><div>Date</div><div>Reviewed by</div><div>Date</div>');
    expect(page1).not.toContain('step-');
    expect(html.indexOf('Appendix B. How each amount was computed')).toBeGreaterThan(html.indexOf('Prepared by'));
  });

  it('FSA example 4: the -90 adjustment cells, their explanation and their steps', async () => {
    const res = await post(request('FSA-4'), { accept: 'text/html' });
    const html = res.bytes.toString('utf8');
    expect(html).toContain('<td class="num" data-field="terms[1].equal.subsidized">$579</td>');
    expect(html).toContain('<td class="num" data-field="terms[0].equal.subsidized">$502</td>');
    expect(html).toMatch(/<li>Spring: Final credits differ[^<]*-\$90 subsidized\.<\/li>/);
    expect(html).toContain('id="step-term[1].adjustment"');
    expect(html).toContain('579 − 669 = -90');
    expect(html).toContain('<li>Spring, adjustment, subsidized: <strong>-$90</strong></li>');
    expect(html).toContain('<li>Summer, adjustment, subsidized: <strong>-$90</strong></li>');
  });

  it('escapes what the request holds', async () => {
    const body = request('FSA-1') as { terms: { label: string }[] };
    const hostile = {
      ...body,
      terms: body.terms.map((t, i) => ({ ...t, label: i === 0 ? '<script>x()</script>&"' : t.label })),
    };
    const res = await post(hostile, { accept: 'text/html' });
    expect(res.status).toBe(200);
    const html = res.bytes.toString('utf8');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;x()&lt;/script&gt;&amp;&quot;');
  });
});

describe('application/pdf', () => {
  it('FSA example 4: the text shows the -90 adjustments with their steps and citations', async () => {
    const res = await post(request('FSA-4'), { accept: 'application/pdf', 'x-request-id': 'case-file-4' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('x-rule-set')).toBe(RULE_SET_ID);
    expect(res.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const { text, info } = await pdfTextOf(res.bytes);
    expect(text).toContain(`Rule set: ${RULE_SET_ID}`);
    expect(text).toContain('2026-08-01 12:00:00 UTC');
    expect(text).toContain('case-file-4');
    for (const term of ['Spring', 'Summer']) {
      expect(text).toContain(`Adjustment of ${term}`);
      expect(text).toContain(`${term}, adjustment, subsidized: -$90`);
    }
    expect(text).toContain('579 - 669 = -90');
    expect(text).toContain(shown(CITATIONS.recalculation.citation));
    expect(text).toContain('1660 - 502 = 1158');
    expect(info.CreationDate).toBe('D:20260801120000Z');
    expect(info.ModDate).toBe('D:20260801120000Z');
  });

  it('FSA example 1: the proportional 882 and its step', async () => {
    const res = await post(request('FSA-1'), { accept: 'application/pdf' });
    const { text } = await pdfTextOf(res.bytes);
    expect(text).toContain('Fall, proportional subsidized: $882');
    expect(text).toContain(shown('2205 × 6 ÷ 15 = 882'));
    expect(text).toContain(shown(CITATIONS.distribution.citation));
  });

  it('FSA example 1: page 1 is the summary: the percentage arithmetic, the amounts, the schedule, the lines to sign', async () => {
    const res = await post(request('FSA-1'), { accept: 'application/pdf' });
    const pages = await pdfPages(res.bytes);
    const page1 = pages[0]!;
    // rules.md and examples.json: 15/24 = 62.5% → 63%; $3,500 and $2,000 at 63%; 1,103 + 1,102, 882 + 1,323.
    expect(page1).toContain(shown('(6 + 9) ÷ 24 = 62.5% → 63%'));
    expect(page1).toContain(shown('$3,500 × 63% = $2,205'));
    expect(page1).toContain(shown('$2,000 × 63% = $1,260'));
    expect(page1).toContain(shown(CITATIONS.reduction.short));
    for (const amount of ['$1,103', '$1,102', '$630', '$882', '$1,323', '$504', '$756', '$2,205', '$1,260']) {
      expect(page1).toContain(amount);
    }
    expect(page1).toContain('Prepared by');
    expect(page1).toContain('Reviewed by');
    expect(page1).not.toContain('How each amount was computed');
    expect(pages[1]).toContain('Appendix A');
    // A simple two-term student: one page of summary and a short appendix.
    expect(pages.length).toBeLessThanOrEqual(3);
  });

  it('the same request twice gives the same bytes once the date is fixed; another date changes them', async () => {
    const headers = { accept: 'application/pdf', 'x-request-id': 'same-request' };
    const a = await post(request('FSA-4'), headers);
    const b = await post(request('FSA-4'), headers);
    expect(a.bytes.equals(b.bytes)).toBe(true);
    now = new Date('2026-09-02T08:30:00Z');
    try {
      const c = await post(request('FSA-4'), headers);
      expect(c.bytes.equals(a.bytes)).toBe(false);
      expect((await pdfTextOf(c.bytes)).info.CreationDate).toBe('D:20260902083000Z');
    } finally {
      now = FIXED;
    }
  });
});

describe('security headers', () => {
  it('every answer is nosniff; the HTML page forbids framing, scripts and referrers', async () => {
    for (const accept of ['application/json', 'text/html', 'application/pdf']) {
      const res = await post(request('FSA-1'), { accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('x-content-type-options'), accept).toBe('nosniff');
    }
    const html = await post(request('FSA-1'), { accept: 'text/html' });
    const csp = html.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives).toMatchObject({
      'default-src': "'none'",
      'style-src': "'unsafe-inline'",
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
      'form-action': "'none'",
    });
    expect(html.headers.get('referrer-policy')).toBe('no-referrer');
    const refused = await post(request('FSA-1'), { accept: 'text/csv' });
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('merges the page policy into one set already: its directives win, the others stay', () => {
    expect(mergeCsp(undefined, { 'frame-ancestors': "'none'" })).toBe("frame-ancestors 'none'");
    expect(
      mergeCsp("default-src 'self'; img-src data:; frame-ancestors *; upgrade-insecure-requests", {
        'default-src': "'none'",
        'frame-ancestors': "'none'",
      }),
    ).toBe("default-src 'none'; img-src data:; frame-ancestors 'none'; upgrade-insecure-requests");
  });
});

describe('errors', () => {
  it('406 in the documented envelope for an Accept it cannot serve', async () => {
    const res = await post(request('FSA-1'), { accept: 'text/csv' });
    expect(res.status).toBe(406);
    expect(res.headers.get('x-rule-set')).toBe(RULE_SET_ID);
    expect(JSON.parse(res.bytes.toString('utf8'))).toEqual(errorEnvelope(appError('WORKSHEET_NOT_ACCEPTABLE')));
  });

  it('422 naming every offending field, whichever format was asked for', async () => {
    for (const accept of ['application/json', 'text/html', 'application/pdf']) {
      const res = await post(
        {
          dependency_status: 'dependent',
          grade_level: 'first_year',
          terms: [{ label: 'Fall', full_time_credits: 0, credits_enrolled: -1 }],
        },
        { accept },
      );
      expect(res.status).toBe(422);
      const body = JSON.parse(res.bytes.toString('utf8')) as { code: string; field_errors: { field: string }[] };
      expect(body.code).toBe('validation_error');
      expect(body.field_errors.map((f) => f.field)).toEqual(
        expect.arrayContaining(['terms[0].full_time_credits', 'terms[0].credits_enrolled']),
      );
    }
  });

  it('415 for a body that is not JSON, 400 for broken JSON, 405 for GET', async () => {
    const notJson = await post('a,b', { 'content-type': 'text/csv' });
    expect(notJson.status).toBe(415);
    expect(JSON.parse(notJson.bytes.toString('utf8')).code).toBe('unsupported_media_type');
    const broken = await post('{"terms": [', {});
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.bytes.toString('utf8')).code).toBe('invalid_json');
    const get = await fetch(`${server.base}${URL_PATH}`);
    expect(get.status).toBe(405);
  });
});

describe('OpenAPI', () => {
  it('documents the path with its three media types and the step schema from zod', async () => {
    const doc = (await (await fetch(`${server.base}/v1/openapi.json`)).json()) as {
      paths: Record<string, { post: { responses: Record<string, { content?: Record<string, unknown> }> } }>;
      components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
    };
    const operation = doc.paths[URL_PATH]?.post;
    expect(Object.keys(operation?.responses['200']?.content ?? {}).sort()).toEqual([
      'application/json',
      'application/pdf',
      'text/html',
    ]);
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '406',
      '413',
      '415',
      '422',
      '500',
      '503',
    ]);
    expect(doc.components.schemas.TraceStep?.required?.sort()).toEqual(
      ['citation', 'formula', 'id', 'inputs', 'output', 'section', 'title'].sort(),
    );
    expect(Object.keys(doc.components.schemas.Worksheet?.properties ?? {}).sort()).toEqual([
      'policy',
      'result',
      'rule_set',
      'steps',
      'summary',
    ]);
    expect(doc.components.schemas.WorksheetSummary?.required).toEqual(
      expect.arrayContaining(['percentage', 'annual', 'schedule', 'totals', 'adjustments', 'warnings']),
    );
  });
});
