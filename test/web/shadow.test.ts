/**
 * The shadow check's summary on the bulk tab, in a real browser: a registrar uploads samples/shadow-check.csv
 * (a school system's own figures beside each student) and reads the students by status and a bar chart of the
 * mismatches by reason — the counts of the sample's hand-checked expected output. Every reason of the service's
 * table (src/domain/readings.ts CHECK_REASONS, architecture.md's order, the four of rules 2026-27.3 included) is a
 * bar in that order, with a readable name beside its token.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { CHECK_REASONS, type CheckReason } from '../../src/domain/readings.ts';
import { CHECK_REASON_TEXT } from '../../src/domain/check-reasons.ts';
import { reasonName } from '../../src/web/reason-names.ts';
import { launchBrowser, openPage, screenshot, startPageServer, type PageServer } from './browser.ts';

/** The reasons rules 2026-27.3 added to architecture.md's table, in its order (before `unexplained`). */
const NEW_REASONS = [
  'proration_parts_rounded',
  'proration_decimal',
  'single_term_half_annual',
  'below_half_time_term_dropped',
];

const SAMPLE = new URL('../../samples/shadow-check.csv', import.meta.url);
const EXPECTED = readFileSync(new URL('../../samples/shadow-check.expected.csv', import.meta.url));

let browser: Browser;
let server: PageServer;

beforeAll(async () => {
  browser = await launchBrowser();
  server = await startPageServer();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the reasons’ names', () => {
  it('every reason of the table has a readable name; one the page does not know reads as its words', () => {
    expect(CHECK_REASONS.slice(-NEW_REASONS.length - 1, -1)).toEqual(NEW_REASONS);
    const names = CHECK_REASONS.map(reasonName);
    for (const [i, name] of names.entries()) {
      expect(name, CHECK_REASONS[i]).not.toMatch(/_/);
      expect(name, CHECK_REASONS[i]).not.toBe(CHECK_REASONS[i]!.replaceAll('_', ' '));
    }
    expect(new Set(names).size).toBe(names.length);
    expect(reasonName('some_later_reason')).toBe('some later reason');
  });
});

describe('the shadow-check summary', () => {
  it('charts the mismatches of samples/shadow-check.csv by reason, with the students by status', async () => {
    // Students (the first row of each) by status and, for mismatches, by reason, from the expected output.
    const rows = parse(EXPECTED, { columns: true }) as Record<string, string>[];
    const statuses = new Map<string, number>();
    const reasons = new Map<string, number>();
    rows.forEach((row, i) => {
      if (row['row_status'] !== 'ok' || rows[i - 1]?.['student_id'] === row['student_id']) return;
      const status = row['check_status']!;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 'mismatch') reasons.set(row['check_reason']!, (reasons.get(row['check_reason']!) ?? 0) + 1);
    });
    expect(reasons.size).toBeGreaterThan(1);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await openPage(page, `${server.base}/#bulk`);
      await page.locator('#bulk-file').setInputFiles(SAMPLE.pathname);
      await page.getByRole('button', { name: 'Calculate the file' }).click();
      await page.locator('#bulk-summary-heading').waitFor({ timeout: 60_000 });
      const chart = page.locator('#check-summary');
      expect(await chart.isVisible()).toBe(true);
      const students = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'student' : 'students'}`;
      for (const [reason, n] of reasons) {
        expect(await chart.locator(`[data-field="check_summary.${reason}"] .bar-count`).textContent(), reason).toBe(
          students(n),
        );
      }
      // Every reason of the table, zeros included, in its order, each with its readable name, what it means in
      // words, and its API name as a small hint.
      const bars = await chart
        .locator('.bars li')
        .evaluateAll((els) => els.map((el) => (el as { dataset: Record<string, string> }).dataset['field'] ?? ''));
      expect(bars).toEqual(CHECK_REASONS.map((r) => `check_summary.${r}`));
      for (const reason of CHECK_REASONS) {
        const bar = chart.locator(`[data-field="check_summary.${reason}"]`);
        expect(await bar.locator('.reason-name').textContent()).toBe(reasonName(reason));
        expect(await bar.locator('.reason-meaning').textContent()).toBe(
          `The school’s figures equal ours computed with ${CHECK_REASON_TEXT[reason as CheckReason]}.`,
        );
        expect(await bar.locator('.api').textContent()).toBe(`API: ${reason}`);
      }
      const text = (await chart.textContent()) ?? '';
      const words: Record<string, [string, string]> = {
        match: ['matches', 'match'],
        mismatch: ['does not match', 'do not match'],
        not_checked: ['not checked', 'not checked'],
      };
      for (const [status, n] of statuses) {
        expect(text).toContain(`${students(n)} ${words[status]![n === 1 ? 0 : 1]}`);
      }
      await chart.scrollIntoViewIfNeeded();
      await screenshot(page, '15-shadow-check-chart');
    } finally {
      await context.close();
    }
  });
});
