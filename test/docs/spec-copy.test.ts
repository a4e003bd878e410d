/**
 * docs/spec holds verbatim copies of the published spec (shared/spec) so that every `rules.md §…` the code cites
 * can be read inside the repository. When the published folder is beside the checkout, each copy must equal it
 * byte for byte; when it is not, the test says so in its name and checks what it can: the copies are there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPEC_RULES_FILE } from '../support/spec.ts';
import { ROOT, prose } from './markdown.ts';

const COPIES = ['rules.md', 'architecture.md', '000_7867384cb6a03d13.txt'];
const SPEC_DIR = SPEC_RULES_FILE === undefined ? undefined : dirname(SPEC_RULES_FILE);
const copy = (name: string): Buffer => readFileSync(join(ROOT, 'docs/spec', name));

describe('docs/spec', () => {
  if (SPEC_DIR !== undefined) {
    it.each(COPIES)(`%s equals the published file in ${SPEC_DIR}`, (name) => {
      expect(copy(name).equals(readFileSync(join(SPEC_DIR, name))), `docs/spec/${name} differs: copy it again`).toBe(
        true,
      );
    });
  } else {
    it.each(COPIES)('%s: shared/spec is not beside this checkout, so it is not compared; the copy is there', (name) => {
      expect(copy(name).length).toBeGreaterThan(1000);
    });
  }

  it('holds the copies and their README, nothing else', () => {
    expect(readdirSync(join(ROOT, 'docs/spec')).sort()).toEqual([...COPIES, 'README.md'].sort());
  });
});

/** Section numbers of rules.md's headings: `## 8a. Output shapes` → 8a, `### 2.1 Statutory …` → 2.1. */
function ruleSections(): Set<string> {
  const rules = prose(copy('rules.md').toString('utf8'));
  return new Set([...rules.matchAll(/^#{2,3} (\d+[a-z]?(?:\.\d+)?)\.? /gm)].map((m) => m[1]!));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|md)$/.test(entry.name) ? [path] : [];
  });
}

describe('every `rules.md §…` reference', () => {
  const files = [...sourceFiles('src'), ...sourceFiles('docs').filter((f) => !f.startsWith('docs/spec')), 'README.md'];
  const references = files.flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/rules\.md[ ,"']*§(\d+[a-z]?(?:\.\d+)?)/g)].map((m) => ({
      file,
      section: m[1]!,
    })),
  );

  it('is found in src/ and the docs', () => {
    expect(references.length).toBeGreaterThan(50);
  });

  it('names a section of docs/spec/rules.md', () => {
    const sections = ruleSections();
    expect(sections).toContain('8a');
    expect(sections).toContain('2.3');
    expect(references.filter((r) => !sections.has(r.section))).toEqual([]);
  });
});
