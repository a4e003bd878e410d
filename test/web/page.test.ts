/**
 * The single-student page in a real browser (Debian's chromium through playwright-core), against the real
 * service: an officer types FSA example 1 with its amounts written as people write them ($3,500) and reads the
 * published 63%, $882 and $1,323; every worked example's figures appear in the cells named by their path in the
 * result; the link reopens the same student (never with the student's name or ID); the form works from the keyboard
 * alone; the API reference renders. Screenshots of each state go to test-output/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectProblems, openPage, screenshot, useBrowserSession, type ContextOptions } from './browser.ts';
import {
  EXAMPLES,
  at,
  calculate,
  example,
  fillRequest,
  pageFunction,
  postedBodies,
  resultCells,
  shownValue,
} from './form-helpers.ts';

const server = useBrowserSession();

function newPage(options: ContextOptions = {}): Promise<Page> {
  return server.newPage(options);
}

const dollars = (n: unknown) => `$${(n as number).toLocaleString('en-US')}`;
const LOANS = ['subsidized', 'unsubsidized', 'grad_plus'];

/**
 * The result paths a person must be able to read on the page for `expected`, with what each must read as
 * (`'not offered'` for an option the student is not offered). Grad PLUS columns are shown only when the result has
 * Grad PLUS dollars, and the change columns only when a term's final credits changed something: the paths left out
 * are returned apart, each of them 0 in the published result.
 */
function shownPaths(expected: Record<string, unknown>): { shown: string[]; left: string[] } {
  const t = (i: number, rest: string) => `terms[${i}].${rest}`;
  const terms = expected['terms'] as unknown[];
  const gp = [
    'annual_basic_eligibility_grad_plus',
    'total_equal.grad_plus',
    'total_proportional.grad_plus',
    ...terms.map((_, i) => t(i, 'adjustment_grad_plus')),
  ].some((p) => (at(expected, p) ?? 0) !== 0);
  const adjustments = terms.some((_, i) =>
    ['adjustment_sub', 'adjustment_unsub', 'adjustment_grad_plus'].some((a) => at(expected, t(i, a)) !== 0),
  );
  const all: string[] = ['annual_ft_credits', 'reduced_annual_pct'];
  all.push('annual_basic_eligibility_sub', 'annual_basic_eligibility_unsub', 'annual_basic_eligibility_grad_plus');
  const option = (base: string) => (at(expected, base) === null ? [base] : LOANS.map((l) => `${base}.${l}`));
  all.push(...option('total_equal'));
  all.push(...(expected['show_both_options'] ? option('total_proportional') : ['total_proportional']));
  terms.forEach((_, i) => {
    all.push(t(i, 'label'), t(i, 'enrollment_intensity_pct'), t(i, 'disbursement_pct'));
    all.push(...option(t(i, 'equal')), ...option(t(i, 'proportional')));
    all.push(t(i, 'adjustment_sub'), t(i, 'adjustment_unsub'), t(i, 'adjustment_grad_plus'));
  });
  const hidden = (p: string) => (!gp && p.endsWith('grad_plus')) || (!adjustments && p.includes('adjustment_'));
  return { shown: all.filter((p) => !hidden(p)), left: all.filter(hidden) };
}

