/**
 * POST /v1/calculate/worksheet over a real HTTP server: JSON, HTML and PDF of FSA examples 1 and 4 (figures from
 * shared/spec/examples.json and rules.md), the PDF's text read back with pdf.js (unpdf), identical PDF bytes for the
 * same request once the clock is fixed, the school policy listed in all three, the security headers, bidirectional
 * controls shown inert, and the 406 / 415 / 422 / 405 answers in the documented envelope.
 */
import { getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { mergeCsp } from '../../src/api/worksheet/headers.ts';
import { pdfText } from '../../src/api/worksheet/pdf.ts';
import { CITATIONS } from '../../src/domain/citations.ts';
import { POLICY_OPTIONS } from '../../src/domain/policy.ts';
import { RULE_SET_ID } from '../../src/domain/rule-set.ts';
import { appError, errorEnvelope } from '../../src/errors.ts';
import { WorksheetSchema } from '../../src/schema/worksheet.ts';
import { type TestServer, startTestServer } from './helpers.ts';

const URL_PATH = '/v1/calculate/worksheet';
const FIXED = new Date('2026-08-01T12:00:00Z');
let now = FIXED;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: () => now });
});
afterAll(async () => {
  await server.close();
});

function request(id: string): unknown {
  const example = WORKED_EXAMPLES.find((e) => e.id === id);
  if (example === undefined) throw new Error(`no example ${id}`);
  return example.request;
}

