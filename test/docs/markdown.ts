/**
 * The project's own Markdown documents (README.md, docs/**, k8s/README.md) and what the docs tests read from
 * them: relative link targets and GitHub's heading anchors.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Every Markdown file the project writes (paths relative to the repository root). */
export function projectMarkdown(): string[] {
  return ['README.md', 'k8s/README.md', ...markdownUnder('docs')];
}

/** The spec copies are published text, not ours: their links and wording are the spec's. */
export const isSpecCopy = (file: string): boolean => relative('docs/spec', file).startsWith('..') === false;

export const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** The text outside fenced code blocks (a link written in a code sample is not a link). */
export function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** Targets of inline links and images, `[text](target)` and `![alt](target)`, other than URLs with a scheme. */
export function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces to hyphens, -1… for repeats. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n += 1) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}
