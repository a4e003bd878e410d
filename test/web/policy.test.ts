/**
 * The School policy section (rules.md §10) in a real browser against the real service: closed by
 * default, one control per option of the service's policy table (src/domain/policy.ts) with the default marked,
 * remembered by the browser across a reload and reset to the defaults; the single-student request carries the
 * non-default options as `policy`, the answer under a policy says so beside the figures (Handbook ch. 5 example 6
 * under proration_fraction=decimal_rounded: 3,685 / 4,690), the reopen link carries the policy; the file tab
 * sends them as `policy.<option>` query parameters on POST /v1/jobs and names the policy the jobs ran with.
 */
import { describe, expect, it } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { POLICY_OPTIONS } from '../../src/domain/policy.ts';
import { openPage, screenshot, useBrowserSession } from './browser.ts';
import { example, fillRequest, pageFunction, resultCells, setPolicy } from './form-helpers.ts';

const server = useBrowserSession();
const SAMPLE = new URL('../../samples/sample.csv', import.meta.url).pathname;
const SCREENSHOT_README = new URL('../../test-output/screenshots/readme-', import.meta.url).pathname;

async function calculate(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Calculate', exact: true }).click();
  await page.locator('#result [data-field="reduced_annual_pct"], #form-errors:not([hidden])').first().waitFor();
}

/**
 * For a <select> in the page: [the width its widest option's text needs, its inner width], in CSS pixels (run in
 * the browser; the tests compile without the DOM library, hence the shapes spelled out).
 */
function fits(el: unknown): [number, number] {
  const page = globalThis as unknown as {
    getComputedStyle(e: unknown): { font: string; paddingLeft: string; paddingRight: string };
    document: {
      createElement(tag: 'canvas'): {
        getContext(kind: '2d'): { font: string; measureText(t: string): { width: number } };
      };
    };
  };
  const select = el as { options: ArrayLike<{ text: string }>; clientWidth: number };
  const style = page.getComputedStyle(el);
  const ctx = page.document.createElement('canvas').getContext('2d');
  ctx.font = style.font;
  const widest = Math.max(...Array.from(select.options, (o) => ctx.measureText(o.text).width));
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  return [Math.ceil(widest + padding + 20), select.clientWidth];
}

const isOpen = (page: Page) => page.locator('#policy').evaluate((el) => (el as { open: boolean }).open);

/** The bodies of the page's POST /v1/calculate requests, parsed. */
function calculateBodies(page: Page): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [];
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/calculate') {
      bodies.push(JSON.parse(request.postData() ?? '{}') as Record<string, unknown>);
    }
  });
  return bodies;
}

describe('the School policy section', () => {
  it('is closed by default and has one control per option of the policy table, the default marked', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    expect(await isOpen(page)).toBe(false);
    expect(await page.locator('#policy > summary').textContent()).toBe('School policy: service defaults');
    expect(await page.locator('[name="policy.proration_fraction"]').isVisible()).toBe(false);

    await page.locator('#policy > summary').click();
    expect(await isOpen(page)).toBe(true);
    expect(await page.locator('#policy select[name^="policy."]').count()).toBe(POLICY_OPTIONS.length);
    // And the page's own choice, never sent: the option the school disburses by.
    expect(await page.getByLabel('Disbursement option your school uses').inputValue()).toBe('equal');
    for (const option of POLICY_OPTIONS) {
      const select = page.locator(`select[name="policy.${option.name}"]`);
      expect(await select.isVisible(), option.name).toBe(true);
      const shown = await select
        .locator('option')
        .evaluateAll((els) => els.map((el) => [(el as { value: string }).value, el.textContent ?? ''] as const));
      expect(shown.map(([value]) => value)).toEqual([...option.values]);
      // Each value in words, the default marked; no value reads as its API token.
      expect(shown[0]![1]).toMatch(/ \(service default\)$/);
      for (const [value, text] of shown) {
        expect(text, value).not.toMatch(/_/);
        expect(text.replace(' (service default)', ''), value).toBe(
          await pageFunction<string>(page, 'policy-words.js', 'valueWords', option.name, value),
        );
      }
      expect(new Set(shown.map(([, text]) => text)).size).toBe(shown.length);
      expect(await select.inputValue()).toBe(option.values[0]);
      // Its one-line explanation is the table's summary, with the API name for integrators, tied to the control.
      const helpId = await select.getAttribute('aria-describedby');
      expect(await page.locator(`#${helpId}`).textContent()).toBe(`${option.summary} API: policy.${option.name}`);
      const box = page.locator(`.policy-option[data-option="${option.name}"]`);
      expect(await box.locator('.why').textContent()).toContain(
        await pageFunction<string>(page, 'words.js', 'inWords', option.choose),
      );
      // The sources a school can look up; not the service's own rules document.
      const cite = (await box.locator('.why cite').textContent()) ?? '';
      expect(cite.slice(0, 20)).toBe(option.citation.slice(0, 20));
      expect(cite).not.toMatch(/rules\.md|§/);
      // Labelled by its title in words (getByLabel finds the control through its <label for>).
      const title = await pageFunction<string>(page, 'policy-words.js', 'optionTitle', option.name);
      expect(title).not.toMatch(/_/);
      expect(await page.getByLabel(title, { exact: true }).count()).toBe(1);
    }
    await screenshot(page, '20-policy-open');
  });

  it('remembers a choice after a reload (closed, but saying what is in force), until reset to defaults', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    await page.locator('#policy > summary').click();
    await page.locator('[name="policy.proration_fraction"]').selectOption('decimal_rounded');
    await page.locator('[name="policy.remainder_placement"]').selectOption('last_term');
    expect(await page.locator('#policy-status').textContent()).toBe('Saved in this browser.');

    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await isOpen(page)).toBe(false);
    expect(await page.locator('#policy > summary').textContent()).toBe(
      'School policy: in force: Final-period fraction: 2 decimals, rounded; ' +
        'Leftover dollars of a split: All on the last term',
    );
    expect(await page.locator('[name="policy.proration_fraction"]').inputValue()).toBe('decimal_rounded');
    expect(await page.locator('[name="policy.remainder_placement"]').inputValue()).toBe('last_term');
    expect(await page.locator('[name="policy.single_term_basis"]').inputValue()).toBe('full_annual');

    await page.locator('#policy > summary').click();
    await page.getByRole('button', { name: 'Reset to defaults' }).click();
    for (const option of POLICY_OPTIONS) {
      expect(await page.locator(`[name="policy.${option.name}"]`).inputValue()).toBe(option.values[0]);
    }
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.locator('#policy > summary').textContent()).toBe('School policy: service defaults');
    expect(await page.evaluate(() => localStorage.getItem('sor-school-policy'))).toBeNull();
  });

  it('an unknown or stale remembered value falls back to the default without breaking the page', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    await page.evaluate(() =>
      localStorage.setItem('sor-school-policy', '{"proration_fraction":"nope","grad_plus_gap":"before_reduction"}'),
    );
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.locator('[name="policy.proration_fraction"]').inputValue()).toBe('exact');
    expect(await page.locator('[name="policy.grad_plus_gap"]').inputValue()).toBe('before_reduction');
    await page.evaluate(() => localStorage.setItem('sor-school-policy', '{not json'));
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.locator('#policy > summary').textContent()).toBe('School policy: service defaults');
  });
});

