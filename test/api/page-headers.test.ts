/**
 * The aid officer's page (GET /) and the API reference (GET /docs) are sent with the security headers of
 * src/api/web-route.ts: a Content-Security-Policy of this origin only that forbids framing (and X-Frame-Options
 * DENY for older browsers), nosniff, no referrer; their static files with nosniff.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('the page and the docs', () => {
  it.each(['/', '/docs'])('GET %s: no framing, no sniffing, no referrer, scripts of this origin only', async (path) => {
    const res = await fetch(`${server.base}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    // Every script and stylesheet the document loads is nosniff too.
    const assets = [...html.matchAll(/(?:src|href)="(\/(?:assets|docs)\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const file = await fetch(`${server.base}${asset}`);
      expect(file.status, asset).toBe(200);
      expect(file.headers.get('x-content-type-options'), asset).toBe('nosniff');
      await file.arrayBuffer();
    }
  });

  it('routing is strict: /docs/ is sent to /docs, other spellings of the page are 404', async () => {
    const slash = await fetch(`${server.base}/docs/`, { redirect: 'manual' });
    expect(slash.status).toBe(301);
    expect(slash.headers.get('location')).toBe('/docs');
    for (const path of ['/DOCS', '/Docs', '/index.html']) {
      expect((await fetch(`${server.base}${path}`)).status, path).toBe(404);
    }
  });
});
