/**
 * The security headers of the worksheet's answers. Every answer (JSON, HTML, PDF, errors) is `nosniff`; the HTML
 * page also gets a Content-Security-Policy that allows nothing but its inline style and forbids framing
 * (clickjacking), and `Referrer-Policy: no-referrer`.
 */
import type { ServerResponse } from 'node:http';
import type { WorksheetSummary } from '../../domain/summary.ts';

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

/**
 * A student's id or name as part of a file name: letters without their accents (Díaz → Diaz), digits, `.`, `_`
 * and `-`; every other run of characters one `-`. Empty when nothing is left.
 */
export function filenamePart(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60)
    .replace(/[-.]+$/, '');
}

/**
 * The PDF's file name: `worksheet-<student id, else name>-<award year>.pdf` (`worksheet-A00123456-2026-27.pdf`),
 * `worksheet-<award year>.pdf` for a worksheet that names no student (or whose id and name keep no safe character).
 */
export function worksheetPdfFilename(summary: Pick<WorksheetSummary, 'student' | 'award_year'>): string {
  const who = [summary.student?.id, summary.student?.name]
    .map((text) => (text === null || text === undefined ? '' : filenamePart(text)))
    .find((part) => part !== '');
  const year = filenamePart(summary.award_year);
  return who === undefined ? `worksheet-${year}.pdf` : `worksheet-${who}-${year}.pdf`;
}
