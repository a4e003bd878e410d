/**
 * Micro-benchmark of calculate() (not a test: prints numbers, asserts nothing).
 *   npm run bench:calculate [-- --rounds R] [--iterations N] [--baseline DIR]
 * Reports µs per call for typical students and the ratio to the simplest one. The inputs are built the way the
 * service builds them: request bodies validated by parseCalculationRequest (src/schema/request.ts).
 * Then the cost of the worksheet trace (src/domain/trace.ts): calculate() with a recorder that ignores the workings
 * (the cost of handing them over) and calculateWithTrace() (building the steps), each as a ratio to calculate()
 * without a recorder, the default path every request and bulk row takes.
 * With --baseline, the domain of another checkout of this repository (its src/domain, the directory holding
 * calculate.ts and trace.ts; e.g. a worktree of the commit before a change: `git worktree add /tmp/before HEAD~1`)
 * is timed too, in rounds alternating with this one, so that both see the same machine load; the speed-up is
 * printed per scenario. The inputs are this tree's, so the other domain must take the same input shape.
 */

import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { calculate } from '../src/domain/calculate.ts';
import { POLICY_OPTIONS } from '../src/domain/policy.ts';
import { calculateWithTrace } from '../src/domain/trace.ts';
import type { CalculationInput } from '../src/domain/types.ts';
import { parseCalculationRequest } from '../src/schema/request.ts';
import { benchArgs } from './support/args.ts';

const args = benchArgs('npm run bench:calculate --', {
  rounds: { type: 'number', default: 7, help: 'timed rounds per scenario; the best is kept' },
  iterations: { type: 'number', default: 20_000, help: 'calls per round' },
  baseline: {
    type: 'string',
    default: '',
    help: "another checkout's src/domain (with calculate.ts and trace.ts, e.g. /tmp/before/src/domain) to compare with",
  },
});

type Term = Record<string, number | string>;
const term = (label: string, fullTime: number, enrolled: number | string, extra: Term = {}): Term => ({
  label,
  full_time_credits: fullTime,
  credits_enrolled: enrolled,
  ...extra,
});

/** A dependent first-year undergraduate with full need (subsidized_amount 3500) and these terms. */
function input(terms: Term[], extra: Record<string, unknown> = {}): CalculationInput {
  const parsed = parseCalculationRequest({
    dependency_status: 'dependent',
    grade_level: 'first_year',
    subsidized_amount: 3500,
    ...extra,
    terms,
  });
  if (!parsed.ok) throw new Error(`bench:calculate: invalid scenario ${JSON.stringify(parsed.fieldErrors)}`);
  return parsed.value;
}

const base = { academic_year_terms: 2, total_limit: 5500 } as const;
const scenarios: [string, () => CalculationInput][] = [];

const simple = input([term('Fall', 12, 6), term('Spring', 12, 9)], base);
scenarios.push(['2 terms, reduced, both options', () => simple]);

const recalc = input(
  [
    term('Fall', 12, 9, { actual_final_credits: 6, prior_disbursement_sub: 1000 }),
    term('Spring', 12, 9, { actual_final_credits: '7.5' }),
  ],
  base,
);
scenarios.push(['2 terms, recalculation with baseline', () => recalc]);

const varied = Array.from({ length: 1000 }, (_, i) =>
  input([term('Fall', 12, (i % 13) + 0.5), term('Spring', 12, i % 11)], { ...base, subsidized_amount: 1000 + i }),
);
let next = 0;
scenarios.push(['2 terms, 1,000 different students', () => varied[next++ % varied.length]!]);

const quarters = input([term('Q1', 12, 12), term('Q2', 12, 9), term('Q3', 12, 6), term('Q4', 12, 3)], {
  academic_year_terms: 4,
  subsidized_amount: 2000,
});
scenarios.push(['4 terms, reduced, both options', () => quarters]);

// The machine may be shared: time on-CPU (process.cpuUsage) and keep the best of several rounds.
const ROUNDS = args.rounds;
const ITERATIONS = args.iterations;
/** Best CPU µs per call of `run` over the rounds, after a warm-up. */
function time(run: (input: CalculationInput) => unknown, scenario: () => CalculationInput): number {
  for (let i = 0; i < Math.min(10_000, ITERATIONS); i++) run(scenario());
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < ITERATIONS; i++) run(scenario());
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / ITERATIONS);
  }
  return best;
}

const plain = (i: CalculationInput) => calculate(i);
let reference = 0;
const perScenario: number[] = [];
for (const [name, scenario] of scenarios) {
  const best = time(plain, scenario);
  perScenario.push(best);
  if (reference === 0) reference = best;
  console.log(`${name.padEnd(40)} ${best.toFixed(2).padStart(7)} µs/call (CPU)  ×${(best / reference).toFixed(2)}`);
}

