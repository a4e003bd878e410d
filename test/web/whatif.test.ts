/**
 * "What if…" on a result, in a real browser against the real service: the officer types FSA example 1, asks what
 * happens when the student drops Spring to 6 credits, and reads the scenario beside the base with each difference
 * written with its sign (and an arrow: never colour alone). The expected figures are published ones: FSA example 1
 * is the base, and Spring at 6 credits is the same student as the APUS example (6 + 6 of 24 credits), so every
 * difference is the published figure minus the published figure. Up to 5 scenarios; a dropped term reads
 * "dropped"; a scenario the service refuses says why beside it; axe-core finds nothing serious at 1280 and 390 px.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, screenshot, useBrowserSession, type ContextOptions } from './browser.ts';
import { at, calculate, example, fillRequest, postedBodies } from './form-helpers.ts';

const server = useBrowserSession();

const dollars = (n: number) => `${n < 0 ? '−' : ''}$${Math.abs(n).toLocaleString('en-US')}`;
const signed = (n: number) =>
  n === 0 ? 'no change' : `${n > 0 ? '▲ +' : '▼ −'}$${Math.abs(n).toLocaleString('en-US')}`;

async function fsa1WithWhatIf(options: ContextOptions = {}): Promise<Page> {
  const page = await server.newPage(options);
  await openPage(page, `${server.base}/`);
  await fillRequest(page, example('FSA-1').request, { subsidized_amount: '$3,500' });
  await calculate(page);
  await page.getByRole('button', { name: 'What if…' }).click();
  return page;
}

const cell = (page: Page, path: string) => page.locator(`#whatif [data-field="${path}"]`);

describe('what if', () => {
  it('drops Spring to 6 credits: the published figures side by side, each difference with its sign', async () => {
    const page = await fsa1WithWhatIf();
    const sent = postedBodies(page, '/v1/calculate/compare');
    const scenario = page.locator('#whatif fieldset.scenario').first();
    expect(await scenario.locator('.change-term').inputValue()).toBe('1'); // Spring, the last term
    await scenario.locator('.change-credits').pressSequentially('6');
    expect(await scenario.locator('.scenario-name').inputValue()).toBe('Spring at 6 credits');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.locator('#comparison-heading').waitFor();

    // The request: the calculation's own request as the base, the change by the base's term index.
    const body = sent.at(-1) as { base: Record<string, unknown>; scenarios: unknown[] };
    expect(body.base['subsidized_amount']).toBe('3500');
    expect(body.scenarios).toEqual([{ name: 'Spring at 6 credits', changes: [{ term: 1, credits_enrolled: '6' }] }]);

    // FSA example 1 (63%, 2,205 / 1,260) against the same student at 6 + 6 credits (SCH-APUS-1: 50%, 1,750 / 1,000).
    const base = example('FSA-1').expected;
    const six = example('SCH-APUS-1');
    expect(six.request.terms.map((t) => t['credits_enrolled'])).toEqual([6, 6]);
    expect(six.request['subsidized_amount']).toBe(example('FSA-1').request['subsidized_amount']);
    const pct = [at(base, 'reduced_annual_pct'), at(six.expected, 'reduced_annual_pct')] as [number, number];
    expect(await cell(page, 'base.reduced_annual_pct').textContent()).toBe(`${pct[0]}%`);
    expect(await cell(page, 'scenarios[0].reduced_annual_pct').textContent()).toBe(
      `${pct[1]}% ▼ −${pct[0] - pct[1]} points`,
    );
    const figures: [string, string][] = [
      ['annual.subsidized', 'annual_basic_eligibility_sub'],
      ['annual.unsubsidized', 'annual_basic_eligibility_unsub'],
      ['totals.equal.subsidized', 'total_equal.subsidized'],
      ['terms[0].equal.subsidized', 'terms[0].equal.subsidized'],
      ['terms[1].equal.subsidized', 'terms[1].equal.subsidized'],
      ['terms[1].equal.unsubsidized', 'terms[1].equal.unsubsidized'],
    ];
    for (const [row, published] of figures) {
      const before = at(base, published) as number;
      const after = at(six.expected, published) as number;
      expect(await cell(page, `base.${row}`).textContent(), row).toBe(dollars(before));
      const shown = cell(page, `scenarios[0].${row}`);
      expect(await shown.textContent(), row).toBe(`${dollars(after)} ${signed(after - before)}`);
      // Marked in words and sign too, not by colour alone.
      expect(await shown.locator('.diff').getAttribute('class'), row).toContain(after < before ? 'down' : 'up');
    }
    await screenshot(page, '50-whatif-spring-6');
    await page.locator('#whatif').screenshot({ path: `${SHOTS}readme-page-whatif.png` });
  });

  it('compares up to 5 scenarios at once; a dropped term reads “dropped”', async () => {
    const page = await fsa1WithWhatIf();
    const add = page.getByRole('button', { name: 'Add a scenario' });
    for (let i = 0; i < 4; i++) await add.click();
    expect(await page.locator('#whatif fieldset.scenario').count()).toBe(5);
    expect(await add.isDisabled()).toBe(true);
    const boxes = page.locator('#whatif fieldset.scenario');
    const credits = ['6', '12', '3'];
    for (const [i, value] of credits.entries()) await boxes.nth(i).locator('.change-credits').pressSequentially(value);
    await boxes.nth(3).locator('.change-kind').selectOption('actual_final_credits');
    await boxes.nth(3).locator('.change-credits').pressSequentially('7.5');
    await boxes.nth(4).locator('.change-kind').selectOption('drop');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.locator('#comparison-heading').waitFor();
    const heads = await page.locator('#whatif .comparison-table thead th').allTextContents();
    expect(heads).toEqual([
      'Now',
      'Spring at 6 credits',
      'Spring at 12 credits',
      'Spring at 3 credits',
      'Spring ending at 7.5 credits',
      'Spring dropped',
    ]);
    expect(await cell(page, 'scenarios[4].terms[1].equal.subsidized').textContent()).toBe('dropped');
    // Spring at 12 credits: 18 of 24 = 75% (rules.md §3), 3,500 × 75% = 2,625.
    expect(await cell(page, 'scenarios[1].annual.subsidized').textContent()).toBe(`$2,625 ${signed(2625 - 2205)}`);
    await screenshot(page, '51-whatif-five');
  });

  it('a scenario the service cannot calculate says so beside it, in words', async () => {
    const page = await fsa1WithWhatIf();
    await page.locator('#whatif .change-credits').first().pressSequentially('lots');
    await page.getByRole('button', { name: 'Compare' }).click();
    const error = page.locator('#whatif fieldset.scenario > p.error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Change 1: enter the credits as a number, such as 6.');
    expect(await page.locator('#whatif .status').textContent()).toBe('One scenario needs a correction.');
  });
});

describe('what if on a phone', () => {
  it('two scenarios scrolled sideways keep the row and group names in view', async () => {
    const page = await fsa1WithWhatIf({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.locator('#whatif .change-credits').first().pressSequentially('6');
    await page.getByRole('button', { name: 'Add a scenario' }).click();
    await page.locator('#whatif fieldset.scenario').nth(1).locator('.change-credits').first().pressSequentially('3');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.locator('#comparison-heading').waitFor();
    const region = page.locator('#whatif .scroll');
    type Scrolled = { scrollLeft: number; scrollWidth: number };
    await region.evaluate((el) => {
      (el as unknown as Scrolled).scrollLeft = (el as unknown as Scrolled).scrollWidth;
    });
    expect(await region.evaluate((el) => (el as unknown as Scrolled).scrollLeft)).toBeGreaterThan(0);
    // The page itself never scrolls sideways: the table does, inside its region.
    expect(
      await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
    ).toBe(0);
    const box = (await region.boundingBox())!;
    const rows = await page.locator("#whatif .comparison-table tbody th[scope='row']").all();
    const groups = await page.locator('#whatif .comparison-table tr.group .pinned').all();
    expect(rows.length).toBeGreaterThan(5);
    expect(groups.length).toBeGreaterThan(2);
    for (const row of rows) expect(Math.abs((await row.boundingBox())!.x - box.x)).toBeLessThan(1);
    for (const group of groups) {
      const g = (await group.boundingBox())!;
      expect(g.x).toBeGreaterThanOrEqual(box.x);
      expect(g.x + g.width).toBeLessThanOrEqual(box.x + box.width);
    }
    // The screen as the officer sees it, the table scrolled to its last column (an element screenshot would scroll).
    await page.locator('#comparison-heading').evaluate((el) => (el as { scrollIntoView(): void }).scrollIntoView());
    await page.screenshot({ path: `${SHOTS}53-whatif-phone-scrolled.png` });
  });
});

describe.each([
  ['1280', { viewport: { width: 1280, height: 900 } }],
  ['390', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
] as const)('what if at %s px', (width, options) => {
  it('has no serious or critical accessibility violation (axe-core)', async () => {
    const page = await fsa1WithWhatIf({ ...options, bypassCSP: true });
    await page.locator('#whatif .change-credits').first().pressSequentially('6');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.locator('#comparison-heading').waitFor();
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
    const { violations } = await page.evaluate<{ violations: { id: string; impact: string | null }[] }>(
      'axe.run().then((r) => ({ violations: r.violations }))',
    );
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious, JSON.stringify(violations.map((v) => v.id))).toEqual([]);
    await page.locator('#whatif').screenshot({ path: `${SHOTS}52-whatif-${width}.png` });
  });
});

const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;
