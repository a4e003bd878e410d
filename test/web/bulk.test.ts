/**
 * The bulk tab in a real browser, against the real service without Redis: a registrar picks samples/sample.csv
 * (or drops a file on the page), watches the progress bar, reads rows ok / error rows with each error row's
 * line, column and message, and downloads the CSV and NDJSON results — which are the golden files of the sample.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, screenshot, useBrowserSession, type ContextOptions } from './browser.ts';

const SAMPLE = new URL('../../samples/sample.csv', import.meta.url);
const EXPECTED_CSV = readFileSync(new URL('../../samples/sample.expected.csv', import.meta.url));
const EXPECTED_NDJSON = readFileSync(new URL('../../samples/sample.expected.ndjson', import.meta.url));

const server = useBrowserSession();

async function bulkTab(options: ContextOptions = {}): Promise<Page> {
  const page = await server.newPage(options);
  await openPage(page, `${server.base}/#bulk`);
  expect(await page.locator('#panel-bulk').isVisible()).toBe(true);
  return page;
}

async function runFile(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Calculate the file' }).click();
  await page.locator('#bulk-summary-heading, #bulk-error:not([hidden])').first().waitFor({ timeout: 60_000 });
}

interface ErrorRow {
  line: string;
  student: string;
  column: string;
  message: string;
}

/** The error rows an NDJSON result holds: one per field error, `line N: message` split, sorted by line. */
function errorRowsOf(ndjson: string): ErrorRow[] {
  const rows: ErrorRow[] = [];
  for (const text of ndjson.split('\n').filter((t) => t.trim() !== '')) {
    const entry = JSON.parse(text) as {
      student_id: string;
      error: { field_errors: { field: string; message: string }[] } | null;
    };
    for (const f of entry.error?.field_errors ?? []) {
      const [, line, message] = /^line (\d+): ([\s\S]*)$/.exec(f.message) ?? ['', '', f.message];
      rows.push({ line: line!, student: entry.student_id, column: f.field, message: message! });
    }
  }
  return rows.sort((a, b) => Number(a.line) - Number(b.line));
}

async function shownErrorRows(page: Page): Promise<ErrorRow[]> {
  const cells = await page
    .locator('table.errors tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  return cells.map(([line, student, column, message]) => ({
    line: line!,
    student: student!,
    column: column!,
    message: message!,
  }));
}

async function download(page: Page, name: string): Promise<Buffer> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
  return readFileSync((await file.path())!);
}

