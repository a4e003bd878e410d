/**
 * Accessibility and size, in a real browser: axe-core finds no serious or critical violation in any state of
 * either tab (the empty form, errors, a result with the School policy open, the worksheet with its steps open, the
 * file tab), at 1280 px and on a 390 px phone; on the phone the main figures read without sideways scrolling (a card
 * per term) and the terms table's caption is whole; the print layout leaves the form out and cuts no column.
 * Screenshots of each state at both widths go to test-output/screenshots/.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, screenshot, useBrowserSession, type ContextOptions } from './browser.ts';
import { calculate, example, fillRequest, setPolicy } from './form-helpers.ts';

const server = useBrowserSession();
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: unknown[];
}

const WIDTHS: readonly (readonly [string, ContextOptions])[] = [
  ['1280', { viewport: { width: 1280, height: 900 } }],
  ['390', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
];

/** Runs axe on the page as it is; fails on a serious or critical violation. */
async function axe(page: Page, state: string): Promise<void> {
  if ((await page.evaluate<string>('typeof axe')) === 'undefined') await page.addScriptTag({ path: AXE });
  const { violations, passes } = await page.evaluate<{ violations: AxeViolation[]; passes: number }>(
    'axe.run().then((r) => ({ violations: r.violations, passes: r.passes.length }))',
  );
  expect(passes, `${state}: axe ran its rules`).toBeGreaterThan(10);
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const summary = violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  expect(serious, `${state}: ${JSON.stringify(summary)}`).toEqual([]);
}

/** How far the page is wider than the screen (0 or less: no sideways scrolling). */
const overflow = (page: Page) =>
  page.evaluate<number>(`document.documentElement.scrollWidth - ${page.viewportSize()!.width}`);

describe.each(WIDTHS)('at %s px', (width, options) => {
  it('the single-student tab: no serious or critical violation, empty, with errors, with a result and the policy', async () => {
    const page = await server.newPage({ ...options, bypassCSP: true }); // axe is injected as a script
    await openPage(page, `${server.base}/`);
    await axe(page, 'empty form');
    await screenshot(page, `40-form-empty-${width}`);
    await calculate(page);
    await axe(page, 'errors');
    await screenshot(page, `41-form-errors-${width}`);
    await fillRequest(page, example('FSA-4').request);
    await calculate(page);
    await page.locator('#worksheet-steps').waitFor();
    await axe(page, 'result');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.locator('#result').screenshot({ path: `${SHOTS}42-result-${width}.png` });
    await page.locator('#worksheet-steps > summary').click();
    await axe(page, 'worksheet steps open');
    await setPolicy(page, { proration_fraction: 'decimal_truncated' });
    await page.locator('#policy .why').first().locator('summary').click();
    await page.locator('#result #policy-notice').waitFor();
    await axe(page, 'school policy');
    await page.locator('#policy').screenshot({ path: `${SHOTS}43-policy-${width}.png` });
  });

  it('the file tab: no serious or critical violation before a file is chosen', async () => {
    const page = await server.newPage({ ...options, bypassCSP: true });
    await openPage(page, `${server.base}/#bulk`);
    await axe(page, 'file tab');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, `44-file-tab-${width}`);
  });
});

describe('on a phone', () => {
  it('the figures read without sideways scrolling, a card per term, the caption whole', async () => {
    const page = await server.newPage(WIDTHS[1]![1]);
    await openPage(page, `${server.base}/`);
    await fillRequest(page, example('FSA-1').request);
    await calculate(page);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    // Every figure of the result is inside the screen: nothing to scroll to.
    const outside = await page.locator('#result [data-field]').evaluateAll(
      (els) =>
        els.filter((el) => {
          const r = (
            el as unknown as { getBoundingClientRect(): { left: number; right: number } }
          ).getBoundingClientRect();
          return r.left < 0 || r.right > 390;
        }).length,
    );
    expect(outside).toBe(0);
    // A card per term: each term's row is as wide as the screen allows, its figures one under the other.
    const rows = await page
      .locator('#result table.terms tbody tr')
      .evaluateAll((els) =>
        els.map(
          (el) => (el as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width,
        ),
      );
    expect(rows.length).toBe(2);
    for (const w of rows) expect(w).toBeGreaterThan(300);
    const caption = page.locator('#result table.terms caption');
    const [scroll, client] = await caption.evaluate((el) => [
      (el as unknown as { scrollWidth: number }).scrollWidth,
      (el as unknown as { clientWidth: number }).clientWidth,
    ]);
    expect(scroll).toBeLessThanOrEqual(client);
    expect(await caption.isVisible()).toBe(true);
    await screenshot(page, '06-phone-result');
    await page.locator('#result-heading').evaluate((el) => (el as { scrollIntoView(): void }).scrollIntoView());
    await page.screenshot({ path: `${SHOTS}readme-page-phone.png` });
  });
});

describe('printed', () => {
  it('leaves the form out and cuts no column of the result', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    await fillRequest(page, example('FSA-4').request);
    await calculate(page);
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#student-form').isVisible()).toBe(false);
    expect(await page.locator('#result [data-field="terms[1].proportional.subsidized"]').isVisible()).toBe(true);
    // The widest table fits the printed width: the notes column is not cut off.
    const fits = await page.locator('#result table.terms').evaluate((el) => {
      const t = el as unknown as { scrollWidth: number; parentElement: { clientWidth: number } };
      return t.scrollWidth <= t.parentElement.clientWidth;
    });
    expect(fits).toBe(true);
    await screenshot(page, '07-print');
  });
});

const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;
