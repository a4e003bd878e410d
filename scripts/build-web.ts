/**
 * Builds the aid officer's page (src/web) into dist/web, served by src/api/web-route.ts:
 *
 *   dist/web/index.html, dist/web/docs.html     no-cache documents naming the versioned assets
 *   dist/web/assets/<version>/*.js, page.css    immutable assets (long max-age): <version> is the sha256 of their
 *                                               bytes, so a changed asset is a new URL
 *   dist/web/manifest.json                      {version, source_hash, files: {name: bytes}}
 *
 * One asset is written by this script rather than compiled: `service-tables.js`, the service's own tables the
 * page shows (the school-policy options of src/domain/policy.ts, the health-professions programs of
 * src/domain/health-professions.ts, what each shadow-check reason means from src/domain/check-reasons.ts, the
 * form's fields from the request-field table, src/schema/fields.ts, the award years and the rule set, and the
 * columns of the bulk CSV layout from src/bulk/csv-layout.ts), taken at build time so the page never keeps a copy
 * of them.
 * Its shape is declared for the page's TypeScript in src/web/service-tables.d.ts.
 *
 * The TypeScript is compiled for the browser by `tsc -p tsconfig.web.json` (DOM lib, ES modules, no bundler).
 * `source_hash` is the sha256 of every input file: `buildWeb({ ifChanged: true })` (the test setup) skips the
 * build when dist/web already holds the output of the same inputs.
 *
 *   node scripts/build-web.ts          build (npm run build runs it after the service's tsc)
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POLICY_OPTIONS } from '../src/domain/policy.ts';
import { HEALTH_PROFESSIONS_TABLE } from '../src/domain/health-professions.ts';
import { CHECK_REASON_TEXT } from '../src/domain/check-reasons.ts';
import { REQUEST_FIELDS } from '../src/schema/fields.ts';
import { supportedAwardYears } from '../src/domain/limits.ts';
import { RULE_SET_ID } from '../src/domain/rule-set.ts';
import { INPUT_COLUMNS } from '../src/bulk/csv-layout.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src', 'web');
const OUT = join(ROOT, 'dist', 'web');
const STAGE = join(ROOT, 'dist', 'web-build');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The documents: each placeholder `%ASSETS%` becomes `/assets/<version>`. */
const DOCUMENTS = ['index.html', 'docs.html'];
const STYLES = ['page.css'];
/** service-tables.js is made from the domain, the request-field table and the CSV layout: their files are hashed too. */
const DOMAIN = join(ROOT, 'src', 'domain');
const SCHEMA = join(ROOT, 'src', 'schema');
const BULK = join(ROOT, 'src', 'bulk');

export interface WebManifest {
  version: string;
  source_hash: string;
  files: Record<string, number>;
}

function sha256(parts: readonly (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

/** The sha256 of every file the build reads: the page's sources, its tsconfig and this script. */
export function sourceHash(): string {
  const files = readdirSync(SRC)
    .sort()
    .map((name) => join(SRC, name));
  files.push(
    ...readdirSync(DOMAIN)
      .filter((name) => name.endsWith('.ts'))
      .sort()
      .map((name) => join(DOMAIN, name)),
    ...readdirSync(SCHEMA)
      .filter((name) => name.endsWith('.ts'))
      .sort()
      .map((name) => join(SCHEMA, name)),
    ...readdirSync(BULK)
      .filter((name) => name.startsWith('csv-') && name.endsWith('.ts'))
      .sort()
      .map((name) => join(BULK, name)),
  );
  files.push(join(ROOT, 'tsconfig.web.json'), fileURLToPath(import.meta.url));
  return sha256(files.flatMap((file) => [file.slice(ROOT.length), readFileSync(file)]));
}

/**
 * service-tables.js: the tables of the service the page shows, as an ES module of plain data (the fields the page
 * uses, so the asset stays small). The declaration in src/web/service-tables.d.ts names the same exports.
 */
export function serviceTablesModule(): string {
  const policy = POLICY_OPTIONS.map(({ name, values, section, summary, choose, citation }) => ({
    name,
    values,
    section,
    summary,
    choose,
    citation,
  }));
  const programs = Object.values(HEALTH_PROFESSIONS_TABLE).map(({ program, table, nineMonths, twelveMonths }) => ({
    program,
    table,
    nineMonths: Number(nineMonths),
    twelveMonths: Number(twelveMonths),
  }));
  // The form's fields: every row of the request-field table the page shows, with what the form needs of it.
  const fields = REQUEST_FIELDS.flatMap(({ name, level, type, presence, page }) =>
    page === undefined
      ? []
      : [
          {
            name,
            level,
            kind: type.kind,
            ...(type.kind === 'enum' ? { values: type.values } : {}),
            ...(type.kind === 'integer' ? { min: type.min, max: type.max } : {}),
            required: presence === 'required',
            ...page,
          },
        ],
  );
  const line = (name: string, value: unknown) => `export const ${name} = ${JSON.stringify(value)};\n`;
  return (
    '// Written by scripts/build-web.ts from src/domain (policy.ts, health-professions.ts, check-reasons.ts,\n' +
    '// limits.ts, rule-set.ts), src/schema/fields.ts (the request fields) and src/bulk/csv-layout.ts (the columns).\n' +
    line('POLICY_OPTIONS', policy) +
    line('HEALTH_PROFESSIONS', programs) +
    line('REQUEST_FIELDS', fields) +
    line('CHECK_REASON_TEXT', CHECK_REASON_TEXT) +
    line('AWARD_YEARS', supportedAwardYears()) +
    line('RULE_SET', RULE_SET_ID) +
    line('INPUT_COLUMNS', INPUT_COLUMNS)
  );
}

function readManifest(): WebManifest | undefined {
  const file = join(OUT, 'manifest.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as WebManifest;
}

export function buildWeb(options: { ifChanged?: boolean } = {}): WebManifest {
  const source_hash = sourceHash();
  const existing = readManifest();
  if (options.ifChanged && existing?.source_hash === source_hash) return existing;

  rmSync(STAGE, { recursive: true, force: true });
  execFileSync(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.web.json')], { cwd: ROOT, stdio: 'inherit' });

  const assets = new Map<string, Buffer>();
  for (const name of readdirSync(STAGE).sort()) {
    if (name.endsWith('.js')) assets.set(name, readFileSync(join(STAGE, name)));
  }
  assets.set('service-tables.js', Buffer.from(serviceTablesModule()));
  for (const name of STYLES) assets.set(name, readFileSync(join(SRC, name)));
  const version = sha256([...assets].flatMap(([name, bytes]) => [name, bytes])).slice(0, 12);

  rmSync(OUT, { recursive: true, force: true });
  const assetDir = join(OUT, 'assets', version);
  mkdirSync(assetDir, { recursive: true });
  const files: Record<string, number> = {};
  for (const [name, bytes] of assets) {
    writeFileSync(join(assetDir, name), bytes);
    files[`assets/${version}/${name}`] = bytes.length;
  }
  for (const name of DOCUMENTS) {
    const html = readFileSync(join(SRC, name), 'utf8').replaceAll('%ASSETS%', `/assets/${version}`);
    writeFileSync(join(OUT, name), html);
    files[name] = Buffer.byteLength(html);
  }
  const manifest: WebManifest = { version, source_hash, files };
  writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  rmSync(STAGE, { recursive: true, force: true });
  return manifest;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const manifest = buildWeb();
  const total = Object.values(manifest.files).reduce((a, b) => a + b, 0);
  console.log(
    `web: dist/web (assets ${manifest.version}), ${Object.keys(manifest.files).length} files, ${total} bytes`,
  );
}
