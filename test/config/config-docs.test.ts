/**
 * docs/configuration.md is rendered from the config schema (scripts/config-docs.ts): the committed file must be
 * what the schema renders now, and every variable the service reads must be documented in it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configVariables, loadConfig } from '../../src/config.ts';
import { renderConfigReference } from '../../scripts/config-docs.ts';

const DOC = new URL('../../docs/configuration.md', import.meta.url);

describe('the configuration reference', () => {
  it('is what the config schema renders (regenerate with: npm run docs:config)', () => {
    expect(readFileSync(DOC, 'utf8'), 'docs/configuration.md is stale: run npm run docs:config').toBe(
      renderConfigReference(),
    );
  });

  it('documents every variable once, with a description; advanced knobs in their own section', () => {
    const rendered = renderConfigReference();
    for (const { name, doc } of configVariables()) {
      expect(doc.description.length, name).toBeGreaterThan(10);
      expect(rendered.match(new RegExp(`^\\| \`${name}\` \\|`, 'gm')), name).toHaveLength(1);
    }
    const advanced = rendered.slice(rendered.indexOf('## Advanced'));
    expect(advanced).toContain('| `QUEUE_LOCK_DURATION_MS` |');
    expect(advanced).not.toContain('| `PORT` |');
  });

  it('shows the defaults loadConfig applies', () => {
    const rendered = renderConfigReference();
    const config = loadConfig({});
    for (const name of ['PORT', 'BULK_MAX_ROWS', 'JOB_TTL_SECONDS', 'LOG_LEVEL'] as const) {
      expect(rendered, name).toContain(`| \`${name}\` | \`${String(config[name])}\``);
    }
    expect(rendered).toContain(`| \`REDIS_PREFIX\` | \`${config.REDIS_PREFIX}\``);
  });

  it('lists the deprecated BULLMQ_PREFIX with its successor', () => {
    expect(renderConfigReference()).toMatch(/\| `BULLMQ_PREFIX` \| `REDIS_PREFIX` \|/);
  });
});
