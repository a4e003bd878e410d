/**
 * The rooms of src/ and the direction of their imports (architecture.md "Layout (target)").
 *
 * Walks the import graph of src/ (`import … from '…'`, `export … from '…'`, `import '…'` and `import('…')` of
 * relative .ts files) and fails on an import that runs backwards between rooms, on a room missing from the table
 * below (a new folder is a decision: give it a floor here), and on a cycle between rooms.
 *
 * A room is a folder of src/ (src/bulk/runners/pool.ts is in `bulk`) or a file directly in src/ (src/runtime.ts
 * is `runtime`). A room may import only rooms on a lower floor; rooms on the same floor do not import each other
 * (queue and jobs are siblings: the BullMQ transport and the async-jobs service, which runs without Redis).
 * The ground floor is shared by everything and imports no folder; its modules may import one another (config
 * and logger use redact), without a cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * The allowed order, lowest first. Why each floor sits where it does:
 *  - ground: errors (the catalogue and the wire envelope, over its codes and templates), logger, redact, log-tag
 *    (what a log line writes instead of a key), metrics — used everywhere.
 *  - domain: the pure calculation; imports nothing of the service.
 *  - schema: request/response schemas and decimal parsing, over the domain's types; config beside it, which
 *    validates SOR_POLICY against the domain's policy table (src/domain/policy.ts) at start-up.
 *  - bulk: CSV reading/writing, the pipeline and its runners (inline, pool), over schema and domain; redis beside
 *    it: the one place that makes the process's Redis connections from the Config, for queue, jobs and auth.
 *  - queue | jobs: the BullMQ transport (a ChunkRunner) and the async-jobs service (stores, spool, results),
 *    both built on bulk; neither needs the other (the runtime hands the queue runner to the jobs service).
 *  - auth: access tokens (format, hash, stores), rate windows and counters; no Express, beside jobs and queue.
 *  - webhooks: signed job-end events (URL check, signing, outbox, delivery), over jobs (the record, the store the
 *    sweep reads); the api reads callback_url through it and shows its state on the job.
 *  - api: the Express doors; they read jobs (the /v1/jobs routes, the upload spool) and auth (the guards).
 *  - mcp: the Model Context Protocol door (stdio and POST /mcp), over api's JSON body reading, error envelope and
 *    shipped worked examples; the runtime mounts its router and the CLI runs its stdio server.
 *  - runtime | cli: the composition root (builds runners, stores, routers from the Config), and the command.
 *  - server: the HTTP entry point, which starts the runtime.
 *  - web: the page's browser code (compiled apart, tsconfig.web.json); it imports no other room, and the api
 *    serves its built files without importing it.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['errors', 'error-codes', 'error-template', 'logger', 'redact', 'log-tag', 'metrics'],
  ['domain'],
  ['schema', 'config'],
  ['bulk', 'redis'],
  ['queue', 'jobs', 'auth'],
  ['webhooks'],
  ['api'],
  ['mcp'],
  ['runtime', 'cli'],
  ['server', 'web'],
];

const GROUND = 0;

/**
 * Files whose imports are not yet held to the table, each with the reason. Empty is the goal; an entry that is
 * no longer needed (the file is gone or imports rightly) fails the test, so none lingers.
 */
const PENDING_MOVES: ReadonlyMap<string, string> = new Map<string, string>([]);

export interface Edge {
  from: string; // file, relative to src/
  to: string; // file, relative to src/
}

/** The room of a file relative to src/: its first folder, or its name without .ts when it sits in src/. */
export function roomOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.ts$/, '');
}

/** Specifiers of the imports in a TypeScript source (comments removed first, so prose does not count). */
export function importSpecifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const m of code.matchAll(pattern)) found.push(m[1]!);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every import of a relative .ts file between files of src/. */
function importGraph(): { files: string[]; edges: Edge[] } {
  const files = sourceFiles(SRC);
  const edges: Edge[] = [];
  for (const file of files) {
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.') || !spec.endsWith('.ts')) continue;
      const target = resolve(dirname(file), spec);
      edges.push({ from: relative(SRC, file).split(sep).join('/'), to: relative(SRC, target).split(sep).join('/') });
    }
  }
  return { files: files.map((f) => relative(SRC, f).split(sep).join('/')), edges };
}

function floorOf(room: string, floors: readonly (readonly string[])[]): number | undefined {
  const i = floors.findIndex((floor) => floor.includes(room));
  return i < 0 ? undefined : i;
}

/** Imports between rooms that do not go down a floor (ground-floor modules may import one another). */
export function backwardImports(edges: Edge[], floors: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  for (const { from, to } of edges) {
    const a = roomOf(from);
    const b = roomOf(to);
    if (a === b) continue;
    const fa = floorOf(a, floors);
    const fb = floorOf(b, floors);
    if (fa === undefined || fb === undefined) {
      out.push(`${from} -> ${to}: room ${fa === undefined ? a : b} has no floor in the table`);
    } else if (fb > fa || (fb === fa && fa !== GROUND)) {
      out.push(`${from} -> ${to}: ${a} (floor ${fa}) imports ${b} (floor ${fb})`);
    }
  }
  return out;
}

