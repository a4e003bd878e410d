/**
 * The file tab in a real browser, against the real service without Redis. A registrar picks samples/sample.csv and
 * gets the sample's golden files as downloads; drops a file with error rows and reads them grouped by problem with
 * their count and first lines; sends a larger file and watches ONE job's progress; refuses a file whose columns the
 * layout does not have and reads which column; and sends a 5,000-student Excel export (Windows-1252, semicolons,
 * three columns of the registrar's own, made from the worked examples): the page finds how it is written and says
 * so, submits one job with ?charset=&delimiter=&extra_columns=, and shows the counts, the summary (students reduced,
 * totals per loan type, the distribution of the annual percentage), the grouped errors, the error report and both
 * result downloads — every figure checked against the published results of the examples.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, screenshot, useBrowserSession, type ContextOptions } from './browser.ts';
import { at } from './form-helpers.ts';
import { EXTRA_COLUMNS, excelExport } from './excel-export.ts';

const SAMPLE = new URL('../../samples/sample.csv', import.meta.url);
const EXPECTED_CSV = readFileSync(new URL('../../samples/sample.expected.csv', import.meta.url));
const EXPECTED_NDJSON = readFileSync(new URL('../../samples/sample.expected.ndjson', import.meta.url));

const server = useBrowserSession();

async function fileTab(options: ContextOptions = {}): Promise<Page> {
  const page = await server.newPage(options);
  await openPage(page, `${server.base}/#bulk`);
  expect(await page.locator('#panel-bulk').isVisible()).toBe(true);
  return page;
}

/** Chooses a file as a person would, and waits until the page has read how it is written. */
async function chooseFile(page: Page, files: Parameters<Page['setInputFiles']>[1]): Promise<void> {
  await page.locator('#bulk-file').setInputFiles(files);
  await page.locator('#file-reading').waitFor();
}

async function runFile(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Calculate the file' }).click();
  await page.locator('#bulk-summary-heading, #bulk-error:not([hidden])').first().waitFor({ timeout: 120_000 });
}

async function download(page: Page, name: string): Promise<Buffer> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
  return readFileSync((await file.path())!);
}

/** The URLs of the page's POST /v1/jobs requests. */
/** A plain CSV of `students` independent second-year students, each 6 + 9 of 12 credits over Fall and Spring. */
function largeFile(students: number): { name: string; mimeType: string; buffer: Buffer } {
  const lines = ['student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level'];
  for (let i = 0; i < students; i++) {
    lines.push(`S${i},Fall,12,6,independent,second_year`, `S${i},Spring,12,9,independent,second_year`);
  }
  return { name: 'large.csv', mimeType: 'text/csv', buffer: Buffer.from(`${lines.join('\n')}\n`) };
}

function jobSubmissions(page: Page): URL[] {
  const urls: URL[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/jobs')
      urls.push(new URL(request.url()));
  });
  return urls;
}

const shownText = (page: Page, field: string) => page.locator(`#bulk-summary [data-field="${field}"]`).textContent();
const n = (value: number) => value.toLocaleString('en-US');
const dollars = (value: number) => `$${n(value)}`;

