/**
 * The single-student page in a real browser (Debian's chromium through playwright-core), against the real
 * service: a person types FSA example 1 and reads 882 / 1,323; every worked example's figures appear in the
 * cells named by their JSON path; an invalid value shows the API's message beside its field; the link reopens
 * the same student; the form works from the keyboard alone; axe-core finds no serious or critical violation;
 * the page fits a phone and prints its results. Screenshots of each state go to test-output/screenshots/.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectProblems, openPage, screenshot, useBrowserSession, type ContextOptions } from './browser.ts';
import {
  EXAMPLES,
  at,
  example,
  fillRequest,
  resultCells,
  setPolicy,
  shownValue,
  type Example,
} from './form-helpers.ts';

const server = useBrowserSession();

function newPage(options: ContextOptions = {}): Promise<Page> {
  return server.newPage(options);
}

async function calculate(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Calculate', exact: true }).click();
  await page.locator('#result [data-field="reduced_annual_pct"], #form-errors:not([hidden])').first().waitFor();
}

const dollars = (n: unknown) => (n as number).toLocaleString('en-US');

/** The result paths a person must be able to read on the page for `expected`. */
function shownPaths(expected: Record<string, unknown>): string[] {
  const loans = ['subsidized', 'unsubsidized', 'grad_plus'];
  const paths = [
    'annual_ft_credits',
    'reduced_annual_pct',
    'annual_basic_eligibility_sub',
    'annual_basic_eligibility_unsub',
    'annual_basic_eligibility_grad_plus',
  ];
  const option = (base: string) => (at(expected, base) === null ? [base] : loans.map((l) => `${base}.${l}`));
  paths.push(...option('total_equal'), ...option('total_proportional'));
  (expected['terms'] as unknown[]).forEach((_, i) => {
    const t = `terms[${i}]`;
    paths.push(`${t}.label`, `${t}.enrollment_intensity_pct`, `${t}.disbursement_pct`);
    paths.push(...option(`${t}.equal`), ...option(`${t}.proportional`));
    paths.push(`${t}.adjustment_sub`, `${t}.adjustment_unsub`, `${t}.adjustment_grad_plus`);
  });
  return paths;
}