describe('the bulk tab', () => {
  it('calculates samples/sample.csv picked from disk: progress, rows ok / error rows, error rows, downloads', async () => {
    const page = await bulkTab();
    await page.locator('#bulk-file').setInputFiles(SAMPLE.pathname);
    expect(await page.locator('#bulk-chosen').textContent()).toContain('sample.csv');
    await screenshot(page, '10-bulk-chosen');
    await runFile(page);

    const expectedRows = parse(EXPECTED_CSV, { columns: true }) as { row_status: string }[];
    const ok = expectedRows.filter((r) => r.row_status === 'ok').length;
    const errors = expectedRows.filter((r) => r.row_status === 'error').length;
    expect(errors).toBeGreaterThan(0);
    expect(await page.locator('[data-field="rows_ok"]').textContent()).toBe(String(ok));
    expect(await page.locator('[data-field="error_rows"]').textContent()).toBe(String(errors));
    const bar = page.locator('#bulk-progress');
    expect(await bar.isVisible()).toBe(true);
    const [value, max] = await bar.evaluate((el) => [(el as { value: number }).value, (el as { max: number }).max]);
    expect(value).toBe(max);
    expect(await page.locator('#bulk-progress-text').textContent()).toMatch(/^Done/);

    expect(await shownErrorRows(page)).toEqual(errorRowsOf(EXPECTED_NDJSON.toString('utf8')));
    await screenshot(page, '11-bulk-sample-summary');

    expect((await download(page, 'Download CSV')).equals(EXPECTED_CSV)).toBe(true);
    expect((await download(page, 'Download NDJSON')).equals(EXPECTED_NDJSON)).toBe(true);
    // The template to start a file from is the service's own.
    const template = await (await fetch(`${server.base}/v1/calculate/bulk/template.csv`)).arrayBuffer();
    expect((await download(page, 'Download a template CSV')).equals(Buffer.from(template))).toBe(true);
    // No shadow-check columns in the sample: no shadow-check summary.
    expect(await page.locator('#check-summary').isVisible()).toBe(false);
  });

  it('moves the progress bar while a larger file is calculated, then shows every row ok', async () => {
    const page = await bulkTab();
    const students = 20_000;
    const lines = ['student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level'];
    for (let i = 0; i < students; i++) {
      lines.push(`S${i},Fall,12,6,independent,second_year`, `S${i},Spring,12,9,independent,second_year`);
    }
    await page.locator('#bulk-file').setInputFiles({
      name: 'large.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${lines.join('\n')}\n`),
    });
    // Every state of the bar, sampled in the page while the jobs run.
    await page.evaluate(
      `window.bars = []; setInterval(() => { const b = document.getElementById('bulk-progress'); ` +
        `if (!b.hidden && b.hasAttribute('value')) window.bars.push([b.value, b.max]); }, 25)`,
    );
    await page.getByRole('button', { name: 'Calculate the file' }).click();
    const midway = `(() => { const b = document.getElementById('bulk-progress'); return b.value > 0 && b.value < b.max; })()`;
    await expect.poll(() => page.evaluate<boolean>(midway), { timeout: 60_000, interval: 20 }).toBe(true);
    await screenshot(page, '14-bulk-progress');
    await page.locator('#bulk-summary-heading').waitFor({ timeout: 120_000 });
    const bars = await page.evaluate<[number, number][]>('window.bars');
    const values = bars.map(([value]) => value);
    expect(values.some((v, i) => v > 0 && v < bars[i]![1])).toBe(true);
    expect(values).toEqual([...values].sort((a, b) => a - b)); // never goes back
    expect(bars.at(-1)).toEqual([2 * students, 2 * students]); // two jobs of `students` each, both done
    expect(await page.locator('[data-field="rows_ok"]').textContent()).toBe((2 * students).toLocaleString('en-US'));
    expect(await page.locator('[data-field="error_rows"]').textContent()).toBe('0');
    expect(await page.locator('#bulk-summary').textContent()).toContain('No error rows.');
  }, 180_000);

  it('takes a dropped file with error rows and lists each one with its line, column and message', async () => {
    const page = await bulkTab();
    const header =
      'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,subsidized_amount';
    const csv = [
      header,
      'A-1,Fall,12,6,dependent,first_year,3500', // line 2
      'A-1,Spring,12,9,dependent,first_year,3500', // line 3
      'B-2,Fall,12,six,dependent,first_year,3500', // line 4: credits_enrolled is not a number
      'B-2,Spring,12,9,dependent,first_year,3500', // line 5: not calculated (its student has an error)
      'C-3,Fall,0,6,independent,second_year,', // line 6: full_time_credits must be > 0
      'D-4,Fall,12,12,somebody,first_year,', // line 7: dependency_status is not an option
      '',
    ].join('\n');
    // What the service answers for the same file (the page must show these rows, no more, no fewer).
    const res = await fetch(`${server.base}/v1/calculate/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', accept: 'application/x-ndjson' },
      body: csv,
    });
    const expected = errorRowsOf(await res.text());
    expect(expected.map((r) => [r.line, r.column])).toEqual(
      expect.arrayContaining([
        ['4', 'credits_enrolled'],
        ['6', 'full_time_credits'],
        ['7', 'dependency_status'],
      ]),
    );

    // A DataTransfer holding the file, made in the page (what the browser builds when a file is dropped).
    const drop = await page.evaluateHandle(
      `(() => { const data = new DataTransfer(); ` +
        `data.items.add(new File([${JSON.stringify(csv)}], 'registrar.csv', { type: 'text/csv' })); return data; })()`,
    );
    await page.locator('#drop-zone').dispatchEvent('dragover', { dataTransfer: drop });
    await page.locator('#drop-zone').dispatchEvent('drop', { dataTransfer: drop });
    expect(await page.locator('#bulk-chosen').textContent()).toContain('registrar.csv');
    await runFile(page);

    // 6 data rows: A-1's two rows are ok, every row of B-2, C-3 and D-4 is an error row.
    expect(await page.locator('[data-field="rows_ok"]').textContent()).toBe('2');
    expect(await page.locator('[data-field="error_rows"]').textContent()).toBe('4');
    expect(await shownErrorRows(page)).toEqual(expected);
    await screenshot(page, '12-bulk-error-rows');

    const csvOut = (await download(page, 'Download CSV')).toString('utf8');
    const rows = parse(csvOut, { columns: true }) as { student_id: string; row_status: string }[];
    expect(rows.map((r) => `${r.student_id}:${r.row_status}`)).toEqual([
      'A-1:ok',
      'A-1:ok',
      'B-2:error',
      'B-2:error',
      'C-3:error',
      'D-4:error',
    ]);
  });

  it('shows the reason a whole file is refused (an unknown column) in an alert', async () => {
    const page = await bulkTab();
    await page.locator('#bulk-file').setInputFiles({
      name: 'typo.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,credits_enroled\n',
      ),
    });
    await runFile(page);
    const alert = page.getByRole('alert').filter({ hasText: 'credits_enroled' });
    expect(await alert.isVisible()).toBe(true);
    expect(await page.locator('#bulk-summary-heading').count()).toBe(0);
    await screenshot(page, '13-bulk-refused');
  });

  it('has no serious or critical accessibility violation once a summary is shown (axe-core)', async () => {
    const page = await bulkTab({ bypassCSP: true });
    await page.locator('#bulk-file').setInputFiles(SAMPLE.pathname);
    await runFile(page);
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
    const { violations, passes } = await page.evaluate<{
      violations: { id: string; impact: string | null }[];
      passes: number;
    }>('axe.run().then((r) => ({ violations: r.violations, passes: r.passes.length }))');
    expect(passes).toBeGreaterThan(10);
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious, JSON.stringify(violations.map((v) => v.id))).toEqual([]);
  });
});
