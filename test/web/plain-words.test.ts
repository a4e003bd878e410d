/**
 * The page speaks the aid office's language: in a real browser, every text a person can read on the page — each
 * tab, every folded section opened, the errors, results of the worked examples with their warnings and notes, the
 * school policy in force, the worksheet and its summary, what-if, a file's results — is scanned, and none holds
 * `null`, `JSON`, a section sign, an HTTP status code or an API field path (`terms[1].credits_enrolled`,
 * `subsidized_amount`). Left out of the scan: the small "API: credits_enrolled" hints for integrators (class `api`)
 * and, on the file tab, the file's own column names as its header row spells them (`code.column`).
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, useBrowserSession } from './browser.ts';
import { calculate, example, fillRequest, setPolicy } from './form-helpers.ts';
import { excelExport } from './excel-export.ts';

const server = useBrowserSession();

/** What a reader meets that is the API's language, not the office's. */
const FORBIDDEN: readonly (readonly [string, RegExp])[] = [
  ['null', /\bnull\b/i],
  ['JSON', /JSON/],
  ['a section sign', /§/],
  [
    'an HTTP status code',
    /\((?:4|5)\d\d\)|\bstatus (?:4|5)\d\d\b|\b(?:4|5)\d\d (?:Unprocessable|Bad Request|Not Found)/,
  ],
  ['a field path', /\w\[\d*\]\.\w/],
  ['an API name', /\b[a-z]+(?:_[a-z]+)+\b/],
];

/**
 * The text a person can read on the page now (innerText: what is rendered), every <details> opened first and the
 * integrators' "API:" hints left out.
 */
async function readableText(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    for (const d of document.querySelectorAll('details')) d.open = true;
    const hints = [...document.querySelectorAll('.api, code.column')];
    for (const el of hints) el.style.display = 'none';
    const text = document.body.innerText;
    for (const el of hints) el.style.display = '';
    return text;
  })()`);
}

function expectPlain(text: string, state: string): void {
  for (const [what, pattern] of FORBIDDEN) {
    const lines = text.split('\n').filter((line) => pattern.test(line));
    expect(lines, `${state}: ${what} in the text a person reads`).toEqual([]);
  }
}

describe('the words on the page', () => {
  it('the scan finds what it looks for (a sentence with the API’s words fails it)', () => {
    for (const sample of ['got null', 'A JSON body', 'rules.md §2.3', 'failed (422)', 'terms[1].credits_enrolled']) {
      expect(
        FORBIDDEN.some(([, pattern]) => pattern.test(sample)),
        sample,
      ).toBe(true);
    }
    expect(FORBIDDEN.some(([, pattern]) => pattern.test('Spring: enter the credits the student is enrolled in.'))).toBe(
      false,
    );
  });

  it('the single-student tab: empty, with errors, with results, warnings and notes, under a policy', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    expectPlain(await readableText(page), 'the empty form');
    await calculate(page);
    expectPlain(await readableText(page), 'the form with errors');
    // Examples whose answers carry warnings and notes that name fields and values in the service's words.
    for (const id of ['FSA-4', 'REF-GP-AFTER-REDUCTION', 'SCH-APUS-3', 'REF-FINAL-PERIOD-METRO', 'HB-CH5-EX6']) {
      await openPage(page, `${server.base}/`);
      await fillRequest(page, example(id).request);
      await calculate(page);
      await page.locator('#worksheet-steps').waitFor();
      expectPlain(await readableText(page), id);
    }
    // Errors the service words in its own terms: a negative amount, an unknown award year's limits, too many terms.
    await openPage(page, `${server.base}/`);
    const request = structuredClone(example('FSA-1').request);
    request['subsidized_amount'] = -1;
    request['academic_year_terms'] = 2;
    request.terms.push({ label: 'Summer', full_time_credits: 12, credits_enrolled: 6 });
    await fillRequest(page, request);
    await calculate(page);
    expectPlain(await readableText(page), 'the service’s errors');
    // A student under every non-default policy option at once.
    await setPolicy(page, {
      proration_fraction: 'decimal_truncated',
      remainder_placement: 'last_term',
      single_term_basis: 'half_annual',
      below_half_time_credits: 'excluded',
      grad_plus_gap: 'before_reduction',
    });
    await fillRequest(page, example('FSA-1').request);
    await calculate(page);
    expectPlain(await readableText(page), 'every policy option changed');
    // What if, with a term dropped.
    await page.getByRole('button', { name: 'What if…' }).click();
    await page.locator('#whatif .change-kind').selectOption('drop');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.locator('#comparison-heading').waitFor();
    expectPlain(await readableText(page), 'what if');
  });

  it('the file tab: a file read, its results, its grouped errors; a refused file', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/#bulk`);
    expectPlain(await readableText(page), 'the file tab');
    await page.locator('#bulk-file').setInputFiles({
      name: 'export.csv',
      mimeType: 'text/csv',
      buffer: excelExport(100, 10).bytes,
    });
    expectPlain(await readableText(page), 'a file read');
    await page.getByRole('button', { name: 'Calculate the file' }).click();
    await page.locator('#bulk-summary-heading').waitFor({ timeout: 60_000 });
    expectPlain(await readableText(page), 'a file’s results');
    await page.getByLabel('Other columns').selectOption('strict');
    await page.getByRole('button', { name: 'Calculate the file' }).click();
    await page.locator('#bulk-error:not([hidden])').waitFor({ timeout: 60_000 });
    expectPlain(await readableText(page), 'a refused file');
  });
});