describe('a student under a school policy', () => {
  it('sends the policy, shows Handbook ch. 5 example 6 under decimal_rounded ($3,685 / $4,690) and says so', async () => {
    const page = await server.newPage();
    const bodies = calculateBodies(page);
    await openPage(page, `${server.base}/`);
    const ex6 = example('HB-CH5-EX6');
    expect(ex6.request['policy']).toEqual({ proration_fraction: 'decimal_rounded' });
    await fillRequest(page, ex6.request);
    await calculate(page);

    expect(bodies.at(-1)?.['policy']).toEqual({ proration_fraction: 'decimal_rounded' });
    const cells = await resultCells(page);
    // FSA Handbook 2025-26 vol. 8 ch. 5 example 6: 24/36 as 0.67; 5,500 × 0.67 = 3,685 Sub;
    // 12,500 × 0.67 = 8,375 combined, 8,375 − 3,685 = 4,690 Unsub.
    expect(cells.get('annual_basic_eligibility_sub')).toBe('$3,685');
    expect(cells.get('annual_basic_eligibility_unsub')).toBe('$4,690');
    expect(ex6.expected['annual_basic_eligibility_sub']).toBe(3685);
    expect(ex6.expected['annual_basic_eligibility_unsub']).toBe(4690);

    // Named once, beside the figures, in words (the answer's own warning naming it is not repeated below).
    const notice = page.locator('#result #policy-notice');
    expect(await notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toContain('School policy: Final-period fraction: 2 decimals, rounded.');
    const answer = (await (
      await fetch(`${server.base}/v1/calculate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ex6.request),
      })
    ).json()) as { warnings: string[] };
    expect(answer.warnings).toContain('School policy in force: proration_fraction=decimal_rounded.');
    const warnings = [...cells].filter(([path]) => path.startsWith('warnings[')).map(([, text]) => text);
    expect(warnings.filter((w) => /School policy/.test(w))).toEqual([]);
    await page.locator('#worksheet-steps').waitFor();
    await page.locator('#policy').evaluate((el) => ((el as { open: boolean }).open = true));
    await screenshot(page, '21-policy-result');
    // For the README: the section open (the header down to its end), and the result under the policy.
    await page.evaluate('window.scrollTo(0, 0)');
    const box = (await page.locator('#policy').boundingBox())!;
    await page.screenshot({
      path: `${SCREENSHOT_README}page-policy.png`,
      clip: { x: 0, y: 0, width: 1280, height: Math.ceil(box.y + box.height + 16) },
    });
    await page.locator('#result').screenshot({ path: `${SCREENSHOT_README}page-policy-result.png` });
  });

  it('fits a phone screen with the section open and a result under a policy', async () => {
    const page = await server.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await openPage(page, `${server.base}/`);
    await fillRequest(page, example('HB-CH5-EX6').request);
    await calculate(page);
    await page.locator('#worksheet-steps').waitFor();
    expect(await isOpen(page)).toBe(true);
    const overflow = await page.evaluate<number>(
      `document.documentElement.scrollWidth - ${page.viewportSize()!.width}`,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    // Each control has room for its longest value, "(service default)" included: the text's width in the
    // control's font, its padding and about 20 pixels of arrow.
    for (const option of POLICY_OPTIONS) {
      const [needed, width] = await page.locator(`[name="policy.${option.name}"]`).evaluate(fits);
      expect(needed, option.name).toBeLessThanOrEqual(width);
    }
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: `${SCREENSHOT_README}page-policy-phone.png` });
    await page.locator('#policy-notice').scrollIntoViewIfNeeded();
    await screenshot(page, '24-policy-phone');
  });

  it('sends no policy at the defaults, and a changed option recalculates the result on the screen', async () => {
    const page = await server.newPage();
    const bodies = calculateBodies(page);
    await openPage(page, `${server.base}/`);
    await fillRequest(page, example('HB-CH5-EX6').request);
    await setPolicy(page, {});
    await calculate(page);
    expect(bodies.at(-1)).not.toHaveProperty('policy');
    expect(await page.locator('#policy-notice').count()).toBe(0);
    const exact = (await resultCells(page)).get('annual_basic_eligibility_sub');

    // From the keyboard: focus the control, two steps down to decimal_truncated.
    await page.locator('[name="policy.proration_fraction"]').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('#policy-notice').count()).toBe(1);
    expect(bodies.at(-1)?.['policy']).toEqual({ proration_fraction: 'decimal_truncated' });
    // 24/36 truncated to 0.66: 5,500 × 0.66 = 3,630 (HB-CH5-EX6-TRUNCATED).
    const truncated = example('HB-CH5-EX6-TRUNCATED').expected['annual_basic_eligibility_sub'] as number;
    await expect
      .poll(async () => (await resultCells(page)).get('annual_basic_eligibility_sub'))
      .toBe(`$${truncated.toLocaleString('en-US')}`);
    expect(truncated).not.toBe(Number(exact?.replace(/[$,]/g, '')));
    // The person was choosing an option: the focus stays there.
    expect(await page.evaluate<string>("document.activeElement?.getAttribute('name')")).toBe(
      'policy.proration_fraction',
    );
  });

  it('the reopen link carries the policy and reopens the same figures without overwriting saved choices', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    await fillRequest(page, example('HB-CH5-EX6').request);
    await calculate(page);
    const before = await resultCells(page);
    const link = (await page.getByRole('link', { name: 'Link to this student' }).getAttribute('href')) ?? '';
    expect(new URL(link).hash).toContain('policy.proration_fraction=decimal_rounded');

    const other = await server.newPage();
    await openPage(other, `${server.base}/`);
    await setPolicy(other, { grad_plus_gap: 'before_reduction' }); // this browser's own choice
    await other.goto(link);
    await other.locator('#result [data-field="reduced_annual_pct"]').waitFor();
    expect(await resultCells(other)).toEqual(before);
    expect(await other.locator('[name="policy.proration_fraction"]').inputValue()).toBe('decimal_rounded');
    expect(await other.locator('[name="policy.grad_plus_gap"]').inputValue()).toBe('after_reduction');
    expect(await other.locator('#policy-status').textContent()).toContain('This link’s policy is shown');
    expect(await other.evaluate(() => localStorage.getItem('sor-school-policy'))).toBe(
      '{"grad_plus_gap":"before_reduction"}',
    );
  });
});

describe('a file under a school policy', () => {
  it('sends policy.<option> query parameters with its one job and names the policy the job ran with', async () => {
    const page = await server.newPage();
    const submissions: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/jobs') {
        submissions.push(new URL(request.url()).search);
      }
    });
    await openPage(page, `${server.base}/#bulk`);
    await setPolicy(page, { proration_fraction: 'decimal_rounded', single_term_basis: 'half_annual' });
    await page.locator('#bulk-file').setInputFiles(SAMPLE);
    await page.getByRole('button', { name: 'Calculate the file' }).click();
    await page.locator('#bulk-summary-heading').waitFor({ timeout: 60_000 });
    const file = '?charset=utf-8&delimiter=comma&extra_columns=keep';
    expect(submissions).toEqual([
      `${file}&policy.proration_fraction=decimal_rounded&policy.single_term_basis=half_annual`,
    ]);
    expect(await page.locator('#bulk-summary [data-field="policy"]').textContent()).toContain(
      'School policy: Final-period fraction: 2 decimals, rounded; One-term loan period: Half the annual amount.',
    );

    await setPolicy(page, {});
    submissions.length = 0;
    await page.getByRole('button', { name: 'Calculate the file' }).click();
    await expect.poll(() => submissions.length).toBe(1);
    await page.locator('#bulk-summary-heading').waitFor({ timeout: 60_000 });
    expect(submissions).toEqual([file]);
    expect(await page.locator('#bulk-summary [data-field="policy"]').textContent()).toBe(
      'School policy: service defaults.',
    );
  });
});
