/**
 * The security headers of the worksheet's answers. Every answer (JSON, HTML, PDF, errors) is `nosniff`; the HTML
 * page also gets a Content-Security-Policy that allows nothing but its inline style and forbids framing
 * (clickjacking), and `Referrer-Policy: no-referrer`.
 */
import type { ServerResponse } from 'node:http';

/** The HTML worksheet's policy: no script, no fetch, no form, no base URL, no frame; only its inline <style>. */
export const WORKSHEET_HTML_CSP: Readonly<Record<string, string>> = {
  'default-src': "'none'",
  'style-src': "'unsafe-inline'",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
};

/**
 * `existing` (a Content-Security-Policy another layer set already, or none) with `required`'s directives in force:
 * a directive both name takes `required`'s value; every other directive of either is kept, in order.
 */
export function mergeCsp(existing: string | undefined, required: Readonly<Record<string, string>>): string {
  const directives = new Map<string, string>();
  for (const part of (existing ?? '').split(';')) {
    const text = part.trim();
    if (text === '') continue;
    const space = text.search(/\s/);
    const name = (space < 0 ? text : text.slice(0, space)).toLowerCase();
    if (!directives.has(name)) directives.set(name, space < 0 ? '' : text.slice(space + 1).trim());
  }
  for (const [name, value] of Object.entries(required)) directives.set(name, value);
  return [...directives].map(([name, value]) => (value === '' ? name : `${name} ${value}`)).join('; ');
}

/** Sets the headers every worksheet answer carries. */
export function setWorksheetHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

/** Sets the HTML page's own headers (after setWorksheetHeaders). */
export function setWorksheetHtmlHeaders(res: ServerResponse): void {
  const existing = res.getHeader('Content-Security-Policy');
  res.setHeader(
    'Content-Security-Policy',
    mergeCsp(Array.isArray(existing) ? existing.join('; ') : existing?.toString(), WORKSHEET_HTML_CSP),
  );
  res.setHeader('Referrer-Policy', 'no-referrer');
}