describe('the single-student page', () => {
  it('shows FSA example 1 typed with amounts as officers write them ($3,500): 63%, $882 + $1,323', async () => {
    const page = await newPage();
    const problems = collectProblems(page);
    const sent = postedBodies(page, '/v1/calculate');
    await openPage(page, `${server.base}/`);
    await screenshot(page, '01-form-empty');
    const fsa1 = example('FSA-1');
    await fillRequest(page, fsa1.request, { subsidized_amount: '$3,500', total_limit: '5,500.00' });
    await page.locator('#student-form').screenshot({ path: `${SCREENSHOT_README}page-form.png` });
    await calculate(page);

    // What was typed is sent as plain numbers.
    expect(sent.at(-1)?.['subsidized_amount']).toBe('3500');
    expect(sent.at(-1)?.['total_limit']).toBe('5500');
    const cell = (path: string) => page.locator(`#result [data-field="${path}"]`);
    // rules.md §3: 15 of 24 credits = 62.5% → 63%; 3,500 × 63% = 2,205 split 6:9 → 882 and 1,323 (examples.json).
    expect(await cell('reduced_annual_pct').textContent()).toBe(`${String(fsa1.expected['reduced_annual_pct'])}%`);
    for (const path of ['terms[0].proportional.subsidized', 'terms[1].proportional.subsidized']) {
      expect(await cell(path).textContent(), path).toBe(dollars(at(fsa1.expected, path)));
    }
    expect(await cell('terms[1].proportional.subsidized').textContent()).toBe('$1,323');
    expect(await cell('annual_basic_eligibility_sub').textContent()).toBe('$2,205');
    await expect.poll(() => page.evaluate<string>('document.activeElement?.id')).toBe('result-heading');
    // The rule set and the school policy are named once, above the figures.
    expect(await page.locator('#result').textContent()).toMatch(
      /Rule set 2026-27\.3\. School policy: service defaults\./,
    );
    await screenshot(page, '02-fsa1-result');
    await page.locator('#result').screenshot({ path: `${SCREENSHOT_README}page-fsa1.png` });
    expect(problems.filter((p) => /Content Security Policy|page error/.test(p))).toEqual([]);
  });

  it('shows every worked example: each result cell holds the expected value at its data-field path', async () => {
    const page = await newPage();
    await openPage(page, `${server.base}/`);
    for (const ex of EXAMPLES) {
      await fillRequest(page, ex.request);
      await calculate(page);
      const cells = await resultCells(page);
      const { shown, left } = shownPaths(ex.expected);
      for (const path of shown) {
        const expected = at(ex.expected, path);
        expect(cells.has(path), `${ex.id}: a cell for ${path}`).toBe(true);
        const text = cells.get(path) ?? '';
        if (expected === null || (path === 'total_proportional' && !ex.expected['show_both_options'])) {
          expect(text, `${ex.id} ${path}`).toMatch(/^not offered/);
        } else {
          expect(shownValue(text), `${ex.id} ${path}`).toEqual(expected);
        }
      }
      for (const path of left) {
        expect(at(ex.expected, path) ?? 0, `${ex.id} ${path} is 0 (its column is left out)`).toBe(0);
        expect(cells.has(path), `${ex.id}: no cell for ${path}`).toBe(false);
      }
      // Each published warning, in the office's words (field names as the form's labels); the one naming the school
      // policy is said once above the figures instead.
      const warnings = (ex.expected['warnings'] as string[] | undefined) ?? [];
      for (const [i, warning] of warnings.entries()) {
        const shownText = cells.get(`warnings[${i}]`);
        if (warning.startsWith('School policy in force: ')) expect(shownText, ex.id).toBeUndefined();
        else expect(shownText, ex.id).toBe(await pageFunction<string>(page, 'words.js', 'inWords', warning));
      }
      // The next example starts from an empty form.
      await openPage(page, `${server.base}/`);
    }
  }, 240_000);

  it('reopens the same student from the link, with the student in the fragment only', async () => {
    const page = await newPage();
    await openPage(page, `${server.base}/`);
    const fsa4 = example('FSA-4');
    await fillRequest(page, fsa4.request);
    // The name and ID are for the worksheet: never in the link, never stored by the browser.
    await page.getByLabel('Student name').fill('Ana Díaz');
    await page.getByLabel('Student ID').fill('A00123456');
    await calculate(page);
    const before = await resultCells(page);
    const link = await page.getByRole('link', { name: 'Link to this student' }).getAttribute('href');
    expect(link).toBeTruthy();
    const url = new URL(link!);
    expect(url.search).toBe('');
    expect(url.pathname).toBe('/');
    expect(url.hash).toContain('terms%5B0%5D.prior_disbursement_sub=502');
    for (const text of [link!, decodeURIComponent(link!), page.url()]) {
      expect(text).not.toMatch(/A00123456|Ana|D%C3%ADaz|student\./);
    }
    const stored = await page.evaluate<string>('JSON.stringify([{ ...localStorage }, { ...sessionStorage }])');
    expect(stored).not.toMatch(/A00123456|Ana/);

    const other = await newPage();
    await openPage(other, link!);
    await other.locator('#result [data-field="reduced_annual_pct"]').waitFor();
    expect(await other.locator('tr.term').count()).toBe(3);
    expect(await other.getByLabel('Student name').inputValue()).toBe('');
    expect(await other.locator('[name="terms[0].actual_final_credits"]').inputValue()).toBe('6');
    expect(await other.locator('[name="subsidized_amount"]').inputValue()).toBe('2000');
    expect(await other.locator('[name="academic_year_terms"]').inputValue()).toBe('3');
    expect(await resultCells(other)).toEqual(before);
    // FSA example 4: the later terms each lose 90 after Fall's credits fell to 6.
    expect(at(fsa4.expected, 'terms[1].adjustment_sub')).toBe(-90);
    expect(before.get('terms[1].adjustment_sub')).toBe('−$90');
    expect(before.get('terms[2].adjustment_sub')).toBe('−$90');
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

    // The required choices: nothing is chosen until a key chooses it.
    await tabTo('dependency_status');
    await page.keyboard.press('Space'); // Dependent
    await tabTo('degree_level');
    await page.keyboard.press('Space'); // Undergraduate: the grade level is asked next
    await tabTo('grade_level');
    await page.keyboard.press('Space'); // First year
    await tabTo('subsidized_amount');
    await page.keyboard.type('$3,500');
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
    expect(await page.locator('tr.term').count()).toBe(3);
    expect(await active()).toBe('terms[2].label');
    await tabTo('remove-term-3');
    await page.keyboard.press('Space');
    expect(await page.locator('tr.term').count()).toBe(2);

    await tabTo('terms[1].credits_enrolled');
    await page.keyboard.press('Enter');
    await page.locator('#result [data-field="reduced_annual_pct"]').waitFor();
    expect(await active()).toBe('result-heading');
    expect(await page.locator('#result [data-field="terms[0].proportional.subsidized"]').textContent()).toBe('$882');
    await tabTo('reopen-link');
    await screenshot(page, '05-keyboard');
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

const SCREENSHOT_README = new URL('../../test-output/screenshots/readme-', import.meta.url).pathname;