describe('the file tab', () => {
  it('calculates samples/sample.csv as one job: counts, grouped errors, and the golden files as downloads', async () => {
    const page = await fileTab();
    const submitted = jobSubmissions(page);
    await chooseFile(page, SAMPLE.pathname);
    expect(await page.locator('#bulk-chosen').textContent()).toContain('sample.csv');
    expect(await page.locator('#file-notices').textContent()).toBe(
      'A plain UTF-8 file with commas and the layout’s columns.',
    );
    await screenshot(page, '10-bulk-chosen');
    await runFile(page);
    expect(submitted.map((u) => u.search)).toEqual(['?charset=utf-8&delimiter=comma&extra_columns=keep']);

    const rows = parse(EXPECTED_CSV, { columns: true }) as { student_id: string; row_status: string }[];
    const errors = rows.filter((r) => r.row_status === 'error').length;
    expect(errors).toBeGreaterThan(0);
    expect(await shownText(page, 'counts.rows')).toBe(n(rows.length));
    expect(await shownText(page, 'counts.rows_ok')).toBe(n(rows.length - errors));
    expect(await shownText(page, 'counts.error_rows')).toBe(n(errors));
    // A student is a run of rows with the same id (SPLIT-1's two runs are two students, each an error).
    const runs = rows.filter((r, i) => r.student_id !== rows[i - 1]?.student_id).length;
    expect(await shownText(page, 'counts.students')).toBe(n(runs));
    expect(await page.locator('#bulk-progress-text').textContent()).toMatch(/^Done/);
    // The groups count every error row once.
    const counts = await page
      .locator('#bulk-summary .error-groups li strong')
      .allTextContents()
      .then((texts) => texts.map((t) => Number(t.replace(/\D/g, ''))));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(errors);
    await screenshot(page, '11-bulk-sample-summary');

    expect((await download(page, 'Download the results (.csv)')).equals(EXPECTED_CSV)).toBe(true);
    expect((await download(page, 'Download one line per student (.ndjson)')).equals(EXPECTED_NDJSON)).toBe(true);
    const report = parse(await download(page, 'Download the error report (.csv)'), { columns: true }) as {
      row_status: string;
    }[];
    expect(report.length).toBe(errors);
    expect(report.every((r) => r.row_status === 'error')).toBe(true);
    // The template to start a file from is the service's own.
    const template = await (await fetch(`${server.base}/v1/calculate/bulk/template.csv`)).arrayBuffer();
    expect((await download(page, 'Download a template CSV')).equals(Buffer.from(template))).toBe(true);
    expect(await page.locator('#check-summary').isVisible()).toBe(false);
  });

  it('takes a dropped file and groups its errors by problem, each with its count and first lines', async () => {
    const page = await fileTab();
    const header =
      'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,subsidized_amount';
    const lines = [header];
    // Students 1–7 lack Fall's credits_enrolled (lines 2, 4, …, 14); student 8 has a dependency status of "somebody".
    for (let s = 1; s <= 7; s++) {
      lines.push(`M-${s},Fall,12,,dependent,first_year,3500`, `M-${s},Spring,12,9,dependent,first_year,3500`);
    }
    lines.push('D-8,Fall,12,12,somebody,first_year,', 'OK-9,Fall,12,6,independent,second_year,4500', '');
    const csv = lines.join('\n');
    const drop = await page.evaluateHandle(
      `(() => { const data = new DataTransfer(); ` +
        `data.items.add(new File([${JSON.stringify(csv)}], 'registrar.csv', { type: 'text/csv' })); return data; })()`,
    );
    await page.locator('#drop-zone').dispatchEvent('dragover', { dataTransfer: drop });
    await page.locator('#drop-zone').dispatchEvent('drop', { dataTransfer: drop });
    await page.locator('#file-reading').waitFor();
    expect(await page.locator('#bulk-chosen').textContent()).toContain('registrar.csv');
    await runFile(page);

    const group = page.locator('#bulk-summary [data-field="error_groups.credits_enrolled"]');
    expect(await group.textContent()).toBe('7 rows: credits_enrolled is missing — lines 2, 4, 6, 8, 10 …');
    expect(await page.locator('#bulk-summary [data-field="error_groups.dependency_status"]').textContent()).toMatch(
      /^1 row: dependency_status .* — line 16$/,
    );
    expect(await shownText(page, 'counts.error_rows')).toBe('15');
    expect(await shownText(page, 'counts.rows_ok')).toBe('1');
    await screenshot(page, '12-bulk-error-groups');
  });

  it('follows ONE job while a larger file is calculated: the bar moves and never goes back', async () => {
    const page = await fileTab();
    const submitted = jobSubmissions(page);
    const students = 20_000;
    await chooseFile(page, largeFile(students));
    await page.evaluate(
      `window.bars = []; setInterval(() => { const b = document.getElementById('bulk-progress'); ` +
        `if (!b.hidden && b.hasAttribute('value')) window.bars.push([b.value, b.max]); }, 25)`,
    );
    await page.getByRole('button', { name: 'Calculate the file' }).click();
    const midway = `(() => { const b = document.getElementById('bulk-progress'); return b.value > 0 && b.value < b.max; })()`;
    await expect.poll(() => page.evaluate<boolean>(midway), { timeout: 60_000, interval: 20 }).toBe(true);
    expect(await page.locator('#bulk-progress-text').textContent()).toMatch(/^Calculating: [\d,]+ of 20,000 students/);
    await screenshot(page, '14-bulk-progress');
    await page.locator('#bulk-summary-heading').waitFor({ timeout: 120_000 });
    const bars = await page.evaluate<[number, number][]>('window.bars');
    const values = bars.map(([value]) => value);
    expect(values.some((v, i) => v > 0 && v < bars[i]![1])).toBe(true);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(bars.at(-1)).toEqual([students, students]);
    expect(submitted.length).toBe(1);
    expect(await shownText(page, 'counts.rows_ok')).toBe(n(2 * students));
    expect(await page.locator('#bulk-summary').textContent()).toContain('No rows with errors.');
  }, 180_000);

  it('reads Excel’s “Unicode text” export as it is: UTF-16 with its byte order mark, tabs between columns', async () => {
    const page = await fileTab();
    const submitted = jobSubmissions(page);
    const text =
      'student_id\tterm_label\tfull_time_credits\tcredits_enrolled\tdependency_status\tgrade_level\tsubsidized_amount\r\n' +
      'FSA-1\tFall\t12\t6\tdependent\tfirst_year\t3500\r\n' +
      'FSA-1\tSpring\t12\t9\tdependent\tfirst_year\t3500\r\n';
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    await chooseFile(page, { name: 'unicode.txt', mimeType: 'text/plain', buffer: bytes });
    const notices = (await page.locator('#file-notices').textContent()) ?? '';
    expect(notices).toContain('Characters: UTF-16, as the file itself says.');
    expect(notices).toContain('Columns are separated by tabs (found in the header row).');
    await runFile(page);
    expect(submitted.map((u) => u.search)).toEqual(['?charset=utf-16le&delimiter=tab&extra_columns=keep']);
    expect(await shownText(page, 'counts.rows_ok')).toBe('2');
    // FSA example 1 (its published 2,205 subsidized for the year is the file's whole subsidized total).
    expect(await shownText(page, 'summary.totals.equal.subsidized')).toBe('$2,205');
  });

  it('sends the settings the officer changes, and shows the service’s answer about them', async () => {
    const page = await fileTab();
    const submitted = jobSubmissions(page);
    await chooseFile(page, { name: 'registrar-export.csv', mimeType: 'text/csv', buffer: excelExport(20, 50).bytes });
    await page.getByLabel('Characters').selectOption('utf-8');
    expect(await page.locator('#file-notices').textContent()).toContain('Characters: read as UTF-8, as chosen below.');
    // The header row is read again with the chosen setting: the semicolons are still found.
    expect(await page.getByLabel('Columns separated by').inputValue()).toBe('semicolon');
    await runFile(page);
    expect(submitted.map((u) => u.search)).toEqual(['?charset=utf-8&delimiter=semicolon&extra_columns=keep']);
    // Windows-1252 bytes are not UTF-8: the service says where, and the page says what to change on the page (not
    // the header or URL parameter another client would send).
    const alert = page.locator('#bulk-error');
    expect(await alert.isVisible()).toBe(true);
    const text = (await alert.textContent()) ?? '';
    expect(text).toMatch(/^The CSV file is not valid UTF-8: line 2 /);
    expect(text).toContain('Choose how the file’s characters are written under “Characters” above');
    expect(text).not.toMatch(/Content-Type|\?charset|command line/);
    await screenshot(page, '19-file-wrong-charset');
  });

  it('Stop cancels the running job: the status says so and no results are shown', async () => {
    const page = await fileTab();
    await chooseFile(page, largeFile(100_000));
    const [accepted] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/v1/jobs'),
      page.getByRole('button', { name: 'Calculate the file' }).click(),
    ]);
    const { id } = (await accepted.json()) as { id: string };
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect
      .poll(() => page.locator('#bulk-progress-text').textContent(), { timeout: 60_000 })
      .toBe('Stopped: the file was not calculated to the end.');
    const job = (await (await fetch(`${server.base}/v1/jobs/${id}`)).json()) as { status: string };
    expect(job.status).toBe('cancelled');
    expect(await page.locator('#bulk-summary-heading').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Stop' }).isVisible()).toBe(false);
  }, 120_000);

  it('a file refused for a column the layout does not have (when the officer refuses them) names the column', async () => {
    const page = await fileTab();
    await chooseFile(page, {
      name: 'typo.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,credits_enroled\n',
      ),
    });
    expect(await page.locator('#file-notices').textContent()).toContain(
      '1 column is not part of the layout: credits_enroled.',
    );
    await page.getByLabel('Other columns').selectOption('strict');
    await runFile(page);
    const alert = page.getByRole('alert').filter({ hasText: 'credits_enroled' });
    expect(await alert.isVisible()).toBe(true);
    expect(await alert.textContent()).not.toMatch(/\?extra_columns|JSON|null/);
    expect(await page.locator('#bulk-summary-heading').count()).toBe(0);
    await screenshot(page, '13-bulk-refused');
  });

  it('a 5,000-student Excel export (Windows-1252, semicolons, extra columns): results, errors, summary, downloads', async () => {
    const page = await fileTab();
    const submitted = jobSubmissions(page);
    const file = excelExport(5000, 125);
    await chooseFile(page, { name: 'registrar-export.csv', mimeType: 'text/csv', buffer: file.bytes });
    // What the page found, in notices, and the settings it will send.
    const notices = (await page.locator('#file-notices').textContent()) ?? '';
    expect(notices).toContain('The file is not UTF-8: it is read as Windows-1252');
    expect(notices).toContain('Columns are separated by semicolons');
    expect(notices).toContain(`3 columns are not part of the layout: ${EXTRA_COLUMNS.join(', ')}.`);
    expect(await page.getByLabel('Characters').inputValue()).toBe('windows-1252');
    expect(await page.getByLabel('Columns separated by').inputValue()).toBe('semicolon');
    expect(await page.getByLabel('Other columns').inputValue()).toBe('keep');
    await screenshot(page, '16-excel-export-read');
    await page.locator('#file-reading').screenshot({ path: `${SHOTS}readme-page-file-read.png` });
    await runFile(page);
    expect(submitted.map((u) => u.search)).toEqual(['?charset=windows-1252&delimiter=semicolon&extra_columns=keep']);

    // Counts, from the file as generated.
    const ok = file.students.filter((s) => !s.broken);
    const broken = file.students.filter((s) => s.broken);
    const brokenRows = broken.reduce((k, s) => k + s.lines.length, 0);
    expect(await shownText(page, 'counts.students')).toBe('5,000');
    expect(await shownText(page, 'counts.rows')).toBe(n(file.rows));
    expect(await shownText(page, 'counts.error_rows')).toBe(n(brokenRows));
    expect(await shownText(page, 'counts.students_with_errors')).toBe(n(broken.length));
    // The grouped errors: the empty credits, with their first lines as written in the file.
    expect(await shownText(page, 'error_groups.credits_enrolled')).toBe(
      `${broken.length} rows: credits_enrolled is missing — lines ${file.emptyLines.slice(0, 5).map(n).join(', ')} …`,
    );
    // The summary: the published results of each student's example.
    const pct = (s: (typeof ok)[number]) => s.example.expected['reduced_annual_pct'] as number;
    expect(await shownText(page, 'summary.students_reduced')).toBe(n(ok.filter((s) => pct(s) < 100).length));
    expect(await shownText(page, 'summary.students_not_reduced')).toBe(n(ok.filter((s) => pct(s) === 100).length));
    for (const loan of ['subsidized', 'unsubsidized', 'grad_plus']) {
      const equal = ok.reduce((k, s) => k + (at(s.example.expected, `total_equal.${loan}`) as number), 0);
      expect(await shownText(page, `summary.totals.equal.${loan}`), loan).toBe(dollars(equal));
    }
    const bucket = (p: number) => (p === 100 ? 100 : Math.floor(p / 10) * 10);
    for (const from of [50, 100]) {
      const students = ok.filter((s) => bucket(pct(s)) === from).length;
      const label = await shownText(page, `summary.reduced_annual_pct.${from}`);
      expect(label, `${from}%`).toContain(`${n(students)} student`);
    }
    await page.locator('#bulk-summary').screenshot({ path: `${SHOTS}17-excel-export-results.png` });
    await page.locator('#bulk-summary').screenshot({ path: `${SHOTS}readme-page-file.png` });

    // Both downloads: every calculated student's published figures; the registrar's columns kept, accents intact.
    const csv = (await download(page, 'Download the results (.csv)')).toString('utf8').replace(/^\uFEFF/, '');
    const out = parse(csv, { columns: true, delimiter: csv.split('\n')[0]!.includes(';') ? ';' : ',' }) as Record<
      string,
      string
    >[];
    expect(out.length).toBe(file.rows);
    const byStudent = new Map<string, Record<string, string>[]>();
    for (const row of out) byStudent.set(row['student_id']!, [...(byStudent.get(row['student_id']!) ?? []), row]);
    for (const s of ok.filter((_, i) => i % 97 === 0)) {
      const mine = byStudent.get(s.id)!;
      expect(mine[0]!['reduced_annual_pct'], s.id).toBe(String(pct(s)));
      mine.forEach((row, t) => {
        expect(row['equal_sub'], `${s.id} term ${t}`).toBe(
          String(at(s.example.expected, `terms[${t}].equal.subsidized`)),
        );
        expect(row['Advisor']).toMatch(/^(José Muñoz|Zoë Brontë)$/);
        expect(row['Notes']).toBe('Pièces reçues; dossier complet');
      });
    }
    for (const s of broken.slice(0, 3))
      expect(byStudent.get(s.id)!.every((r) => r['row_status'] === 'error')).toBe(true);
    const ndjson = (await download(page, 'Download one line per student (.ndjson)'))
      .toString('utf8')
      .trim()
      .split('\n');
    expect(ndjson.length).toBe(file.students.length);
    const first = JSON.parse(ndjson[0]!) as { student_id: string; result: { reduced_annual_pct: number } };
    expect(first.student_id).toBe(ok[0]!.id);
    expect(first.result.reduced_annual_pct).toBe(pct(ok[0]!));
    const report = (await download(page, 'Download the error report (.csv)')).toString('utf8').trim().split('\n');
    expect(report.length - 1).toBe(brokenRows);
  }, 240_000);
});

describe.each([
  ['1280', { viewport: { width: 1280, height: 900 } }],
  ['390', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
] as const)('the file tab at %s px', (width, options) => {
  it('has no serious or critical accessibility violation with a file read and its results shown (axe-core)', async () => {
    const page = await fileTab({ ...options, bypassCSP: true });
    await chooseFile(page, {
      name: 'registrar-export.csv',
      mimeType: 'text/csv',
      buffer: excelExport(200, 25).bytes,
    });
    await runFile(page);
    expect(
      await page.evaluate<number>(`document.documentElement.scrollWidth - ${page.viewportSize()!.width}`),
    ).toBeLessThanOrEqual(0);
    await page.addScriptTag({ path: new URL('../../node_modules/axe-core/axe.min.js', import.meta.url).pathname });
    const { violations } = await page.evaluate<{ violations: { id: string; impact: string | null }[] }>(
      'axe.run().then((r) => ({ violations: r.violations }))',
    );
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious, JSON.stringify(violations.map((v) => v.id))).toEqual([]);
    await screenshot(page, `18-file-results-${width}`);
  });
});

const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;
