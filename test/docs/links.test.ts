/**
 * Every relative link of the README and the docs leads somewhere: the file exists and, for a link into a Markdown
 * document, the heading anchor it names is one of that document's headings.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, headingAnchors, isSpecCopy, projectMarkdown, read, relativeLinks } from './markdown.ts';

const files = projectMarkdown().filter((file) => !isSpecCopy(file) || file === 'docs/spec/README.md');

describe('relative links in README.md and docs/', () => {
  it('finds the documents and their links', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/spec/README.md']));
    expect(files.flatMap((file) => relativeLinks(read(file))).length).toBeGreaterThan(40);
  });

  it.each(files)('%s: every link target exists, every anchor is a heading', (file) => {
    const broken: string[] = [];
    for (const link of relativeLinks(read(file))) {
      const [pathPart, anchor] = link.split('#', 2) as [string, string | undefined];
      const target = pathPart === '' ? file : normalize(join(dirname(file), decodeURI(pathPart)));
      if (target.startsWith('..') || !existsSync(join(ROOT, target))) {
        broken.push(`${link}: no such file ${target}`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && statSync(join(ROOT, target)).isFile()) {
        if (!headingAnchors(read(target)).has(anchor)) broken.push(`${link}: no heading #${anchor} in ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the anchor rule', () => {
  it("is GitHub's: lower case, punctuation dropped, spaces to hyphens, repeats numbered", () => {
    const anchors = headingAnchors(
      '# Bulk CSV layout (v1)\n## Uploads: check first, then answer; limits\n### The command line: `sor`\n## A\n## A\n',
    );
    expect([...anchors]).toEqual([
      'bulk-csv-layout-v1',
      'uploads-check-first-then-answer-limits',
      'the-command-line-sor',
      'a',
      'a-1',
    ]);
  });

  it('ignores headings and links inside fenced code', () => {
    const text = '# Title\n```sh\n# a comment, not a heading\necho "[x](nowhere.md)"\n```\n[y](here.md)\n';
    expect([...headingAnchors(text)]).toEqual(['title']);
    expect(relativeLinks(text)).toEqual(['here.md']);
  });
});
