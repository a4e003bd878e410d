/**
 * The worksheet's school policy and the request's own text: every option of the policy listed with its value in
 * force in words (page 1 names the options the school chose, Appendix A all of them) in JSON, HTML and PDF, the
 * deployment default (SOR_POLICY) overridden option by option; bidirectional controls in labels shown inert; every
 * student-level input listed under its name in words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_OPTIONS } from '../../src/domain/policy.ts';
import { POLICY_WORDS } from '../../src/domain/summary-words.ts';
import { STUDENT_FIELDS } from '../../src/schema/fields.ts';
import { WorksheetSchema } from '../../src/schema/worksheet.ts';
import { type TestServer, startTestServer } from './helpers.ts';
import {
  WORKSHEET_URL_PATH as URL_PATH,
  exampleRequest,
  pdfTextOf,
  postWorksheet,
  shown,
} from './worksheet-helpers.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const request = exampleRequest;
const post = (body: unknown, headers: Record<string, string> = {}) => postWorksheet(server.base, body, headers);

describe('school policy', () => {
  /** FSA example 1 under the school policy `policy`. */
  const withPolicy = (policy: Record<string, string>) => ({ ...(request('FSA-1') as object), policy });
  const CHOSEN = { remainder_placement: 'last_term', grad_plus_gap: 'before_reduction' } as const;
  /** What the worksheet must show for each option of the table: the chosen value, else the default (first). */
  const words = (option: string) =>
    POLICY_WORDS[option as keyof typeof POLICY_WORDS] as { label: string; values: Record<string, string> };
  const defaultWords = (option: string) =>
    words(option).values[POLICY_OPTIONS.find((o) => o.name === option)!.values[0]]!;
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
      expect(html).toContain(
        `<td data-field="policy.proration_fraction">${POLICY_WORDS.proration_fraction.values.decimal_rounded}</td>`,
      );
      expect(html).toContain(
        `<td data-field="policy.remainder_placement">${POLICY_WORDS.remainder_placement.values.largest_remainder}</td>`,
      );
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
    const html = res.bytes.toString('utf8').replaceAll('’', "'");
    expect(html).toContain('<h2>School policy</h2>');
    const appendix = html.slice(html.indexOf('<h3>School policy in force</h3>'));
    const page1 = html.slice(0, html.indexOf('<section class="appendix">'));
    for (const e of expected(CHOSEN)) {
      const row =
        `<th scope="row">${words(e.option).label}</th><td data-field="policy.${e.option}">${words(e.option).values[e.value]}</td>` +
        `<td class="small">${e.isDefault ? 'service default' : `school's choice; the default: ${defaultWords(e.option)}`}</td>`;
      expect(appendix).toContain(row.replaceAll('’', "'"));
      // Page 1 names the options the school chose; the others in one sentence.
      if (e.isDefault) expect(page1).not.toContain(`data-field="policy.${e.option}"`);
      else expect(page1).toContain(row.replaceAll('’', "'"));
    }
    expect(page1).toContain('Every other option at the service default');
    expect(appendix.match(/data-field="policy\./g)).toHaveLength(POLICY_OPTIONS.length);
  });

  it('the PDF worksheet lists every option, its value in force and whether it is the default', async () => {
    const { text } = await pdfTextOf((await post(withPolicy(CHOSEN), { accept: 'application/pdf' })).bytes);
    const letters = text.replace(/\s+/g, '');
    expect(text).toContain('School policy');
    for (const e of expected(CHOSEN)) {
      const note = e.isDefault ? 'service default' : `school’s choice; the default: ${defaultWords(e.option)}`;
      expect(letters).toContain(
        shown(`${words(e.option).label}${words(e.option).values[e.value]}${note}`).replace(/\s+/g, ''),
      );
    }
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
    expect(html).toContain(`<th scope="row">${shownLabel}</th>`);
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

describe('the inputs appendix', () => {
  it('lists every student-level field of the request by its name in words, health professions included (HTML and PDF)', async () => {
    const body = request('HB-CH4-DENTISTRY-11');
    const html = (await post(body, { accept: 'text/html' })).bytes.toString('utf8');
    const pdf = (await pdfTextOf((await post(body, { accept: 'application/pdf' })).bytes)).text;
    for (const f of STUDENT_FIELDS) {
      if (f.name === 'terms' || f.name === 'policy') continue;
      const label = (f as { page?: { label: string } }).page!.label;
      expect(html, f.name).toContain(`<th scope="row">${label}</th>`);
      expect(pdf, f.name).toContain(shown(label));
    }
    expect(html).toContain('<th scope="row">Health professions program</th><td>Dentistry</td>');
    expect(html).toContain('<th scope="row">Months in the academic year</th><td>11</td>');
  });
});
