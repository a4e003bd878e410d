/**
 * What a person does with the single-student form, for the browser tests: fill it from a CalculationRequest
 * (field by field, through the inputs named by their API path) and read the result table back through the
 * cells' `data-field` hooks.
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

async function setField(page: Page, name: string, value: unknown): Promise<void> {
  if (value === null || value === undefined) return;
  const control = page.locator(`[name="${name}"]`);
  const tag = await control.evaluate((el) => el.tagName.toLowerCase());
  if (tag === 'select') await control.selectOption(String(value));
  else if (typeof value === 'boolean') await control.setChecked(value);
  else await control.fill(String(value));
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
 * the request has, then every non-null field.
 */
export async function fillRequest(page: Page, request: Example['request']): Promise<void> {
  await setPolicy(page, (request['policy'] as Record<string, unknown> | undefined) ?? {});
  const terms = () => page.locator('fieldset.term').count();
  while ((await terms()) < request.terms.length) await page.getByRole('button', { name: 'Add a term' }).click();
  while ((await terms()) > request.terms.length) {
    await page.getByRole('button', { name: `Remove term ${await terms()}` }).click();
  }
  for (const [key, value] of Object.entries(request)) {
    if (key !== 'terms' && key !== 'policy') await setField(page, key, value);
  }
  for (const [i, term] of request.terms.entries()) {
    for (const [key, value] of Object.entries(term)) await setField(page, `terms[${i}].${key}`, value);
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

/** A cell's text read back as the value it shows: "1,323" → 1323, "−90" → -90, "63%" → 63. */
export function shownValue(text: string): number | string {
  const plain = text.trim().replace(/,/g, '').replace('−', '-').replace(/%$/, '');
  return /^-?\d+(\.\d+)?$/.test(plain) ? Number(plain) : text.trim();
}

/** Every result cell of the page: data-field → text. */
export async function resultCells(page: Page): Promise<Map<string, string>> {
  const pairs = await page
    .locator('#result [data-field]')
    .evaluateAll((cells) => cells.map((c) => [c.getAttribute('data-field') ?? '', c.textContent ?? ''] as const));
  return new Map(pairs);
}
