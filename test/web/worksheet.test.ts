/**
 * The worksheet on the page, in a real browser against the real service: its summary first (the student's name and
 * ID as typed, the percentage with its arithmetic, each annual amount as base × percentage), then the steps of FSA
 * example 4 as a folded appendix (the −90 adjustments as outputs of steps, each step with its legal citation); the
 * PDF downloaded by its button, named after the student's ID, its first page read back with pdf.js (unpdf) for the
 * arithmetic and the amounts; and the print layout. Screenshots go to test-output/screenshots/.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, screenshot, SCREENSHOTS, useBrowserSession, type ContextOptions } from './browser.ts';
import { at, example, fillRequest } from './form-helpers.ts';

const server = useBrowserSession();

async function calculated(id: string, options: ContextOptions = {}, student?: [string, string]): Promise<Page> {
  const page = await server.newPage(options);
  await openPage(page, `${server.base}/`);
  await fillRequest(page, example(id).request);
  if (student) {
    await page.getByLabel('Student name').pressSequentially(student[0]);
    await page.getByLabel('Student ID').pressSequentially(student[1]);
  }
  await page.getByRole('button', { name: 'Calculate', exact: true }).click();
  await page.locator('#worksheet-steps > summary').click();
  await page.locator('#worksheet .step').first().waitFor();
  return page;
}

/** The text of each page of a PDF. */
async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const pdf = await getDocumentProxy(bytes);
  const pages: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  return pages;
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  return (await pdfPages(bytes)).join('\n');
}

const money = (n: number) => `$${n.toLocaleString('en-US')}`;

