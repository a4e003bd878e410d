/**
 * The page on a service with access control (AUTH_MODE=required), in a real browser: without a token the page
 * shows the service's refusal; with the token entered once in the page's header, one student (its result and
 * worksheet) and a bulk file (its summary and downloads) work, and the token is never put in the reopen link.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createToken } from '../auth/helpers.ts';
import { launchBrowser, openPage, screenshot, startPageServer, type PageServer } from './browser.ts';
import { example, fillRequest } from './form-helpers.ts';

const SAMPLE = new URL('../../samples/sample.csv', import.meta.url);
const EXPECTED_CSV = readFileSync(new URL('../../samples/sample.expected.csv', import.meta.url));

let browser: Browser;
let server: PageServer;
let token: string;

beforeAll(async () => {
  browser = await launchBrowser();
  server = await startPageServer({ AUTH_MODE: 'required' });
  token = (await createToken({ AUTH_MODE: 'required', AUTH_TOKENS_FILE: join(server.dir, 'tokens.json') }, 'the page'))
    .token;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the page with access control', () => {
  it('shows the refusal without a token, then calculates with the token entered in the header', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await openPage(page, `${server.base}/`);
      await fillRequest(page, example('FSA-1').request);
      await page.getByRole('button', { name: 'Calculate', exact: true }).click();
      const refused = await fetch(`${server.base}/v1/calculate`, { method: 'POST' });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { code: string }).code).toBe('unauthenticated');
      // Said in words: where to put the token.
      await page.locator('#form-errors:not([hidden])').waitFor();
      expect(await page.locator('#form-errors').textContent()).toContain(
        'This service needs an access token: open “Access token” at the top of the page and paste yours.',
      );
      await screenshot(page, '32-access-refused');

      await page.getByText('Access token (only when this service requires one)').click();
      await page.getByLabel('Access token', { exact: true }).fill(token);
      await page.getByLabel('Access token', { exact: true }).press('Tab');
      await page.getByRole('button', { name: 'Calculate', exact: true }).click();
      const cell = page.locator('#result [data-field="terms[1].proportional.subsidized"]');
      await cell.waitFor();
      expect(await cell.textContent()).toBe('$1,323');
      await page.locator('#worksheet-steps').waitFor();
      const link = (await page.getByRole('link', { name: 'Link to this student' }).getAttribute('href')) ?? '';
      expect(link).not.toContain(token);
      expect(page.url()).not.toContain(token);

      await page.getByRole('tab', { name: 'A file of students' }).click();
      await page.locator('#bulk-file').setInputFiles(SAMPLE.pathname);
      await page.getByRole('button', { name: 'Calculate the file' }).click();
      await page.locator('#bulk-summary-heading').waitFor({ timeout: 60_000 });
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download the results (.csv)' }).click(),
      ]);
      expect(readFileSync((await file.path())!).equals(EXPECTED_CSV)).toBe(true);
      await screenshot(page, '33-access-bulk');
    } finally {
      await context.close();
    }
  });
});
