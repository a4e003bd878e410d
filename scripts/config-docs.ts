/**
 * Renders the configuration reference, docs/configuration.md, from the config schema's metadata
 * (src/config/env-schema.ts): one table per section, then the advanced knobs and the deprecated names apart.
 * test/config/config-docs.test.ts fails when the committed file differs. Regenerate it with:
 *
 *   npm run docs:config        (node scripts/config-docs.ts > docs/configuration.md)
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CONFIG_SECTIONS, configVariables, type ConfigVariable } from '../src/config.ts';

const MiB = 1024 * 1024;

/** The schema's default as the reference shows it: the documented one, else the schema's own value. */
function shownDefault(v: ConfigVariable): string {
  if (v.doc.default !== undefined) return v.doc.default;
  if (!(v.schema instanceof z.ZodDefault)) return 'unset';
  const value: unknown = v.schema.def.defaultValue;
  if (typeof value === 'number' && v.name.endsWith('_BYTES') && value % MiB === 0 && value >= MiB) {
    return `\`${value}\` (${value / MiB} MiB)`;
  }
  return `\`${String(value)}\``;
}

/** The values an enum variable accepts, when it is one. */
function allowed(schema: z.ZodType): string {
  const inner = schema instanceof z.ZodDefault ? schema.def.innerType : schema;
  if (!(inner instanceof z.ZodEnum)) return '';
  return ` One of: ${inner.options.map((o) => `\`${String(o)}\``).join(', ')}.`;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function table(variables: readonly ConfigVariable[]): string[] {
  return [
    '| Variable | Default | What it does |',
    '| --- | --- | --- |',
    ...variables.map(
      (v) => `| \`${v.name}\` | ${cell(shownDefault(v))} | ${cell(v.doc.description + allowed(v.schema))} |`,
    ),
  ];
}

export function renderConfigReference(): string {
  const all = configVariables();
  const current = all.filter((v) => v.doc.replacedBy === undefined);
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated from src/config/env-schema.ts by `npm run docs:config`; do not edit by hand. -->',
    '',
    'Every setting is an environment variable, read once at start-up by the API and the queue worker. A bad value',
    'stops start-up with one line naming the variable; variables not listed here are ignored.',
    '',
  ];
  for (const section of CONFIG_SECTIONS) {
    const here = current.filter((v) => v.doc.section === section && v.doc.advanced !== true);
    if (here.length === 0) continue;
    lines.push(`## ${section}`, '', ...table(here), '');
  }
  const advanced = current.filter((v) => v.doc.advanced === true);
  lines.push(
    '## Advanced',
    '',
    'Knobs for benchmarks and deep tuning: their defaults were measured (docs/benchmarks.md). Change one only',
    'with a benchmark run before and after.',
    '',
    '| Variable | Section | Default | What it does |',
    '| --- | --- | --- | --- |',
    ...advanced.map(
      (v) =>
        `| \`${v.name}\` | ${v.doc.section} | ${cell(shownDefault(v))} | ${cell(v.doc.description + allowed(v.schema))} |`,
    ),
    '',
  );
  const deprecated = all.filter((v) => v.doc.replacedBy !== undefined);
  if (deprecated.length > 0) {
    lines.push(
      '## Deprecated names',
      '',
      'Still read, with a warning at start-up; the new name wins when both are set.',
      '',
      '| Variable | Use instead | What it was |',
      '| --- | --- | --- |',
      ...deprecated.map((v) => `| \`${v.name}\` | \`${v.doc.replacedBy ?? ''}\` | ${cell(v.doc.description)} |`),
      '',
    );
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(renderConfigReference());
