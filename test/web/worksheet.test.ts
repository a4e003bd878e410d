/**
 * The worksheet on the page, in a real browser against the real service: the steps of FSA example 4 under its
 * result (the −90 adjustments as outputs of steps, each step with its rules.md section and citation), the PDF
 * downloaded by its button and read back with pdf.js (unpdf), and the print layout. Screenshots go to
 * test-output/screenshots/.
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

async function calculated(id: string, options: ContextOptions = {}): Promise<Page> {
  const page = await server.newPage(options);
  await openPage(page, `${server.base}/`);
  await fillRequest(page, example(id).request);
  await page.getByRole('button', { name: 'Calculate', exact: true }).click();
  await page.locator('#worksheet-steps > summary').click();
  await page.locator('#worksheet .step').first().waitFor();
  return page;
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await getDocumentProxy(bytes);
  const pages: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  return pages.join('\n');
}

describe('the worksheet on the page', () => {
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
    await page.locator('#worksheet h2').evaluate((heading) => heading.scrollIntoView());
    await page.screenshot({ path: join(SCREENSHOTS, 'readme-worksheet.png') });
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

  it('prints the result and the worksheet without the form', async () => {
    const page = await calculated('FSA-1');
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#student-form').isVisible()).toBe(false);
    expect(await page.locator('#worksheet .step').first().isVisible()).toBe(true);
    await screenshot(page, '21-worksheet-print');
  });
});