/** Cycles between rooms (strongly connected components of more than one room), each as its sorted rooms. */
export function roomCycles(edges: Edge[]): string[][] {
  return cyclesBy(edges, roomOf);
}

/** Cycles between files (type-only imports included): files that import each other, directly or around a loop. */
export function fileCycles(edges: Edge[]): string[][] {
  return cyclesBy(edges, (file) => file);
}

/** Strongly connected components of more than one node, nodes being `keyOf` of the files. */
function cyclesBy(edges: Edge[], keyOf: (file: string) => string): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = keyOf(from);
    const b = keyOf(to);
    if (a === b) continue;
    if (!next.has(a)) next.set(a, new Set());
    if (!next.has(b)) next.set(b, new Set());
    next.get(a)!.add(b);
  }
  // Tarjan's algorithm.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('the checker itself', () => {
  it('reads static, re-export, side-effect and dynamic imports, not ones in comments', () => {
    const source = [
      "import { a } from './a.ts';",
      'import {',
      '  b,',
      '  type B,',
      "} from '../b/b.ts';",
      "export { c } from './c.ts';",
      "import './d.ts';",
      "const e = await import('../e.ts');",
      "/** Not an import: see import { x } from './x.ts' in the README. */",
      "// import { y } from './y.ts';",
    ].join('\n');
    expect(importSpecifiers(source).sort()).toEqual(['../b/b.ts', '../e.ts', './a.ts', './c.ts', './d.ts']);
  });

  it('names each file’s room', () => {
    expect(roomOf('bulk/runners/pool.ts')).toBe('bulk');
    expect(roomOf('runtime.ts')).toBe('runtime');
  });

  it('reports an import up a floor, between siblings, and into a room without a floor', () => {
    const edges: Edge[] = [
      { from: 'bulk/pipeline.ts', to: 'api/error-envelope.ts' },
      { from: 'queue/x.ts', to: 'jobs/y.ts' },
      { from: 'attic/z.ts', to: 'domain/calculate.ts' },
      { from: 'api/app.ts', to: 'bulk/pipeline.ts' },
      { from: 'config.ts', to: 'redact.ts' },
    ];
    expect(backwardImports(edges, FLOORS)).toEqual([
      'bulk/pipeline.ts -> api/error-envelope.ts: bulk (floor 3) imports api (floor 6)',
      'queue/x.ts -> jobs/y.ts: queue (floor 4) imports jobs (floor 4)',
      'attic/z.ts -> domain/calculate.ts: room attic has no floor in the table',
    ]);
  });

  it('finds a cycle between rooms, and none inside one room', () => {
    const edges: Edge[] = [
      { from: 'queue/a.ts', to: 'api/b.ts' },
      { from: 'api/c.ts', to: 'queue/d.ts' },
      { from: 'bulk/e.ts', to: 'bulk/f.ts' },
      { from: 'bulk/f.ts', to: 'bulk/e.ts' },
      { from: 'api/c.ts', to: 'bulk/e.ts' },
    ];
    expect(roomCycles(edges)).toEqual([['api', 'queue']]);
    expect(fileCycles(edges)).toEqual([['bulk/e.ts', 'bulk/f.ts']]);
  });
});

describe('the import graph of src/', () => {
  const { files, edges } = importGraph();

  it('was read (the walk found the files and their imports)', () => {
    expect(files).toContain('runtime.ts');
    expect(files).toContain('bulk/runners/pool-thread.ts');
    expect(edges).toContainEqual({ from: 'server.ts', to: 'runtime.ts' });
    expect(edges).toContainEqual({ from: 'bulk/runners/pool.ts', to: 'bulk/runners/pool-thread.ts' });
  });

  it('every room of src/ has a floor in the table', () => {
    const rooms = new Set(files.map(roomOf));
    expect([...rooms].filter((room) => floorOf(room, FLOORS) === undefined)).toEqual([]);
  });

  it('every imported file exists in src/ (no import reaches outside it)', () => {
    const known = new Set(files);
    expect(edges.filter((e) => !known.has(e.to)).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  const held = edges.filter((e) => !PENDING_MOVES.has(e.from));

  it('no import runs backwards or sideways between rooms', () => {
    expect(backwardImports(held, FLOORS)).toEqual([]);
  });

  it('no cycle between rooms', () => {
    expect(roomCycles(held)).toEqual([]);
  });

  it('no cycle between files, inside a room either (each file can be read before the files that use it)', () => {
    expect(fileCycles(edges)).toEqual([]);
  });

  it('every pending move is still pending (remove the PENDING_MOVES entry once the file imports rightly)', () => {
    const stale = [...PENDING_MOVES.keys()].filter(
      (file) =>
        backwardImports(
          edges.filter((e) => e.from === file),
          FLOORS,
        ).length === 0,
    );
    expect(stale).toEqual([]);
  });
});
