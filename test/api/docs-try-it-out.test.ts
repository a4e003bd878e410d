/**
 * /docs works wherever the service runs: Debian's Chromium (playwright-core, launched by path as test/web does)
 * opens the API reference of a service on a random port — by its loopback address and by a host name that is not
 * it (sor-docs.test, mapped to 127.0.0.1 inside the browser) — and Swagger UI's "Try it out" executes
 * POST /v1/calculate with FSA example 1 (200, reduced_annual_pct 63) and POST /v1/calculate/compare with its
 * first example (200, 63% → 50%), against the origin the page came from, with no CSP violation and no request to
 * any other origin.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { CHROMIUM, SCREENSHOTS, launchBrowser, startPageServer, type PageServer } from '../web/browser.ts';

const HOST = 'sor-docs.test';

let server: PageServer;
let browser: Browser;
let port: string;

beforeAll(async () => {
  await launchBrowser().then((b) => b.close()); // the project's own check that Chromium is there, loudly
  server = await startPageServer();
  port = new URL(server.base).port;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', `--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Watched {
  page: Page;
  /** Console errors, page errors and CSP violations. */
  problems: string[];
  /** Every URL the page asked for outside its own origin. */
  elsewhere: string[];
}

async function openDocs(origin: string): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const elsewhere: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin !== origin && url.protocol !== 'data:') elsewhere.push(r.url());
  });
  await page.goto(`${origin}/docs`);
  return { page, problems, elsewhere };
}

/** Opens an operation, presses "Try it out", puts `body` in the request body (when given) and executes it. */
async function tryItOut(page: Page, operationId: string, body?: unknown): Promise<Locator> {
  const operation = page.locator(`#operations-calculation-${operationId}`);
  await operation.locator('.opblock-summary').first().click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  if (body !== undefined) await operation.locator('textarea.body-param__text').fill(JSON.stringify(body, null, 2));
  await operation.getByRole('button', { name: 'Execute' }).click();
  await operation.locator('.live-responses-table .response-col_status').first().waitFor({ timeout: 20_000 });
  return operation;
}

const statusOf = (operation: Locator) =>
  operation.locator('.live-responses-table .response .response-col_status').first().innerText();
const bodyOf = (operation: Locator) =>
  operation.locator('.live-responses-table .response-col_description pre').first().innerText();

const FSA_1 = WORKED_EXAMPLES.find((e) => e.id === 'FSA-1')!.request;

describe.each([
  ['its loopback address', () => server.base],
  [`another host name (${HOST})`, () => `http://${HOST}:${port}`],
])('/docs reached by %s', (_how, originOf) => {
  it('Try it out: POST /v1/calculate with FSA example 1 (200, 63) and the comparison example (200, 63% → 50%)', async () => {
    const origin = originOf();
    const { page, problems, elsewhere } = await openDocs(origin);

    const calculate = await tryItOut(page, 'calculate', FSA_1);
    expect(await calculate.locator('.request-url').innerText()).toContain(`${origin}/v1/calculate`);
    expect((await statusOf(calculate)).trim()).toBe('200');
    expect(JSON.parse(await bodyOf(calculate))).toMatchObject({
      reduced_annual_pct: 63,
      annual_basic_eligibility_sub: 2205,
    });
    await calculate.locator('.request-url').scrollIntoViewIfNeeded(); // the Request URL, the 200 and its body
    await page.screenshot({
      path: join(SCREENSHOTS, `docs-try-it-out-${origin.includes(HOST) ? 'host-name' : 'loopback'}.png`),
    });

    const compare = await tryItOut(page, 'compareScenarios'); // the example Swagger UI fills in: FSA-1, Spring 6
    expect(await compare.locator('.request-url').innerText()).toContain(`${origin}/v1/calculate/compare`);
    expect((await statusOf(compare)).trim()).toBe('200');
    const answer = JSON.parse(await bodyOf(compare)) as {
      scenarios: { differences: { reduced_annual_pct: { base: number; scenario: number } } }[];
    };
    expect(answer.scenarios[0]!.differences.reduced_annual_pct).toMatchObject({ base: 63, scenario: 50 });

    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    await page.context().close();
  }, 120_000);
});

/** GET /docs with `host` as the Host header: its Content-Security-Policy. */
function docsPolicy(host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.base}/docs`, { headers: { host } }, (res) => {
      res.resume();
      resolve(String(res.headers['content-security-policy'] ?? ''));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the /docs page', () => {
  it('is sent with a CSP that allows its own origin, whatever host it is reached by, and no host of its own', async () => {
    for (const host of [`127.0.0.1:${port}`, `${HOST}:${port}`, 'loans.example.edu']) {
      const csp = await docsPolicy(host);
      // 'self' is the origin the page was reached by; no host is written into the policy.
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toMatch(/localhost|127\.0\.0\.1|example|https?:/);
    }
  });
});
