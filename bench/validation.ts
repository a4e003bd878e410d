/**
 * CPU and allocation cost of request validation, the zod path against the fast path, in ONE run (not a test):
 *
 *   npm run bench:validation [-- --openapi] [--rounds 9]   (node --expose-gc, a 64 MB young generation)
 *
 * --openapi builds the OpenAPI document from the same zod schemas first, as the app does at start (zod's shared
 * internals then see more shapes and get slower). Bodies: FSA-4 as JSON.parse makes it, and the same student with
 * every value a string, as the bulk pipeline builds it from CSV cells (booleans and academic_year_terms stay typed,
 * as there). Each round times both implementations back to back (order alternating), CPU time via
 * process.cpuUsage(); the best round is reported. Allocation: heap growth over a batch of calls with a young
 * generation large enough that no collection runs (a batch during which one ran is discarded).
 * Last, parseJsonExact on the FSA-4 JSON text against its former pre-check regex (then JSON.parse, as before).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { WORKED_EXAMPLES } from '../src/api/openapi/worked-examples.ts';
import { buildOpenApiDocument } from '../src/api/openapi/document.ts';
import { parseCalculationRequest, parseCalculationRequestWithZod } from '../src/schema/request.ts';
import { parseJsonExact } from '../src/api/json-exact.ts';
import { benchArgs } from './support/args.ts';

const args = benchArgs('npm run bench:validation --', {
  openapi: {
    type: 'boolean',
    default: false,
    help: 'build the OpenAPI document from the schemas first, as the app does',
  },
  rounds: { type: 'number', default: 9, help: 'timed rounds per implementation; the best is kept' },
});
const OPENAPI = args.openapi;
const ROUNDS = args.rounds;
const CALLS = 20_000;

if (OPENAPI) buildOpenApiDocument();

const fsa4 = WORKED_EXAMPLES.find((e) => e.id === 'FSA-4')!.request;
const jsonBody = () => JSON.parse(JSON.stringify(fsa4)) as unknown;
const csvBody = () =>
  JSON.parse(JSON.stringify(fsa4), (key, value: unknown) =>
    typeof value === 'number' && key !== 'academic_year_terms' ? String(value) : value,
  ) as unknown;

type Parse = (body: unknown) => unknown;
const impls: Record<string, Parse> = {
  zod: (b) => parseCalculationRequestWithZod(b),
  fast: (b) => parseCalculationRequest(b),
};

let gcs = 0;
new PerformanceObserver((list) => (gcs += list.getEntries().length)).observe({ entryTypes: ['gc'] });
const gc = (globalThis as { gc?: () => void }).gc;

function cpuMicros(parse: Parse, bodies: unknown[]): number {
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) parse(bodies[i & 63]);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / CALLS;
}

async function bytesPerCall(parse: Parse, bodies: unknown[]): Promise<number> {
  if (gc === undefined) return NaN;
  for (let attempt = 0; attempt < 5; attempt++) {
    gc();
    await new Promise((r) => setTimeout(r, 10)); // let the observer report the collection above
    const before = gcs;
    const heap = process.memoryUsage().heapUsed;
    for (let i = 0; i < 1000; i++) parse(bodies[i & 63]);
    const grown = process.memoryUsage().heapUsed - heap;
    await new Promise((r) => setTimeout(r, 10));
    if (gcs === before) return grown / 1000;
  }
  return NaN;
}

for (const [name, make] of [
  ['FSA-4 JSON', jsonBody],
  ['FSA-4 CSV strings', csvBody],
] as const) {
  const bodies = Array.from({ length: 64 }, make);
  const a = JSON.stringify(impls.zod!(bodies[0]));
  if (a !== JSON.stringify(impls.fast!(bodies[0])) || !a.includes('"ok":true')) throw new Error('outputs differ');
  const best: Record<string, number> = { zod: Infinity, fast: Infinity };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['zod', 'fast'] : ['fast', 'zod'];
    for (const impl of order) best[impl] = Math.min(best[impl]!, cpuMicros(impls[impl]!, bodies));
  }
  const bytes = { zod: await bytesPerCall(impls.zod!, bodies), fast: await bytesPerCall(impls.fast!, bodies) };
  console.log(
    `${name}${OPENAPI ? ' (OpenAPI document built)' : ''}: zod ${best.zod!.toFixed(2)} µs, ` +
      `fast ${best.fast!.toFixed(2)} µs CPU per call (best of ${ROUNDS} × ${CALLS}), ` +
      `x${(best.zod! / best.fast!).toFixed(1)}; heap ${bytes.zod.toFixed(0)} B vs ${bytes.fast.toFixed(0)} B per call`,
  );
}

// parseJsonExact: the former pre-check (three alternatives) then JSON.parse, against the current function.
const FORMER_PRE_CHECK = /\.\d{7}|\d{10}|\d[eE]/;
const formerParseJsonExact = (text: string): unknown => {
  if (FORMER_PRE_CHECK.test(text)) throw new Error('the bench text must take the fast branch');
  return JSON.parse(text) as unknown;
};
const texts = Array.from({ length: 64 }, (_, i) => JSON.stringify(fsa4).replace('Fall', `Fall ${i}`));
const jsonImpls: Record<string, (t: string) => unknown> = { former: formerParseJsonExact, current: parseJsonExact };
const bestJson: Record<string, number> = { former: Infinity, current: Infinity };
for (let r = 0; r < ROUNDS; r++) {
  for (const impl of r % 2 === 0 ? ['former', 'current'] : ['current', 'former']) {
    const parse = jsonImpls[impl]!;
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) parse(texts[i & 63]!);
    const used = process.cpuUsage(start);
    bestJson[impl] = Math.min(bestJson[impl]!, (used.user + used.system) / CALLS);
  }
}
console.log(
  `parseJsonExact FSA-4 (${texts[0]!.length} chars): former ${bestJson.former!.toFixed(2)} µs, ` +
    `current ${bestJson.current!.toFixed(2)} µs CPU per call (best of ${ROUNDS} × ${CALLS})`,
);
