/**
 * The README is the newcomer's page: short, with the two commands, the tour, and a way to every topic in docs/.
 * No document of ours names the project's internal issues: they say what and why instead.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, isSpecCopy, projectMarkdown, read, relativeLinks } from './markdown.ts';

const readme = read('README.md');

describe('README.md', () => {
  it('is at most 250 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('gives the two commands and the tour: a lookup, a file, the page', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    expect(readme).toMatch(/curl [^\n]*localhost:8080\/v1\/calculate -H/);
    expect(readme).toMatch(/curl [^\n]*localhost:8080\/v1\/calculate\/bulk [^\n]*samples\/sample\.csv/);
    expect(readme).toContain('http://localhost:8080/');
    expect(relativeLinks(readme)).toContain('docs/page-fsa1.png');
  });

  it('links to every document in docs/', () => {
    const documents = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    expect(documents.length).toBeGreaterThanOrEqual(10);
    const linked = new Set(relativeLinks(readme).map((link) => link.split('#')[0]));
    expect(documents.filter((name) => !linked.has(`docs/${name}`))).toEqual([]);
    expect(linked).toContain('docs/spec/README.md');
  });
});

describe('internal issue markers', () => {
  it.each(projectMarkdown().filter((file) => !isSpecCopy(file) || file === 'docs/spec/README.md'))(
    '%s names no internal issue or finding',
    (file) => {
      const markers = read(file).match(/\b(issue|finding)s? #?\d+[^\n]{0,30}/gi) ?? [];
      expect(markers).toEqual([]);
    },
  );
});
