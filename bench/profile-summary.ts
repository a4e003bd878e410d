/**
 * node bench/profile-summary.ts <file.cpuprofile> [more.cpuprofile…] [--top N] [--callers FUNCTION]
 *
 * Summarises a V8 CPU profile (`node --cpu-prof`, or the Chrome DevTools format) by self time: where the
 * process's CPU went, grouped
 *   by package  the npm package of the function's file (the last `node_modules/<name>` or `<@scope/name>` in its
 *               URL), `app:<dir>` for this repository's files (src/api, src/domain, bench…), `node:core` for
 *               Node's own JavaScript, `(native)` for functions without a script (V8 builtins and C++ bindings,
 *               e.g. writeUtf8String), and V8's own entries as they are: (garbage collector), (program), (idle);
 *   by function the function name with its file and line.
 * Self time is the sum of the sampling intervals (timeDeltas) of the samples taken in that function, so it stays
 * right when the sampling interval varies. Percentages are of the non-idle time. With several files, each is
 * summarised in turn (e.g. before and after). `--callers writeUtf8String` adds the call chains (six frames) that
 * the self time of that function came from: which write was it, the response's or the log's?
 */
import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
/** A file of this repository, also in another checkout of it (a profile of an older version). */
const REPO_DIR = /\/((?:src|bench|workers|test)\/.*)$/;

function repoPath(path: string): string | undefined {
  if (path.startsWith(REPO_ROOT)) return relative(REPO_ROOT, path);
  return REPO_DIR.exec(path)?.[1];
}
const IDLE = '(idle)';

/** The group a function's URL belongs to (see the header). */
export function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node:core';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const parts = path.slice(nm + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const own = repoPath(path);
  if (own !== undefined) {
    const parts = own.split('/');
    return `app:${parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  return path;
}

function where(frame: CallFrame): string {
  if (frame.url === '') return '';
  const path = frame.url.startsWith('file://') ? fileURLToPath(frame.url) : frame.url;
  const nm = path.lastIndexOf('/node_modules/');
  const shown = nm !== -1 ? path.slice(nm + '/node_modules/'.length) : (repoPath(path) ?? path);
  return `${shown}:${frame.lineNumber + 1}`;
}

export interface Summary {
  /** Sampled time that was not idle, in milliseconds. */
  busyMs: number;
  idleMs: number;
  byPackage: Array<{ name: string; ms: number }>;
  byFunction: Array<{ name: string; where: string; pkg: string; ms: number }>;
}

export function summarise(profile: CpuProfile): Summary {
  const nodes = new Map<number, ProfileNode>();
  for (const node of profile.nodes) nodes.set(node.id, node);
  const selfMicros = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, { name: string; where: string; pkg: string; ms: number }>();
  let busy = 0;
  let idle = 0;
  for (const [id, micros] of selfMicros) {
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined || micros <= 0) continue;
    if (frame.functionName === IDLE) {
      idle += micros;
      continue;
    }
    busy += micros;
    const pkg = packageOf(frame);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
    const at = where(frame);
    const key = `${frame.functionName}\u0000${at}`;
    const entry = byFunction.get(key) ?? { name: frame.functionName || '(anonymous)', where: at, pkg, ms: 0 };
    entry.ms += micros;
    byFunction.set(key, entry);
  }
  return {
    busyMs: busy / 1000,
    idleMs: idle / 1000,
    byPackage: [...byPackage].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms),
    byFunction: [...byFunction.values()].map((f) => ({ ...f, ms: f.ms / 1000 })).sort((a, b) => b.ms - a.ms),
  };
}

/** The call chains (up to `depth` frames) of the samples taken in functions named `name`, by self time. */
export function callersOf(profile: CpuProfile, name: string, depth = 6): Array<{ chain: string; ms: number }> {
  const nodes = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    nodes.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const chains = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    if (nodes.get(id)?.callFrame.functionName !== name) continue;
    const frames: string[] = [];
    for (let at = parent.get(id); at !== undefined && frames.length < depth; at = parent.get(at)) {
      const frame = nodes.get(at)!.callFrame;
      frames.push(`${frame.functionName || '(anonymous)'} ${where(frame)}`);
    }
    const chain = frames.join(' < ');
    chains.set(chain, (chains.get(chain) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  return [...chains].map(([chain, us]) => ({ chain, ms: us / 1000 })).sort((a, b) => b.ms - a.ms);
}

function pct(ms: number, total: number): string {
  return `${((100 * ms) / total).toFixed(1).padStart(5)}%`;
}

function print(file: string, s: Summary, top: number): void {
  console.log(`\n${basename(file)}: ${s.busyMs.toFixed(0)} ms busy, ${s.idleMs.toFixed(0)} ms idle`);
  console.log('\n  self time by package');
  for (const p of s.byPackage.slice(0, top))
    console.log(`  ${pct(p.ms, s.busyMs)} ${p.ms.toFixed(0).padStart(7)} ms  ${p.name}`);
  console.log('\n  self time by function');
  for (const f of s.byFunction.slice(0, top)) {
    console.log(`  ${pct(f.ms, s.busyMs)} ${f.ms.toFixed(0).padStart(7)} ms  ${f.name}  ${f.where || f.pkg}`);
  }
}

function main(argv: string[]): void {
  const option = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at === -1 ? undefined : argv[at + 1];
  };
  const top = Number(option('--top') ?? 25);
  const callers = option('--callers');
  const values = new Set(['--top', '--callers'].map((f) => argv.indexOf(f) + 1).filter((i) => i > 0));
  const files = argv.filter((a, i) => !a.startsWith('--') && !values.has(i));
  if (files.length === 0 || !Number.isInteger(top) || top <= 0) {
    console.error(
      'usage: node bench/profile-summary.ts <file.cpuprofile> [more.cpuprofile…] [--top N] [--callers FUNCTION]',
    );
    process.exit(2);
  }
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const summary = summarise(profile);
    print(file, summary, top);
    if (callers === undefined) continue;
    console.log(`\n  ${callers} called from`);
    for (const c of callersOf(profile, callers).slice(0, top)) {
      console.log(`  ${pct(c.ms, summary.busyMs)} ${c.ms.toFixed(0).padStart(7)} ms  ${c.chain}`);
    }
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
