/**
 * How the page and the API reference are served (over HTTP, no browser): the page with no-cache and a strict
 * Content-Security-Policy, its versioned assets cached for a year, every asset it names present and small,
 * /docs from node_modules (no CDN) with /swagger and /redoc redirected to it, and a clear 503 when the page
 * is not built.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/helpers.ts';
import { webDir, webRouter } from '../../src/api/web-route.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

const get = (path: string, init: RequestInit = {}) => fetch(`${server.base}${path}`, { redirect: 'manual', ...init });

/** The same-origin URLs a document names in src= and href= attributes. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/(?:assets|docs)\/[^"]+)"/g)].map((m) => m[1]!);
}

describe('GET /', () => {
  it('serves the page with no-cache and a CSP that allows only this origin', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).toContain('<html lang="en">');
    // No CDN, no external font: every URL the page names is on this server.
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
  });

  it('serves each asset the page names under a versioned path, cached for a year, and the assets are small', async () => {
    const html = await (await get('/')).text();
    const urls = assetUrls(html);
    expect(urls.length).toBeGreaterThanOrEqual(2);
    let total = Buffer.byteLength(html);
    for (const url of urls) {
      expect(url).toMatch(/^\/assets\/[0-9a-f]{12}\//);
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
      total += (await res.arrayBuffer()).byteLength;
    }
    // The modules main.js imports are fetched by the browser too: count every built file.
    const manifest = JSON.parse(readFileSync(join(webDir(), 'manifest.json'), 'utf8')) as {
      files: Record<string, number>;
    };
    const built = Object.values(manifest.files).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(built);
    expect(built, 'page + scripts + stylesheet, uncompressed').toBeLessThan(160 * 1024);
    expect((await get('/assets/000000000000/main.js')).status).toBe(404);
  });

  it('answers 405 with the envelope to other methods on /', async () => {
    const res = await get('/', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(((await res.json()) as { code: string }).code).toBe('method_not_allowed');
  });
});

describe('GET /docs', () => {
  it('serves the API reference with Swagger UI from node_modules (no CDN) and its own init script', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    expect(html).toContain('/v1/openapi.json');
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const urls = assetUrls(html);
    expect(urls.some((u) => u.endsWith('/swagger-ui-bundle.js'))).toBe(true);
    expect(urls.some((u) => u.endsWith('/docs-init.js'))).toBe(true);
    for (const url of urls) {
      const asset = await get(url);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('cache-control'), url).toContain('immutable');
    }
    // Only the files /docs needs are served from the package.
    const bundle = urls.find((u) => u.endsWith('/swagger-ui-bundle.js'))!;
    expect((await get(bundle.replace('swagger-ui-bundle.js', 'package.json'))).status).toBe(404);
    expect((await get(bundle.replace('swagger-ui-bundle.js', 'swagger-ui-bundle.js.map'))).status).toBe(404);
  });

  it.each(['/swagger', '/swagger/', '/redoc', '/redoc/'])('redirects %s to /docs', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/docs');
  });
});

describe('a server whose page is not built', () => {
  it('answers 503 on / and /docs with a message saying how to build it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'sor-web-empty-'));
    const app = express();
    app.use(webRouter(empty));
    const s = await new Promise<Server>((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    try {
      const base = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
      for (const path of ['/', '/docs']) {
        const res = await fetch(`${base}${path}`);
        expect(res.status, path).toBe(503);
        const body = (await res.json()) as { code: string; message: string };
        expect(body.code).toBe('internal_error');
        expect(body.message).toContain('npm run build');
      }
    } finally {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