async function post(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${server.base}${URL_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function pdfTextOf(bytes: Buffer): Promise<{ text: string; info: Record<string, unknown> }> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const parts: string[] = [];
  for (let p = 1; p <= pdf.numPages; p++) {
    const content = await (await pdf.getPage(p)).getTextContent();
    for (const item of content.items) if ('str' in item) parts.push(item.str);
  }
  const meta = await pdf.getMetadata();
  await pdf.destroy();
  // Lines wrap at spaces: joined with spaces and collapsed, the text reads as written.
  return { text: parts.join(' ').replace(/\s+/g, ' '), info: meta.info as Record<string, unknown> };
}

/** The text as a PDF of the standard fonts shows it, spaces collapsed. */
const shown = (text: string) => pdfText(text).replace(/\s+/g, ' ');

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
    expect(html).toContain('<td class="num" data-field="terms[0].proportional.subsidized">882</td>');
    expect(html).toContain('<td class="num" data-field="terms[1].proportional.subsidized">1323</td>');
    expect(html).toContain('data-field="reduced_annual_pct">63</td>');
    expect(html).toContain('id="step-term[0].proportional.sub"');
    expect(html).toContain('2205 × 6 ÷ 15 = 882');
  });

  it('FSA example 4: the -90 adjustment cells, their explanation and their steps', async () => {
    const res = await post(request('FSA-4'), { accept: 'text/html' });
    const html = res.bytes.toString('utf8');
    expect(html).toContain('data-field="terms[1].adjustment_sub">-90</td>');
    expect(html).toContain('data-field="terms[2].adjustment_sub">-90</td>');
    expect(html).toContain('id="step-term[1].adjustment"');
    expect(html).toContain('579 − 669 = -90');
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
    expect(text).toContain(`Rule set ${RULE_SET_ID}`);
    expect(text).toContain('2026-08-01 12:00:00 UTC');
    expect(text).toContain('case-file-4');
    for (const j of [1, 2]) {
      expect(text).toContain(`(term[${j}].adjustment)`);
      expect(text).toContain(`terms[${j}].adjustment_sub = -90`);
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
    expect(text).toContain('terms[0].proportional.subsidized = 882');
    expect(text).toContain(shown('2205 × 6 ÷ 15 = 882'));
    expect(text).toContain(shown(CITATIONS.distribution.citation));
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

describe('school policy', () => {
  /** FSA example 1 under the school policy `policy`. */
  const withPolicy = (policy: Record<string, string>) => ({ ...(request('FSA-1') as object), policy });
  const CHOSEN = { remainder_placement: 'last_term', grad_plus_gap: 'before_reduction' } as const;
  /** What the worksheet must show for each option of the table: the chosen value, else the default (first). */
  const expected = (chosen: Record<string, string>) =>
    POLICY_OPTIONS.map((o) => ({
      option: o.name,
      value: chosen[o.name] ?? o.values[0],
      isDefault: !(o.name in chosen),
    }));

  it('the JSON worksheet gives every option of the policy table with its value in force, next to rule_set', async () => {
    const plain = WorksheetSchema.parse(JSON.parse((await post(request('FSA-1'))).bytes.toString('utf8')));
    expect(Object.entries(plain.policy)).toEqual(expected({}).map((e) => [e.option, e.value]));
    const res = await post(withPolicy(CHOSEN), { accept: 'application/json' });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.bytes.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['rule_set', 'policy', 'summary', 'result', 'steps']);
    expect(Object.entries(WorksheetSchema.parse(body).policy)).toEqual(
      expected(CHOSEN).map((e) => [e.option, e.value]),
    );
  });

  it('shows the deployment default (SOR_POLICY) with the request overriding it option by option', async () => {
    const deployed = await startTestServer({
      env: { SOR_POLICY: 'proration_fraction=decimal_rounded,remainder_placement=last_term' },
    });
    try {
      const res = await fetch(`${deployed.base}${URL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/html' },
        body: JSON.stringify(withPolicy({ remainder_placement: 'largest_remainder' })),
      });
      const html = await res.text();
      expect(html).toContain('<td data-field="policy.proration_fraction">decimal_rounded</td>');
      expect(html).toContain('<td data-field="policy.remainder_placement">largest_remainder</td>');
      const json = await fetch(`${deployed.base}${URL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(withPolicy({ remainder_placement: 'largest_remainder' })),
      });
      expect(Object.entries(WorksheetSchema.parse(await json.json()).policy)).toEqual(
        expected({ proration_fraction: 'decimal_rounded' }).map((e) => [e.option, e.value]),
      );
    } finally {
      await deployed.close();
    }
  });

  it('the HTML worksheet lists every option, its value in force and whether it is the default', async () => {
    const res = await post(withPolicy(CHOSEN), { accept: 'text/html' });
    const html = res.bytes.toString('utf8');
    expect(html).toContain('<h2>School policy</h2>');
    for (const e of expected(CHOSEN)) {
      const defaultValue = POLICY_OPTIONS.find((o) => o.name === e.option)!.values[0];
      expect(html).toContain(
        `<th scope="row">${e.option}</th><td data-field="policy.${e.option}">${e.value}</td>` +
          `<td>${e.isDefault ? 'default' : `not the default (default: ${defaultValue})`}</td>`,
      );
    }
    expect(html.match(/data-field="policy\./g)).toHaveLength(POLICY_OPTIONS.length);
  });

  it('the PDF worksheet lists every option, its value in force and whether it is the default', async () => {
    const { text } = await pdfTextOf((await post(withPolicy(CHOSEN), { accept: 'application/pdf' })).bytes);
    const letters = text.replace(/\s+/g, '');
    expect(text).toContain('School policy');
    for (const e of expected(CHOSEN)) {
      const defaultValue = POLICY_OPTIONS.find((o) => o.name === e.option)!.values[0];
      const shownDefault = e.isDefault ? 'default' : `notthedefault(default:${defaultValue})`;
      expect(letters).toContain(`${e.option}${e.value}${shownDefault}`.replace(/\s+/g, ''));
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

describe('bidirectional controls in labels', () => {
  const CONTROLS = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];
  const MARKS = ['\u200E', '\u200F', '\u061C'];
  const label = `Fall\u202E6202\u202C ${[...CONTROLS, ...MARKS].join('')}`;
  const escaped = (ch: string) => `‹U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}›`;
  const shownLabel = label.replace(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g, escaped);
  const body = () => {
    const base = request('FSA-1') as { terms: { label: string }[] };
    return { ...base, terms: base.terms.map((t, i) => ({ ...t, label: i === 0 ? label : t.label })) };
  };

  it('the JSON worksheet keeps them byte for byte', async () => {
    const res = await post(body(), { accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.bytes.includes(Buffer.from(JSON.stringify(label).slice(1, -1), 'utf8'))).toBe(true);
    expect(WorksheetSchema.parse(JSON.parse(res.bytes.toString('utf8'))).result.terms[0]?.label).toBe(label);
  });

  it('the HTML worksheet shows each one as a visible, inert escape and holds none of them', async () => {
    const res = await post(body(), { accept: 'text/html' });
    const html = res.bytes.toString('utf8');
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/);
    expect(html).toContain(`<td>${shownLabel}</td>`);
    expect(html).toContain('Fall‹U+202E›6202‹U+202C›');
  });

  it('the PDF worksheet shows each one as a visible escape', async () => {
    const res = await post(body(), { accept: 'application/pdf' });
    const { text } = await pdfTextOf(res.bytes);
    const letters = text.replace(/\s+/g, '');
    expect(letters).toContain(shownLabel.replace(/\s+/g, ''));
    expect(text).not.toContain('?');
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

describe('the student section', () => {
  it('lists every student-level field of the request, the health-professions ones included (HTML and PDF)', async () => {
    const body = request('HB-CH4-DENTISTRY-11');
    const html = (await post(body, { accept: 'text/html' })).bytes.toString('utf8');
    const pdf = (await pdfTextOf((await post(body, { accept: 'application/pdf' })).bytes)).text;
    for (const field of ['health_professions_program', 'academic_year_months', 'final_period_of_program']) {
      expect(html, field).toContain(field);
      expect(pdf, field).toContain(field);
    }
    expect(html).toContain('dentistry');
  });
});
