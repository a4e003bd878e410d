/**
 * The aid officer's page and the API reference, as static files (built by scripts/build-web.ts into dist/web):
 *
 *   GET /                          the page (index.html): Cache-Control no-cache, so a new build shows at once
 *   GET /assets/<version>/<file>   its scripts and stylesheet: <version> is the hash of their bytes, so they are
 *                                  cached for a year (immutable)
 *   GET /docs                      the OpenAPI document rendered by Swagger UI, served from node_modules/swagger-ui-dist
 *                                  (no CDN) under /docs/swagger-ui-<version>/ (immutable); /docs/, /swagger and
 *                                  /redoc (with or without a final slash) redirect to it
 *
 * Every document is sent with a Content-Security-Policy allowing only this origin (Swagger UI also needs inline
 * style attributes and data: images) and no framing (frame-ancestors 'none', X-Frame-Options DENY), nosniff and
 * Referrer-Policy no-referrer; the static files with nosniff. The files are found in dist/web beside the running code: from the
 * sources (src/api → ../../dist/web) or from the build (dist/src/api → ../../web). When they are not built, the
 * page's paths answer 503 with a message saying so (the API itself does not need them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type Response } from 'express';
import { appError } from '../errors.ts';
import { sendError } from './error-envelope.ts';
import { ROUTER_OPTIONS } from './routing.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

const YEAR_SECONDS = 365 * 24 * 3600;
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Where the built page is: the first candidate holding index.html, else the first candidate. */
export function webDir(): string {
  const candidates = [
    fileURLToPath(new URL('../../dist/web/', import.meta.url)),
    fileURLToPath(new URL('../../web/', import.meta.url)),
  ];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? candidates[0]!;
}

function swaggerUi(): { dir: string; version: string } {
  const pkg = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
  const { version } = JSON.parse(readFileSync(pkg, 'utf8')) as { version: string };
  return { dir: dirname(pkg), version };
}

function readDocument(dir: string, name: string, swaggerBase: string): string | undefined {
  const file = join(dir, name);
  return existsSync(file) ? readFileSync(file, 'utf8').replaceAll('%SWAGGER%', swaggerBase) : undefined;
}

function sendDocument(res: Response, html: string | undefined, csp: string): void {
  if (html === undefined) {
    sendError(res, appError('PAGE_NOT_BUILT'));
    return;
  }
  res.status(200);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  // The policy's frame-ancestors 'none', for browsers that only know the older header.
  res.setHeader('X-Frame-Options', 'DENY');
  res.end(html);
}

const immutable = (dir: string) =>
  express.static(dir, {
    index: false,
    redirect: false,
    dotfiles: 'ignore',
    immutable: true,
    maxAge: YEAR_SECONDS * 1000,
    setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
  });

/** The only Swagger UI files /docs needs (the package also holds source maps and other bundles). */
const SWAGGER_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-16x16.png', 'favicon-32x32.png']);

export function webRouter(dir: string = webDir()): Router {
  const router = Router(ROUTER_OPTIONS);
  const swagger = swaggerUi();
  const swaggerBase = `/docs/swagger-ui-${swagger.version}`;
  // Read once at start-up (the files of a running build do not change); a missing build stays a 503.
  const index = readDocument(dir, 'index.html', swaggerBase);
  const docs = readDocument(dir, 'docs.html', swaggerBase);

  router.get('/', (_req, res) => sendDocument(res, index, PAGE_CSP));
  router.all('/', methodNotAllowed('GET'));
  router.get('/docs', (_req, res) => sendDocument(res, docs, DOCS_CSP));
  router.all('/docs', methodNotAllowed('GET'));
  // Routing is strict (src/api/routing.ts): the spellings people type are listed, each sent to /docs.
  for (const path of ['/docs/', '/swagger', '/swagger/', '/redoc', '/redoc/']) {
    router.get(path, (_req, res) => res.redirect(301, '/docs'));
  }
  router.use('/assets', immutable(join(dir, 'assets')));
  const swaggerFiles = immutable(swagger.dir);
  router.use(swaggerBase, (req, res, next) => {
    if (!SWAGGER_FILES.has(req.path.slice(1))) return next();
    swaggerFiles(req, res, next);
  });
  return router;
}
