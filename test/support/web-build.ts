/**
 * Vitest global setup: the tests run the service from its sources, but GET / serves the page built from
 * src/web into dist/web (scripts/build-web.ts). Build it once per run, before any test file starts a server;
 * skipped when dist/web already holds the build of the same sources (its manifest records their hash).
 */
import { buildWeb } from '../../scripts/build-web.ts';

export default function setup(): void {
  buildWeb({ ifChanged: true });
}