describe('the single-student page', () => {
  it('shows FSA example 1 typed into the form: 63%, proportional 882 + 1,323 Subsidized', async () => {
    const page = await newPage();
    const problems = collectProblems(page);
    await openPage(page, `${server.base}/`);
    await screenshot(page, '01-form-empty');
    const fsa1 = example('FSA-1');
    await fillRequest(page, fsa1.request);
    await calculate(page);

    const cell = (path: string) => page.locator(`#result [data-field="${path}"]`);
    // rules.md §3: 15 of 24 credits = 62.5% → 63%; 3,500 × 63% = 2,205 split 6:9 → 882 and 1,323.
    await expect.poll(() => cell('reduced_annual_pct').textContent()).toBe('63%');
    expect(await cell('terms[0].proportional.subsidized').textContent()).toBe('882');
    expect(await cell('terms[1].proportional.subsidized').textContent()).toBe('1,323');
    expect(await cell('terms[1].proportional.subsidized').textContent()).toBe(
      dollars(at(fsa1.expected, 'terms[1].proportional.subsidized')),
    );
    await expect.poll(() => page.evaluate<string>('document.activeElement?.id')).toBe('result-heading');
    await screenshot(page, '02-fsa1-result');
    await page.locator('#result').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOT_README}page-fsa1.png` });
    expect(problems.filter((p) => /Content Security Policy|page error/.test(p))).toEqual([]);
  });

  it('shows every worked example: each result cell holds the expected value at its data-field path', async () => {
    const page = await newPage();
    await openPage(page, `${server.base}/`);
    for (const ex of EXAMPLES) {
      await fillRequest(page, ex.request);
      await calculate(page);
      const cells = await resultCells(page);
      for (const path of shownPaths(ex.expected)) {
        const expected = at(ex.expected, path);
        expect(cells.has(path), `${ex.id}: a cell for ${path}`).toBe(true);
        const text = cells.get(path) ?? '';
        if (expected === null) expect(text, `${ex.id} ${path}`).toBe('not offered');
        else expect(shownValue(text), `${ex.id} ${path}`).toEqual(expected);
      }
      const warnings = (ex.expected['warnings'] as string[] | undefined) ?? [];
      for (const [i, warning] of warnings.entries()) expect(cells.get(`warnings[${i}]`), ex.id).toBe(warning);
      // The next example starts from an empty form.
      await openPage(page, `${server.base}/`);
    }
  }, 240_000);

  it('shows the API message beside the field of an invalid value, then the result once it is corrected', async () => {
    const page = await newPage();
    await openPage(page, `${server.base}/`);
    const request = structuredClone(example('FSA-1').request);
    request.terms[1]!['credits_enrolled'] = 'nine';
    await fillRequest(page, request);
    await calculate(page);

    const api = await fetch(`${server.base}/v1/calculate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(api.status).toBe(422);
    const { field_errors } = (await api.json()) as { field_errors: { field: string; message: string }[] };
    expect(field_errors.map((f) => f.field)).toEqual(['terms[1].credits_enrolled']);

    const input = page.locator('[name="terms[1].credits_enrolled"]');
    const field = page.locator('.field[data-path="terms[1].credits_enrolled"]');
    const message = field.locator('p.error');
    await expect.poll(() => message.isVisible()).toBe(true);
    expect(await message.textContent()).toBe(field_errors[0]!.message);
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await input.getAttribute('aria-describedby')) ?? '';
    expect(describedBy.split(' ')).toContain(await message.getAttribute('id'));
    expect(await page.locator('#form-errors').textContent()).toContain('terms[1].credits_enrolled');
    expect(await page.evaluate<string>("document.activeElement?.getAttribute('name')")).toBe(
      'terms[1].credits_enrolled',
    );
    expect(await page.locator('#result [data-field]').count()).toBe(0);
    expect(await page.locator('#result-actions').isVisible()).toBe(false);
    // Only that field is marked.
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(1);
    await screenshot(page, '03-field-error');

    await input.fill('9');
    await calculate(page);
    await expect.poll(() => message.isVisible()).toBe(false);
    expect(await input.getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('#form-errors').isVisible()).toBe(false);
    expect(await page.locator('#result [data-field="terms[1].proportional.subsidized"]').textContent()).toBe('1,323');
  });

  it('reopens the same student from the link, with the student in the fragment only', async () => {
    const page = await newPage();
    await openPage(page, `${server.base}/`);
    const fsa4 = example('FSA-4');
    await fillRequest(page, fsa4.request);
    await calculate(page);
    const before = await resultCells(page);
    const link = await page.getByRole('link', { name: 'Link to this student' }).getAttribute('href');
    expect(link).toBeTruthy();
    const url = new URL(link!);
    expect(url.search).toBe('');
    expect(url.pathname).toBe('/');
    expect(url.hash).toContain('terms%5B0%5D.prior_disbursement_sub=502');

    const other = await newPage();
    await openPage(other, link!);
    await other.locator('#result [data-field="reduced_annual_pct"]').waitFor();
    expect(await other.locator('fieldset.term').count()).toBe(3);
    expect(await other.locator('[name="terms[0].actual_final_credits"]').inputValue()).toBe('6');
    expect(await other.locator('[name="subsidized_amount"]').inputValue()).toBe('2000');
    expect(await other.locator('[name="academic_year_terms"]').inputValue()).toBe('3');
    expect(await resultCells(other)).toEqual(before);
    // FSA example 4: the later terms each lose 90 after Fall's credits fell to 6.
    expect(before.get('terms[1].adjustment_sub')).toBe('−90');
    expect(before.get('terms[2].adjustment_sub')).toBe('−90');
    await screenshot(other, '04-reopened-fsa4');
  });

  it('works from the keyboard alone: tabs, fields, add and remove a term, submit with Enter', async () => {
    const page = await newPage();
    await openPage(page, `${server.base}/`);
    const active = () => page.evaluate<string>("document.activeElement?.name || document.activeElement?.id || ''");
    const tabTo = async (target: string) => {
      for (let i = 0; i < 120; i++) {
        if ((await active()) === target) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${target}`);
    };

    await tabTo('tab-single');
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('#panel-bulk').isVisible()).toBe(true);
    expect(await active()).toBe('tab-bulk');
    await page.keyboard.press('ArrowLeft');
    expect(await page.locator('#panel-single').isVisible()).toBe(true);

    await tabTo('grade_level');
    await page.keyboard.press('ArrowDown'); // (none) → First year
    await tabTo('academic_year_terms');
    await page.keyboard.press('ArrowDown'); // (whole year) → 2
    await tabTo('subsidized_amount');
    await page.keyboard.type('3500');
    await tabTo('total_limit');
    await page.keyboard.type('5500');
    const terms: [string, string, string][] = [
      ['Fall', '12', '6'],
      ['Spring', '12', '9'],
    ];
    for (const [i, [label, ft, enrolled]] of terms.entries()) {
      await tabTo(`terms[${i}].label`);
      await page.keyboard.type(label);
      await page.keyboard.press('Tab');
      await page.keyboard.type(ft);
      await page.keyboard.press('Tab');
      await page.keyboard.type(enrolled);
    }
    await tabTo('add-term');
    await page.keyboard.press('Enter');
    expect(await page.locator('fieldset.term').count()).toBe(3);
    expect(await active()).toBe('terms[2].label');
    await tabTo('remove-term-3');
    await page.keyboard.press('Space');
    expect(await page.locator('fieldset.term').count()).toBe(2);

    await tabTo('terms[1].credits_enrolled');
    await page.keyboard.press('Enter');
    await page.locator('#result [data-field="reduced_annual_pct"]').waitFor();
    expect(await active()).toBe('result-heading');
    expect(await page.locator('#result [data-field="terms[0].proportional.subsidized"]').textContent()).toBe('882');
    await tabTo('reopen-link');
    await screenshot(page, '05-keyboard');
  });

  it('has no serious or critical accessibility violation (axe-core): empty, with errors, with a result', async () => {
    const page = await newPage({ bypassCSP: true }); // axe is injected as a script the page's CSP would refuse
    const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
    const check = async (state: string) => {
      await page.addScriptTag({ path: axeSource });
      const { violations, passes } = await page.evaluate<{ violations: AxeViolation[]; passes: number }>(
        'axe.run().then((r) => ({ violations: r.violations, passes: r.passes.length }))',
      );
      expect(passes, `${state}: axe ran its rules`).toBeGreaterThan(10);
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      const summary = violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
      expect(serious, `${state}: ${JSON.stringify(summary)}`).toEqual([]);
    };
    await openPage(page, `${server.base}/`);
    await check('empty form');
    await page.locator('[name="terms[0].credits_enrolled"]').fill('-1');
    await calculate(page);
    await check('field errors');
    await fillRequest(page, example('FSA-4').request);
    await calculate(page);
    await page.locator('#result [data-field="reduced_annual_pct"]').waitFor();
    await check('result');
    // The School policy section open, a non-default option in force (the result is calculated again under it).
    await setPolicy(page, { proration_fraction: 'decimal_truncated' });
    await page.locator('#policy .why').first().locator('summary').click();
    await page.locator('#result #policy-notice').waitFor();
    await check('school policy');
    await page.getByRole('tab', { name: 'A file of students' }).click();
    await check('bulk tab');
  });

  it('fits a phone screen (tables scroll inside their own region) and prints the result without the form', async () => {
    const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await openPage(page, `${server.base}/${new URL(await reopenLinkOf(example('FSA-1'))).hash}`);
    await page.locator('#result [data-field="reduced_annual_pct"]').waitFor();
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, '06-phone-result');

    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#student-form').isVisible()).toBe(false);
    expect(await page.locator('#result [data-field="terms[1].proportional.subsidized"]').isVisible()).toBe(true);
    await screenshot(page, '07-print');
  });

  it('links to the API reference, which renders the OpenAPI document with no CSP violation', async () => {
    const page = await newPage();
    const problems = collectProblems(page);
    await openPage(page, `${server.base}/`);
    await page.getByRole('link', { name: 'API reference' }).first().click();
    await page.waitForURL(`${server.base}/docs`);
    await page.locator('.swagger-ui .opblock-summary-path', { hasText: '/v1/calculate' }).first().waitFor();
    const doc = (await (await fetch(`${server.base}/v1/openapi.json`)).json()) as { info: { title: string } };
    expect(await page.locator('.swagger-ui .title').first().textContent()).toContain(doc.info.title);
    await screenshot(page, '08-docs');
    expect(problems.filter((p) => /Content Security Policy|page error/.test(p))).toEqual([]);
  });
});

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: unknown[];
}

/** The reopen link the page makes for a request (read from a page that calculated it). */
async function reopenLinkOf(ex: Example): Promise<string> {
  const page = await newPage();
  await openPage(page, `${server.base}/`);
  await fillRequest(page, ex.request);
  await calculate(page);
  return (await page.getByRole('link', { name: 'Link to this student' }).getAttribute('href')) ?? '';
}

const SCREENSHOT_README = new URL('../../test-output/screenshots/readme-', import.meta.url).pathname;
