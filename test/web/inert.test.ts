/**
 * Bidirectional-control characters on the page: a term label or a file's column name holding a
 * right-to-left override (U+202E) is shown inert — each control as a visible escape (‹U+202E›, the worksheet's
 * escapes) inside its own isolate (`unicode-bidi: isolate`) — in the result, its warnings, the field errors and
 * the file tab's notices, while the value sent to the service is the text as typed, byte for byte.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { showBidiControls as worksheetEscapes } from '../../src/api/worksheet/content.ts';
import { hasBidiControls, showBidiControls } from '../../src/web/inert.ts';
import { SCREENSHOTS, openPage, screenshot, useBrowserSession } from './browser.ts';
import { example, fillRequest } from './form-helpers.ts';

const server = useBrowserSession();

const RLO = '\u202E';
/** Every bidirectional control the worksheet escapes (src/api/worksheet/content.ts). */
const CONTROLS = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200E',
  '\u200F',
  '\u061C',
];
const ANY_CONTROL = new RegExp(`[${CONTROLS.join('')}]`);

/** What the page shows in `selector`, as a reader sees it (innerText). */
const shown = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => (el as { innerText: string }).innerText);

describe('the escapes', () => {
  it('are the worksheet’s: every control as ‹U+XXXX›, other text unchanged', () => {
    const text = `Fall ${CONTROLS.join('x')} 1234 شتاء`;
    expect(showBidiControls(text)).toBe(worksheetEscapes(text));
    expect(showBidiControls(text)).not.toMatch(ANY_CONTROL);
    expect(showBidiControls(`${RLO}1234`)).toBe('‹U+202E›1234');
    for (const c of CONTROLS) expect(hasBidiControls(`a${c}`), c.codePointAt(0)!.toString(16)).toBe(true);
    expect(hasBidiControls('Fall شتاء')).toBe(false);
    expect(hasBidiControls('Fall شتاء')).toBe(false); // the global pattern keeps no state between calls
  });
});

describe('a term label with a right-to-left override', () => {
  it('is sent as typed and shown inert in the result, its warnings and the worksheet', async () => {
    const page = await server.newPage();
    const sent: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/calculate') {
        sent.push(JSON.parse(request.postData() ?? '{}'));
      }
    });
    await openPage(page, `${server.base}/`);
    // Handbook example 6's middle term is not enrolled: its warning quotes the label.
    const request = structuredClone(example('HB-CH5-EX6').request);
    request.terms[1]!['label'] = `${RLO}Winter`;
    await fillRequest(page, request);
    const note = page.locator('#bidi-terms-1-label');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toBe('Holds invisible direction controls: ‹U+202E›Winter');

    await page.getByRole('button', { name: 'Calculate', exact: true }).click();
    await page.locator('#result [data-field="reduced_annual_pct"]').waitFor();
    expect((sent.at(-1) as { terms: { label: string }[] }).terms[1]!.label).toBe(`${RLO}Winter`);

    const label = page.locator('#result [data-field="terms[1].label"]');
    expect(await label.textContent()).toBe('‹U+202E›Winter');
    const isolate = await label.locator('.inert').evaluate((el) => {
      const style = (globalThis as unknown as { getComputedStyle(e: unknown): { unicodeBidi: string } })
        .getComputedStyle;
      return [(el as { tagName: string }).tagName.toLowerCase(), style(el).unicodeBidi];
    });
    expect(isolate).toEqual(['bdi', 'isolate']);
    const warnings = await page.locator('#result .warnings').textContent();
    expect(warnings).toContain('‹U+202E›Winter');
    expect(await shown(page, '#result')).not.toMatch(ANY_CONTROL);
    await page.locator('#worksheet-steps > summary').click();
    await page.locator('#worksheet .steps').waitFor();
    expect(await shown(page, '#worksheet')).not.toMatch(ANY_CONTROL);
    expect(await shown(page, '#worksheet')).toContain('‹U+202E›Winter');
    await page.locator('#result').scrollIntoViewIfNeeded();
    await screenshot(page, '22-bidi-label');
  });

  it('in an error message that quotes it, the field error and the summary show the escape', async () => {
    const page = await server.newPage();
    await openPage(page, `${server.base}/`);
    // The service's messages name no value today; a message that quotes one (a proxy's, a later version's) is
    // still shown inert, inside the page's own sentence.
    await page.route('**/v1/calculate', (route) =>
      route.fulfill({
        status: 422,
        contentType: 'application/json',
        body: JSON.stringify({
          code: 'validation_error',
          message: `The label ${RLO}Fall is refused.`,
          field_errors: [{ field: 'terms[0].label', message: `got "${RLO}Fall"` }],
        }),
      }),
    );
    await fillRequest(page, example('FSA-1').request);
    await page.getByRole('button', { name: 'Calculate', exact: true }).click();
    await page.locator('#form-errors:not([hidden])').waitFor();
    // Said in words, the quoted value escaped: beside the term and in the list at the top.
    const sentence = 'Fall: enter a name for the term, such as Fall — got "‹U+202E›Fall".';
    expect(await shown(page, '#form-errors')).toContain(sentence);
    expect(await shown(page, '#form-errors')).not.toMatch(ANY_CONTROL);
    expect(await shown(page, '#err-terms-0-label')).toBe(sentence);
  });
});

describe('a column name with a right-to-left override in a file', () => {
  it('is shown inert where the file tab names it: the notice, the header as read, the file’s results', async () => {
    const file = join(SCREENSHOTS, 'bidi-columns.csv');
    writeFileSync(
      file,
      `student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,${RLO}Notes\n` +
        'S1,Fall,12,six,dependent,first_year,x\n' +
        'S2,Fall,12,6,dependent,first_year,y\n',
    );
    const page = await server.newPage();
    await openPage(page, `${server.base}/#bulk`);
    await page.locator('#bulk-file').setInputFiles(file);
    const notice = page.locator('#file-notices code.column').first();
    expect(await notice.textContent()).toBe('‹U+202E›Notes');
    expect(await notice.locator('bdi.inert').count()).toBe(1);
    expect(await shown(page, '#file-reading')).not.toMatch(ANY_CONTROL);
    await page.getByRole('button', { name: 'Calculate the file' }).click();
    await page.locator('#bulk-summary-heading').waitFor({ timeout: 60_000 });
    expect(await shown(page, '#bulk-summary')).not.toMatch(ANY_CONTROL);
    await screenshot(page, '23-bidi-column');
  });
});
