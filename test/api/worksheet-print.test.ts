/**
 * The HTML worksheet as an auditor prints it, in Debian's Chromium (playwright-core): FSA example 1 for a named
 * student, served with its own headers (CSP included), printed on Letter paper with print media. Page 1 of the
 * printout (read back with pdf.js, unpdf) is the summary — the student, the percentage arithmetic, the amounts, the
 * lines to sign — and the appendices follow; no table is wider than the page; nothing shows a focus ring. The
 * screenshots go to test-output/screenshots/ (worksheet-fsa1-print.png, worksheet-fsa4-screen.png).
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { SCREENSHOTS, launchBrowser } from '../web/browser.ts';
import { type TestServer, startTestServer } from './helpers.ts';
import { pdfPages } from './worksheet-helpers.ts';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ clock: () => new Date('2026-08-01T12:00:00Z') });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The HTML worksheet of a worked example, as the service answers it (body and headers). */
async function worksheet(id: string, student?: object): Promise<{ html: string; headers: Record<string, string> }> {
  const request = WORKED_EXAMPLES.find((e) => e.id === id)!.request as object;
  const res = await fetch(`${server.base}/v1/calculate/worksheet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/html', 'x-request-id': `print-${id}` },
    body: JSON.stringify({ ...request, award_year: '2026-27', ...(student === undefined ? {} : { student }) }),
  });
  expect(res.status).toBe(200);
  return { html: await res.text(), headers: Object.fromEntries(res.headers) };
}

/** Opens the worksheet in a page as if served at its own URL, with the service's headers. */
async function open(id: string, student?: object) {
  const { html, headers } = await worksheet(id, student);
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  await page.route('http://worksheet.test/', (route) => route.fulfill({ status: 200, headers, body: html }));
  await page.goto('http://worksheet.test/');
  return { page, context };
}

describe('the printed HTML worksheet', () => {
  it('FSA example 1: page 1 is the summary with the student, the arithmetic and the amounts; the appendices follow', async () => {
    const { page, context } = await open('FSA-1', { name: 'Ana Díaz', id: 'A00123456' });
    try {
      await page.emulateMedia({ media: 'print' });
      await page.screenshot({ path: join(SCREENSHOTS, 'worksheet-fsa1-print.png'), fullPage: true });
      const pages = await pdfPages(new Uint8Array(await page.pdf({ format: 'Letter', preferCSSPageSize: true })));
      const page1 = pages[0]!;
      expect(page1).toContain('Ana Díaz');
      expect(page1).toContain('A00123456');
      // rules.md and examples.json: 15/24 = 62.5% → 63%; $3,500 and $2,000 at 63%; 1,103 + 1,102, 882 + 1,323.
      expect(page1).toContain('(6 + 9) ÷ 24 = 62.5% → 63%');
      expect(page1).toContain('$3,500 × 63% = $2,205');
      expect(page1).toContain('$2,000 × 63% = $1,260');
      for (const amount of ['$1,103', '$1,102', '$882', '$1,323', '$504', '$756', '$1,260']) {
        expect(page1).toContain(amount);
      }
      expect(page1).toContain('Prepared by');
      expect(page1).toContain('Reviewed by');
      expect(page1).not.toContain('How each amount was computed');
      expect(pages[1]).toContain('Appendix A');
      expect(pages.join(' ')).toContain('How each amount was computed');
      expect(pages.length).toBeLessThanOrEqual(4);
    } finally {
      await context.close();
    }
  });

  it('no table is cut at the edge of the page and no focus ring prints (a legacy graduate student: the widest schedule)', async () => {
    const { page, context } = await open('REF-GP-AFTER-REDUCTION');
    try {
      await page.emulateMedia({ media: 'print' });
      // Letter paper less 12 mm margins each side, at 96 px per inch: about 725 px of text width.
      await page.setViewportSize({ width: 725, height: 1000 });
      // Evaluated in the page (a string: this test's TypeScript has no DOM types).
      const overflowing = await page.evaluate<string[]>(
        `[...document.querySelectorAll('table')]
          .filter((t) => t.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
          .map((t) => t.className)`,
      );
      expect(overflowing).toEqual([]);
      await page.locator('a[href^="#source-"]').first().focus();
      const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
      expect(outline).toBe('none');
    } finally {
      await context.close();
    }
  });

  it('FSA example 4 on screen: the summary first (screenshot)', async () => {
    const { page, context } = await open('FSA-4');
    try {
      await page.screenshot({ path: join(SCREENSHOTS, 'worksheet-fsa4-screen.png') });
      const headings = await page.locator('h2').allTextContents();
      expect(headings.slice(0, 6)).toEqual([
        'School policy',
        'Academic-year percentage',
        'Annual amounts',
        'Schedule per term',
        'Adjustments',
        'Warnings',
      ]);
      expect(await page.locator('.summary li').first().textContent()).toMatch(/^Spring: .*-\$90 subsidized\.$/);
    } finally {
      await context.close();
    }
  });
});
