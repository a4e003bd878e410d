/**
 * The runtime dependencies in package.json are exactly the packages the service's code (src/ and workers/) imports:
 * a package used only by the tests or the benchmarks is a devDependency, and every package the service loads is
 * declared (not reached through another package's dependencies).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);

function tsFiles(dir: URL): URL[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? tsFiles(new URL(`${e.name}/`, dir))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [new URL(e.name, dir)]
        : [],
  );
}

/** The package an import specifier names ('@scope/name/sub' → '@scope/name'), or null for node: and relative ones. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

describe('runtime dependencies', () => {
  it('are exactly the packages src/ and workers/ import (static, dynamic or through require.resolve)', () => {
    const imported = new Set<string>();
    for (const dir of ['src/', 'workers/']) {
      for (const file of tsFiles(new URL(dir, ROOT))) {
        const text = readFileSync(file, 'utf8');
        const specifiers = text.matchAll(
          /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|\.resolve\(\s*['"]([^'"]+)['"]\s*\)/g,
        );
        for (const m of specifiers) {
          const name = packageOf(m[1] ?? m[2] ?? m[3]!);
          if (name !== null) imported.add(name);
        }
      }
    }
    const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies).sort()).toEqual([...imported].sort());
  });
});
