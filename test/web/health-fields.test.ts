/**
 * The health professions fields of the form (rules.md §2.1, revision 2026-27.3), in a real browser against the
 * real service: `health_professions_program` offers none and the eleven programs of the service's table with
 * readable names, `academic_year_months` 9 to 12; the Handbook's 11-month dentistry example reads 44,944
 * Unsubsidized; for a student the increase does not apply to, the form says the value will be ignored and still
 * keeps and sends it (the service answers with a warning), and the reopen link keeps both fields.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { HEALTH_PROFESSIONS_PROGRAMS, HEALTH_PROFESSIONS_TABLE } from '../../src/domain/health-professions.ts';
import { openPage, useBrowserSession } from './browser.ts';
import { example, fillRequest, resultCells } from './form-helpers.ts';

const server = useBrowserSession();

async function calculate(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Calculate', exact: true }).click();
  await page.locator('#result [data-field="reduced_annual_pct"], #form-errors:not([hidden])').first().waitFor();
}

function lastCalculateBody(page: Page): () => Record<string, unknown> | undefined {
  let last: Record<string, unknown> | undefined;
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/calculate') {
      last = JSON.parse(request.postData() ?? '{}') as Record<string, unknown>;
    }
  });
  return () => last;
}

describe('the health professions fields', () => {
  it('offer none and the eleven programs with readable names and their table, and 9 to 12 months', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    const options = await page
      .locator('select[name="health_professions_program"] option')
      .evaluateAll((els) => els.map((el) => [(el as { value: string }).value, el.textContent ?? ''] as const));
    expect(options.map(([value]) => value)).toEqual(['', ...HEALTH_PROFESSIONS_PROGRAMS]);
    expect(options[0]![1]).toBe('None');
    const dentistry = options.find(([value]) => value === 'dentistry')![1];
    expect(dentistry).toBe('Dentistry — table 3A, +$20,000 for 9 months');
    expect(HEALTH_PROFESSIONS_TABLE.dentistry.nineMonths).toBe('20000');
    expect(options.find(([value]) => value === 'public_health')![1]).toBe(
      'Public health — table 3B, +$12,500 for 9 months',
    );
    for (const [value, text] of options.slice(1)) expect(text, value).not.toContain('_');

    const months = await page
      .locator('select[name="academic_year_months"] option')
      .evaluateAll((els) => els.map((el) => (el as { value: string }).value));
    expect(months).toEqual(['', '9', '10', '11', '12']);
    expect(await page.getByLabel('Health professions program').count()).toBe(1);
    expect(await page.getByLabel('Months in the academic year').count()).toBe(1);
  });

  it('reproduce the Handbook’s 11-month dentistry increase: 44,944 Unsubsidized', async () => {
    const page = await server.newPage();
    const body = lastCalculateBody(page);
    await openPage(page, `${server.base}/`);
    const dentistry = example('HB-CH4-DENTISTRY-11');
    await fillRequest(page, dentistry.request);
    expect(await page.locator('#applies-health_professions_program').isVisible()).toBe(false);
    await calculate(page);
    expect(body()?.['health_professions_program']).toBe('dentistry');
    expect(body()?.['academic_year_months']).toBe(11); // a whole number, as the API takes it
    // 20,500 + 20,000 ÷ 9 × 11 = 20,500 + 24,444 = 44,944 (FSA Handbook 2025-26 vol. 8 ch. 4, table 3A).
    expect((await resultCells(page)).get('annual_basic_eligibility_unsub')).toBe('$44,944');
    expect(dentistry.expected['annual_basic_eligibility_unsub']).toBe(44944);

    const link = (await page.getByRole('link', { name: 'Link to this student' }).getAttribute('href')) ?? '';
    const other = await server.newPage();
    await openPage(other, link);
    await other.locator('#result [data-field="reduced_annual_pct"]').waitFor();
    expect(await other.locator('[name="health_professions_program"]').inputValue()).toBe('dentistry');
    expect(await other.locator('[name="academic_year_months"]').inputValue()).toBe('11');
    expect((await resultCells(other)).get('annual_basic_eligibility_unsub')).toBe('$44,944');
  });

  it('for a student the increase does not apply to: a note, the value kept and sent, the answer’s warning', async () => {
    const page = await server.newPage();
    const body = lastCalculateBody(page);
    await openPage(page, `${server.base}/`);
    const request = structuredClone(example('HB-CH4-DENTISTRY-11').request);
    request['is_legacy_borrower'] = false; // not legacy: the increase ended for them
    await fillRequest(page, request);
    const note = page.locator('#applies-health_professions_program');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toContain('Ignored for this student');
    expect(await page.locator('#applies-academic_year_months').isVisible()).toBe(true);
    expect(await page.locator('[name="health_professions_program"]').isEnabled()).toBe(true);

    await calculate(page);
    expect(body()?.['health_professions_program']).toBe('dentistry');
    const cells = await resultCells(page);
    // A professional student without the interim exception: the 50,000 of rules.md §2.1, no increase on top.
    expect(request['degree_level']).toBe('professional');
    expect(cells.get('annual_basic_eligibility_unsub')).toBe('$50,000');
    const warnings = [...cells].filter(([path]) => path.startsWith('warnings[')).map(([, text]) => text);
    expect(
      warnings.some((w) => /health professions/i.test(w) && /ignored/i.test(w)),
      warnings.join('\n'),
    ).toBe(true);

    // Legacy again: the note goes, the value was never lost.
    await page.locator('[name="is_legacy_borrower"]').check();
    expect(await note.isVisible()).toBe(false);
    expect(await page.locator('[name="health_professions_program"]').inputValue()).toBe('dentistry');
  });
});
