/**
 * An aid officer's everyday students on the page, in a real browser against the real service, typed as a person
 * types: an independent student (the page has no dependency status chosen until the officer chooses one: the test
 * fails if one was preselected), a legacy graduate student with a cost of attendance (Grad PLUS sized after the
 * reduction), and a mistyped value answered beside its field in words ("Spring: enter the credits the student is
 * enrolled in — “nine” is not a number.") rather than the service's field path. Expected dollars are the published
 * ones (examples.json).
 */
import { describe, expect, it } from 'vitest';
import { openPage, screenshot, useBrowserSession } from './browser.ts';
import { at, calculate, example, fillRequest, postedBodies, resultCells, shownValue } from './form-helpers.ts';

const server = useBrowserSession();

describe('an officer’s students', () => {
  it('an independent student: nothing is preselected, Calculate asks for the dependency status, then independent limits', async () => {
    const page = await server.newPage();
    const sent = postedBodies(page, '/v1/calculate');
    await openPage(page, `${server.base}/`);
    // No choice is made for the officer: every dependency-status and degree-level button starts unchosen.
    for (const name of ['dependency_status', 'degree_level']) {
      const buttons = page.locator(`input[type="radio"][name="${name}"]`);
      expect(await buttons.count(), name).toBeGreaterThan(1);
      expect(await buttons.evaluateAll((els) => els.filter((el) => (el as { checked: boolean }).checked).length)).toBe(
        0,
      );
    }
    // An independent second-year student (Riverland's published example), everything but the dependency status.
    const riverland = example('SCH-RIVERLAND-1');
    expect(riverland.request['dependency_status']).toBe('independent');
    const { dependency_status: _, ...rest } = riverland.request;
    await fillRequest(page, { ...rest, terms: riverland.request.terms });
    await calculate(page);
    // No result under a status nobody chose: the officer is asked for it, beside the field and at the top.
    expect(await page.locator('#result [data-field]').count()).toBe(0);
    const beside = page.locator('fieldset[data-path="dependency_status"] p.error');
    expect(await beside.textContent()).toBe('Choose the student’s dependency status.');
    expect(await page.locator('#form-errors').textContent()).toContain('Choose the student’s dependency status.');
    await screenshot(page, '30-dependency-asked');

    await page.getByRole('radio', { name: 'Independent' }).check();
    await calculate(page);
    expect(sent.at(-1)?.['dependency_status']).toBe('independent');
    const cells = await resultCells(page);
    for (const path of ['reduced_annual_pct', 'annual_basic_eligibility_sub', 'annual_basic_eligibility_unsub']) {
      expect(shownValue(cells.get(path) ?? ''), path).toBe(at(riverland.expected, path));
    }
    for (const path of ['terms[0].equal.unsubsidized', 'terms[1].equal.unsubsidized', 'total_equal.unsubsidized']) {
      expect(shownValue(cells.get(path) ?? ''), path).toBe(at(riverland.expected, path));
    }
    // The dependent limits would be lower: the test fails if the page had computed a dependent student.
    expect(at(riverland.expected, 'annual_basic_eligibility_unsub') as number).toBeGreaterThan(0);
    expect(await beside.isVisible()).toBe(false);
  });

  it('a legacy graduate student with a cost of attendance: Grad PLUS after the reduction', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    const legacy = example('REF-GP-AFTER-REDUCTION');
    expect(legacy.request['is_legacy_borrower']).toBe(true);
    await fillRequest(page, legacy.request, { cost_of_attendance: '$35,000' });
    // A graduate student has no grade level: the page does not ask for one.
    expect(await page.locator('fieldset[data-path="grade_level"]').isVisible()).toBe(false);
    expect(await page.locator('#more-details').evaluate((el) => (el as { open: boolean }).open)).toBe(true);
    await calculate(page);
    const cells = await resultCells(page);
    const paths = [
      'reduced_annual_pct',
      'annual_basic_eligibility_unsub',
      'annual_basic_eligibility_grad_plus',
      'terms[0].equal.grad_plus',
      'terms[1].equal.grad_plus',
      'total_equal.grad_plus',
    ];
    for (const path of paths) expect(shownValue(cells.get(path) ?? ''), path).toBe(at(legacy.expected, path));
    expect(at(legacy.expected, 'annual_basic_eligibility_grad_plus') as number).toBeGreaterThan(0);
    await page.locator('#result').scrollIntoViewIfNeeded();
    await screenshot(page, '31-legacy-graduate');
  });

  it('a mistyped value: the error beside its field in words, then the result once it is corrected', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    const request = structuredClone(example('FSA-1').request);
    request.terms[1]!['credits_enrolled'] = 'nine';
    await fillRequest(page, request);
    await calculate(page);

    // The service names the field by its path; the page says which term and what to do.
    const api = await fetch(`${server.base}/v1/calculate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(api.status).toBe(422);
    const { field_errors } = (await api.json()) as { field_errors: { field: string; message: string }[] };
    expect(field_errors.map((f) => f.field)).toEqual(['terms[1].credits_enrolled']);

    const input = page.locator('[name="terms[1].credits_enrolled"]');
    const message = page.locator('#err-terms-1-credits_enrolled');
    await expect.poll(() => message.isVisible()).toBe(true);
    expect(await message.textContent()).toBe(
      'Spring: enter the credits the student is enrolled in — “nine” is not a number.',
    );
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect(((await input.getAttribute('aria-describedby')) ?? '').split(' ')).toContain('err-terms-1-credits_enrolled');
    const summary = (await page.locator('#form-errors').textContent()) ?? '';
    expect(summary).toContain('Spring: enter the credits the student is enrolled in');
    expect(summary).not.toContain('terms[1]');
    expect(await page.evaluate<string>("document.activeElement?.getAttribute('name')")).toBe(
      'terms[1].credits_enrolled',
    );
    expect(await page.locator('#result [data-field]').count()).toBe(0);
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(1);
    await screenshot(page, '03-field-error');

    await input.fill('');
    await input.pressSequentially('9');
    await calculate(page);
    await expect.poll(() => message.isVisible()).toBe(false);
    expect(await input.getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('#form-errors').isVisible()).toBe(false);
    expect(await page.locator('#result [data-field="terms[1].proportional.subsidized"]').textContent()).toBe('$1,323');
  });

  it('a missing term value and a negative amount: each sentence names the term or field in the office’s words', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    const request = structuredClone(example('FSA-1').request);
    delete request.terms[0]!['full_time_credits'];
    request['subsidized_amount'] = -5;
    await fillRequest(page, request);
    await calculate(page);
    const errors = await page.locator('#form-errors li').allTextContents();
    expect(errors).toEqual(
      expect.arrayContaining([
        'Enter the subsidized eligibility in dollars, such as 2,750 — it cannot be negative.',
        'Fall: enter the credits that make the term full time, such as 12.',
      ]),
    );
    for (const text of errors) expect(text).not.toMatch(/\[\d\]|_|null|JSON/);
  });
});