describe('the worksheet on the page', () => {
  it('shows the summary first: the student, the percentage with its arithmetic, each annual amount', async () => {
    const page = await calculated('FSA-1', {}, ['Ana Díaz', 'A00123456']);
    const summary = page.locator('#worksheet-summary');
    // Before the steps.
    const order = await page
      .locator('#worksheet-summary, #worksheet-steps')
      .evaluateAll((els) => els.map((el) => (el as { id: string }).id));
    expect(order).toEqual(['worksheet-summary', 'worksheet-steps']);
    const text = (await summary.textContent()) ?? '';
    expect(text).toContain('Ana Díaz · A00123456');
    // rules.md §3 with FSA example 1's credits: (6 + 9) ÷ 24 = 62.5%, rounded half up to the published 63%.
    const fsa1 = example('FSA-1');
    const credits = fsa1.request.terms.map((t) => t['credits_enrolled'] as number);
    const fullTime = fsa1.request.terms.reduce((n, t) => n + (t['full_time_credits'] as number), 0);
    const pct = fsa1.expected['reduced_annual_pct'] as number;
    const arithmetic = `(${credits.join(' + ')}) ÷ ${fullTime} = ${(100 * (6 + 9)) / fullTime}% → ${pct}%`;
    expect(arithmetic).toBe('(6 + 9) ÷ 24 = 62.5% → 63%');
    expect(await page.locator('#worksheet [data-field="summary.percentage"]').textContent()).toBe(arithmetic);
    const sub = `${money(fsa1.request['subsidized_amount'] as number)} × ${pct}% = ${money(fsa1.expected['annual_basic_eligibility_sub'] as number)}`;
    expect(text).toContain(sub);
    await summary.screenshot({ path: join(SCREENSHOTS, 'readme-page-worksheet.png') });
    await screenshot(page, '25-worksheet-summary');
  });

  it('downloads the PDF named after the student, whose first page holds the name, ID, arithmetic and amounts', async () => {
    const page = await calculated('FSA-1', {}, ['Ana Díaz', 'A00123456']);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the worksheet (PDF)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('worksheet-A00123456-2026-27.pdf');
    const bytes = readFileSync((await download.path())!);
    const [first] = await pdfPages(new Uint8Array(bytes));
    const fsa1 = example('FSA-1');
    for (const text of [
      'Ana Díaz',
      'A00123456',
      '(6 + 9) ÷ 24 = 62.5% → 63%',
      `$3,500 × 63% = ${money(fsa1.expected['annual_basic_eligibility_sub'] as number)}`,
      `$2,000 × 63% = ${money(fsa1.expected['annual_basic_eligibility_unsub'] as number)}`,
      money(at(fsa1.expected, 'terms[1].proportional.subsidized') as number),
    ]) {
      // The PDF's standard font has no arrow: it writes "->".
      expect(first?.replace(/\s+/g, ' ').replaceAll('->', '→'), text).toContain(text);
    }
    // The name and ID went with the worksheet requests only.
    expect(page.url()).not.toMatch(/A00123456|Ana/);
  });

  it('lists the steps of FSA example 4 with their sections and citations; the −90 adjustments are step outputs', async () => {
    const page = await calculated('FSA-4');
    const fsa4 = example('FSA-4');
    const steps = page.locator('#worksheet .step');
    expect(await steps.count()).toBeGreaterThan(5);
    // Each step with its legal source, in words (no rules document section signs on the page).
    for (const cite of await page.locator('#worksheet .step .cite').allTextContents()) {
      expect(cite).toMatch(/\S/);
      expect(cite).not.toMatch(/§|rules\.md/);
    }
    // FSA example 4: Fall's credits fell from 9 to 6 after 502 was paid; Spring and Summer each lose 90.
    for (const path of ['terms[1].adjustment_sub', 'terms[2].adjustment_sub']) {
      expect(at(fsa4.expected, path)).toBe(-90);
      const outputs = await page.locator(`#worksheet .step dd[data-field="${path}"]`).allTextContents();
      expect(outputs, path).toContain('−$90');
    }
    // Every figure of the result table is the output of some step.
    const shown = await page
      .locator('#result td[data-field]')
      .evaluateAll((cells) => cells.map((c) => c.getAttribute('data-field') ?? ''));
    const outputs = new Set(
      await page
        .locator('#worksheet .step dd[data-field]')
        .evaluateAll((cells) => cells.map((c) => c.getAttribute('data-field') ?? '')),
    );
    const numeric = shown.filter((p) => typeof at(fsa4.expected, p) === 'number');
    expect(numeric.length).toBeGreaterThan(20);
    expect(numeric.filter((p) => !outputs.has(p))).toEqual([]);

    await screenshot(page, '20-worksheet-fsa4');
  });

  it('downloads the worksheet PDF of FSA example 4, whose text holds the student, the −90 steps and citations', async () => {
    const page = await calculated('FSA-4');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the worksheet (PDF)' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.pdf$/);
    const bytes = readFileSync((await download.path())!);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = await pdfText(new Uint8Array(bytes));
    for (const label of ['Fall', 'Spring', 'Summer']) expect(text).toContain(label);
    expect(text).toMatch(/[−-]\s?90\b/);
    expect(text).toContain('685.203');
    const ruleSet = await page.locator('#rule-set').textContent();
    expect(text).toContain(ruleSet);
  });

  it('has no serious or critical accessibility violation with the worksheet shown (axe-core)', async () => {
    const page = await calculated('FSA-4', { bypassCSP: true }); // axe is injected as a script
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
    const { violations, passes } = await page.evaluate<{
      violations: { id: string; impact: string | null }[];
      passes: number;
    }>('axe.run().then((r) => ({ violations: r.violations, passes: r.passes.length }))');
    expect(passes).toBeGreaterThan(10);
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious, JSON.stringify(violations.map((v) => v.id))).toEqual([]);
  });

  it('prints the result, the worksheet and its folded appendix, a page each, without the form or a focus ring', async () => {
    const page = await calculated('FSA-1', {}, ['Ana Díaz', 'A00123456']);
    await page.locator('#worksheet-steps > summary').click(); // folded again, as the officer leaves it
    await page.locator('#result-heading').focus();
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#student-form').isVisible()).toBe(false);
    const outline = await page.evaluate<string>(
      "getComputedStyle(document.getElementById('result-heading')).outlineStyle",
    );
    expect(outline).toBe('none');
    await screenshot(page, '21-worksheet-print');

    const pages = await pdfPages(new Uint8Array(await page.pdf({ format: 'Letter' })));
    const starts = (text: string) => pages.findIndex((p) => p.trimStart().startsWith(text));
    // Page 1: the result, not the form.
    expect(pages[0]).toContain('Result');
    expect(pages[0]).toContain('$1,323');
    expect(pages[0]).not.toMatch(/Dependency status|Calculate the file|Subsidized eligibility/);
    // The worksheet's summary on a page of its own, the student on it; the appendix (folded on the screen) after it.
    // (The PDF's text splits the "fi" ligature: "student’s fi le".)
    const sheet = starts('Worksheet for the student’s');
    expect(sheet).toBeGreaterThan(0);
    expect(pages[sheet]).toContain('Ana Díaz · A00123456');
    expect(pages[sheet]).toContain('Prepared by');
    const appendix = starts('Every step of the calculation');
    expect(appendix).toBeGreaterThan(sheet);
    expect(pages[appendix]).toContain('Credits of Fall');
  });
});