console.log('\nworksheet trace (ratio to calculate() without a recorder, same scenario):');
let sink = 0;
const ignore = (i: CalculationInput) =>
  calculate(i, undefined, undefined, () => {
    sink++;
  });
const traced = (i: CalculationInput) => calculateWithTrace(i);
scenarios.forEach(([name, scenario], k) => {
  const off = time(plain, scenario);
  const handOver = time(ignore, scenario);
  const steps = time(traced, scenario);
  const base = Math.min(off, perScenario[k]!);
  console.log(
    `${name.padEnd(40)} off ${base.toFixed(2).padStart(6)} µs  recorder ×${(handOver / base).toFixed(2)}  ` +
      `with steps ${steps.toFixed(2).padStart(7)} µs ×${(steps / base).toFixed(2)}`,
  );
});
if (sink === 0) console.log('(recorder never called)');

type Run = (input: CalculationInput) => unknown;

// rules.md §10: a request without `policy`, one with every option at its default (the same answer, and the default
// path should cost no more), and one under a non-default policy, timed in alternating rounds.
{
  const defaults = Object.fromEntries(POLICY_OPTIONS.map((o) => [o.name, o.values[0]]));
  const nonDefault = { remainder_placement: 'last_term', below_half_time_credits: 'excluded' };
  const twoTerms = [term('Fall', 12, 6), term('Spring', 12, 9)];
  const without = input(twoTerms, base);
  const withDefaults = input(twoTerms, { ...base, policy: defaults });
  const withPolicy = input(twoTerms, { ...base, policy: nonDefault });
  const parseBody = (policy?: Record<string, string>) => () =>
    parseCalculationRequest({
      dependency_status: 'dependent',
      grade_level: 'first_year',
      subsidized_amount: 3500,
      ...base,
      ...(policy === undefined ? {} : { policy }),
      terms: twoTerms,
    });
  console.log('\nschool policy (rules.md §10; CPU µs/call, best of rounds alternating):');
  const [a, b, c] = timeAlternating(
    [plain, plain, plain].map((run, k) => (_: CalculationInput) => run([without, withDefaults, withPolicy][k]!)),
    () => without,
  );
  console.log(
    `calculate   no policy ${a!.toFixed(2)} µs   every option at its default ${b!.toFixed(2)} µs ×${(b! / a!).toFixed(2)}` +
      `   non-default ${c!.toFixed(2)} µs ×${(c! / a!).toFixed(2)}`,
  );
  const [pa, pb, pc] = timeAlternating(
    [parseBody(), parseBody(defaults), parseBody(nonDefault)].map((run) => () => run()),
    () => without,
  );
  console.log(
    `parse+validate no policy ${pa!.toFixed(2)} µs   every option at its default ${pb!.toFixed(2)} µs ×${(pb! / pa!).toFixed(2)}` +
      `   non-default ${pc!.toFixed(2)} µs ×${(pc! / pa!).toFixed(2)}`,
  );
}

/** Best CPU µs per call of each run over the rounds, the runs alternating within every round. */
function timeAlternating(runs: readonly Run[], scenario: () => CalculationInput): number[] {
  for (const run of runs) for (let i = 0; i < Math.min(10_000, ITERATIONS); i++) run(scenario());
  const best = runs.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < ROUNDS; round++) {
    runs.forEach((run, r) => {
      const start = process.cpuUsage();
      for (let i = 0; i < ITERATIONS; i++) run(scenario());
      const used = process.cpuUsage(start);
      best[r] = Math.min(best[r]!, (used.user + used.system) / ITERATIONS);
    });
  }
  return best;
}

if (args.baseline !== '') {
  const dir = resolve(args.baseline);
  const other = (await import(pathToFileURL(join(dir, 'calculate.ts')).href)) as { calculate: Run };
  const otherTrace = (await import(pathToFileURL(join(dir, 'trace.ts')).href)) as { calculateWithTrace: Run };
  console.log(`\nagainst the baseline ${args.baseline} (rounds alternating; CPU µs/call, best of ${ROUNDS}):`);
  for (const [name, scenario] of scenarios) {
    const [ours, theirs] = timeAlternating([plain, (i) => other.calculate(i)], scenario);
    const [oursT, theirsT] = timeAlternating([traced, (i) => otherTrace.calculateWithTrace(i)], scenario);
    console.log(
      `${name.padEnd(40)} calculate ${theirs!.toFixed(2).padStart(6)} → ${ours!.toFixed(2).padStart(6)} µs ` +
        `×${(theirs! / ours!).toFixed(2)}   with trace ${theirsT!.toFixed(2).padStart(6)} → ` +
        `${oursT!.toFixed(2).padStart(6)} µs ×${(theirsT! / oursT!).toFixed(2)}`,
    );
  }
}
