/**
 * What a person does with the single-student form, for the browser tests: fill it from a CalculationRequest
 * (field by field, through the inputs named by their API path: choosing a button, checking a box, picking from a
 * list, typing numbers key by key, opening "More details" when a field is behind it) and read the result back
 * through the cells' `data-field` hooks.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

export interface Example {
  id: string;
  request: Record<string, unknown> & { terms: Record<string, unknown>[] };
  expected: Record<string, unknown>;
}

/** The worked examples shipped with the service (a verbatim copy of shared/spec/examples.json). */
export const EXAMPLES: Example[] = (
  JSON.parse(readFileSync(new URL('../../src/api/openapi/worked-examples.json', import.meta.url), 'utf8')) as {
    examples: Example[];
  }
).examples;

export function example(id: string): Example {
  const found = EXAMPLES.find((e) => e.id === id);
  if (!found) throw new Error(`no worked example ${id}`);
  return found;
}

/** Opens "More details" when the control is behind it (closed). */
async function reveal(page: Page, name: string): Promise<void> {
  const control = page.locator(`[name="${name}"]`).first();
  if (await control.isVisible()) return;
  const more = page.locator('#more-details');
  if ((await more.locator(`[name="${name}"]`).count()) > 0) await more.locator('summary').click();
}

/** Sets one field as a person would; `typed` is the text typed into a text box (default: the value as written). */
export async function setField(page: Page, name: string, value: unknown, typed?: string): Promise<void> {
  if (value === null || value === undefined) return;
  await reveal(page, name);
  const control = page.locator(`[name="${name}"]`);
  const [tag, type] = await control
    .first()
    .evaluate((el) => [el.tagName.toLowerCase(), (el as { type?: string }).type ?? ''] as const);
  if (type === 'radio') await page.locator(`[name="${name}"][value="${String(value)}"]`).check();
  else if (tag === 'select') await control.selectOption(String(value));
  else if (typeof value === 'boolean') await control.setChecked(value);
  else {
    await control.fill('');
    await control.pressSequentially(typed ?? String(value));
  }
}

/** What the tests read of a <select> inside the page (the tests compile without the DOM library). */
interface Select {
  name: string;
  value: string;
  options: ArrayLike<{ value: string }>;
}

/**
 * Sets the page's School policy section to `policy` (options left out at the service default), as a person would:
 * opening the section and choosing each option that differs from what is shown.
 */
export async function setPolicy(page: Page, policy: Record<string, unknown> = {}): Promise<void> {
  const selects = page.locator('#policy select[name^="policy."]');
  const current = await selects.evaluateAll((els) =>
    els.map((el) => [(el as Select).name, (el as Select).value] as const),
  );
  const wanted = await selects.evaluateAll((els) =>
    els.map((el) => [(el as Select).name, (el as Select).options[0]?.value ?? ''] as const),
  );
  const target = new Map(wanted.map(([name, first]) => [name, String(policy[name.slice(7)] ?? first)]));
  const changes = current.filter(([name, value]) => target.get(name) !== value);
  if (changes.length === 0) return;
  if (!(await page.locator('#policy').evaluate((el) => (el as { open: boolean }).open))) {
    await page.locator('#policy > summary').click();
  }
  for (const [name] of changes) await page.locator(`[name="${name}"]`).selectOption(target.get(name)!);
}

/**
 * Fills the form as a person would: the school policy the request carries (or the defaults), as many terms as
 * the request has, then every non-null field. `typed` gives, by field path, the text typed instead of the value
 * (`{subsidized_amount: '$3,500'}`).
 */
export async function fillRequest(
  page: Page,
  request: Example['request'],
  typed: Record<string, string> = {},
): Promise<void> {
  await setPolicy(page, (request['policy'] as Record<string, unknown> | undefined) ?? {});
  const terms = () => page.locator('tr.term').count();
  while ((await terms()) < request.terms.length) await page.getByRole('button', { name: 'Add a term' }).click();
  while ((await terms()) > request.terms.length) {
    await page.getByRole('button', { name: `Remove term ${await terms()}` }).click();
  }
  for (const [key, value] of Object.entries(request)) {
    if (key !== 'terms' && key !== 'policy') await setField(page, key, value, typed[key]);
  }
  for (const [i, term] of request.terms.entries()) {
    for (const [key, value] of Object.entries(term)) {
      const path = `terms[${i}].${key}`;
      await setField(page, path, value, typed[path]);
    }
  }
}

/** The value at a JSON path of the result (`terms[0].proportional.subsidized`). */
export function at(result: unknown, path: string): unknown {
  let value: unknown = result;
  for (const part of path.replace(/\[(\d+)\]/g, '.$1').split('.')) {
    value = (value as Record<string, unknown> | null)?.[part];
  }
  return value;
}

/** A cell's text read back as the value it shows: "$1,323" → 1323, "−$90" → -90, "63%" → 63. */
export function shownValue(text: string): number | string {
  const plain = text.trim().replace(/[$,]/g, '').replace('−', '-').replace(/%$/, '');
  return /^-?\d+(\.\d+)?$/.test(plain) ? Number(plain) : text.trim();
}

/** Every result cell of the page: data-field → text. */
export async function resultCells(page: Page): Promise<Map<string, string>> {
  const pairs = await page
    .locator('#result [data-field]')
    .evaluateAll((cells) => cells.map((c) => [c.getAttribute('data-field') ?? '', c.textContent ?? ''] as const));
  return new Map(pairs);
}

/** Presses Calculate and waits for the result or the errors. */
export async function calculate(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Calculate', exact: true }).click();
  await page.locator('#result [data-field="reduced_annual_pct"], #form-errors:not([hidden])').first().waitFor();
}

/** The bodies of the page's POST requests to `path`, parsed, in order. */
export function postedBodies(page: Page, path: string): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === path) {
      bodies.push(JSON.parse(request.postData() ?? '{}') as Record<string, unknown>);
    }
  });
  return bodies;
}

/**
 * A function of the page's own built code, called in the page (the page's modules are ES modules under
 * /assets/<version>/): `pageFunction(page, 'words.js', 'inWords', text)`.
 */
export async function pageFunction<T>(page: Page, module: string, name: string, ...args: unknown[]): Promise<T> {
  // A string, not a function: the test runner would rewrite the dynamic import of a function's source.
  const file = JSON.stringify(module);
  return page.evaluate<T>(
    `(async () => { const main = document.querySelector('script[type="module"]').src; ` +
      `const m = await import(main.replace(/main\\.js$/, ${file})); ` +
      `return m[${JSON.stringify(name)}](...${JSON.stringify(args)}); })()`,
  );
}
