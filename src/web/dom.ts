/** Small DOM helpers for the page: element creation without innerHTML (no markup is ever built from data). */
import { showBidiControls } from './inert.ts';

export type Attrs = Record<string, string | number | boolean | undefined>;
export type Child = Node | string | number | null | undefined | false;

/** `h('td', {'data-field': 'reduced_annual_pct'}, '63')`: an element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** The element with this id, or an error naming it (the page's HTML and its script are built together). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page has no element #${id}`);
  return el as T;
}

const NUMBERS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });

/** A number as an aid officer reads it: 1323 → "1,323", -90 → "−90"; a missing value is a dash. */
export function formatNumber(value: unknown): string {
  if (typeof value !== 'number') return value === null || value === undefined ? '—' : String(value);
  return NUMBERS.format(value).replace('-', '−');
}

/** Dollars as an aid officer writes them: 1323 → "$1,323", -90 → "−$90"; a missing value is a dash. */
export function formatDollars(value: unknown): string {
  if (typeof value !== 'number') return formatNumber(value);
  return `${value < 0 ? '−' : ''}$${NUMBERS.format(Math.abs(value))}`;
}

/** A change in dollars with its sign always written: +90 → "+$90", -90 → "−$90", 0 → "no change". */
export function formatChange(value: number): string {
  return value === 0 ? 'no change' : `${value > 0 ? '+' : '−'}$${NUMBERS.format(Math.abs(value))}`;
}

/** An id-safe form of a field path: `terms[1].credits_enrolled` → `terms-1-credits_enrolled`. */
export function idOf(path: string): string {
  return path.replace(/[^A-Za-z0-9_]+/g, '-').replace(/-+$/, '');
}

/** Replaces the children of `target` (null, undefined and false are skipped). */
export function fill(target: Element, ...children: Child[]): void {
  target.replaceChildren();
  append(target, ...children);
}

/**
 * Text that came from a request or an answer (a student id, a term label, a warning, an error message), shown
 * inert: in its own bidirectional isolate, with any bidirectional-control character as a visible escape
 * (inert.ts). `<bdi>` isolates by itself; the class says so to the stylesheet too (`unicode-bidi: isolate`).
 */
export function inert(text: string): HTMLElement {
  return h('bdi', { class: 'inert' }, showBidiControls(text));
}
