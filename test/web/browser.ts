/**
 * The browser and the server for the page's tests: Debian's chromium driven by playwright-core (browsers cannot
 * be downloaded here, so it is launched by path), and the real service — the app with the runtime's routers
 * (bulk, /v1/jobs without Redis) — on an ephemeral port. Without /usr/bin/chromium the suite fails, loudly:
 * `.ci/run` installs the `chromium` package when it is missing.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createRequestListener } from '../../src/api/front-door.ts';
import { loadConfig } from '../../src/config.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The browser tests need Chromium at ${CHROMIUM} and it is missing: install the Debian package ` +
        '(apt-get install -y chromium; .ci/run does it) or set CHROMIUM_PATH. These tests are never skipped.',
    );
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface PageServer {
  base: string;
  /** The server's temporary folder (its spool, job results and token file). */
  dir: string;
  close(): Promise<void>;
}

/**
 * The service as `npm start` composes it (no Redis: jobs in memory, results on disk in a temporary folder), with
 * `env` added to its configuration (e.g. AUTH_MODE=required; the token file is in the temporary folder).
 */
export async function startPageServer(env: Record<string, string> = {}): Promise<PageServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sor-web-test-'));
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    BULK_THREADS: '1',
    SPOOL_DIR: join(dir, 'spool'),
    JOBS_DIR: join(dir, 'jobs'),
    AUTH_TOKENS_FILE: join(dir, 'tokens.json'),
    ...env,
  });
  const logger = pino({ level: 'silent' });
  const runtime: Runtime = await createRuntime(config, logger);
  const listener = createRequestListener(
    { config, logger, runners: runtime.runners, readiness: runtime.readiness },
    { routers: runtime.routers, openApiPaths: runtime.openApiPaths, guards: runtime.guards },
  );
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(listener).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dir,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type ContextOptions = Parameters<Browser['newContext']>[0];

export interface BrowserSession {
  /** The service's base URL (valid once the suite's beforeAll has run). */
  readonly base: string;
  /** A new page in its own browser context (laptop-sized unless `options` say otherwise), closed after the suite. */
  newPage(options?: ContextOptions): Promise<Page>;
}

/**
 * One browser and one service for a test file: started in beforeAll, closed (every context the file opened, the
 * browser, the server) in afterAll.
 */
export function useBrowserSession(): BrowserSession {
  let browser: Browser | undefined;
  let server: PageServer | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startPageServer();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
  });
  return {
    get base(): string {
      if (server === undefined) throw new Error('the page server is not started yet (use it inside a test)');
      return server.base;
    },
    async newPage(options: ContextOptions = {}): Promise<Page> {
      if (browser === undefined) throw new Error('the browser is not launched yet (use it inside a test)');
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
      contexts.push(context);
      return context.newPage();
    },
  };
}

/** Opens the page and waits until its script has built the form (body[data-ready]). */
export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('body[data-ready="true"]').waitFor();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Console errors and failed requests of a page (a CSP violation or a script error shows here). */
export function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  return problems;
}
