/**
 * explain_amount's evidence: the worksheet steps (src/domain/trace.ts) that produced a value of the result, and the
 * steps those rest on, followed back to the inputs.
 *
 * The step that produced a value is exact: the one step whose `output` maps that result path (every value of a
 * result is the output of exactly one step). What a step rests on follows its formula: a term's share rests on the
 * split of its loan's amount, the split on the annual amount (or what is left of it after closed terms), the annual
 * amount on the percentage and the starting amount, the percentage on the terms' credits, and so on. Those links are
 * the table below, over the worksheet's stable step ids (docs/api.md lists them); `baseline.` steps (§6) rest on
 * their own baseline steps and the shared student-level ones. A linked id the worksheet does not hold (no closed
 * term, no cap, the default policy) is simply skipped.
 */
import type { TraceStep } from '../domain/trace.ts';

const LOAN = '(sub|unsub|grad_plus)';
const OPTION = '(equal|proportional)';

interface Link {
  /** The step id (without its `baseline.` prefix). */
  id: RegExp;
  /** The ids it rests on, `*` for any index or name; `p` is the step's own prefix ('' or 'baseline.'). */
  restsOn: (match: RegExpExecArray, p: string) => string[];
}

const LINKS: readonly Link[] = [
  {
    id: new RegExp(`^term\\[(\\d+)\\]\\.${OPTION}\\.${LOAN}$`),
    restsOn: ([, i, option, loan], p) => [
      `${p}${option}.${loan}`,
      `term[${i}].eligibility`,
      `term[${i}].credits`,
      `term[${i}].closed`,
    ],
  },
  {
    id: new RegExp(`^${OPTION}\\.${LOAN}$`),
    restsOn: ([, option, loan], p) => [
      `${p}remaining.${loan}`,
      `${p}annual.${loan}`,
      ...(option === 'proportional' ? ['options', 'term[*].credits'] : []),
      'term[*].eligibility',
      'policy',
    ],
  },
  { id: new RegExp(`^remaining\\.${LOAN}$`), restsOn: ([, loan], p) => [`${p}annual.${loan}`, 'term[*].closed'] },
  {
    id: /^annual\.(sub|unsub)$/,
    restsOn: ([, loan], p) => [`${p}percentage`, `base.${loan}`, 'cap.*', 'final_period', 'policy'],
  },
  { id: /^annual\.grad_plus$/, restsOn: (_, p) => [`${p}percentage`, `${p}grad_plus.base`, 'base.limit'] },
  {
    id: /^grad_plus\.base$/,
    restsOn: (_, p) => [`${p}annual.sub`, `${p}annual.unsub`, 'base.sub', 'base.unsub', 'cap.*', 'policy'],
  },
  {
    id: /^percentage$/,
    restsOn: () => ['annual_ft_credits', 'term[*].credits', 'term[*].eligibility', 'final_period', 'policy'],
  },
  { id: /^annual_ft_credits$/, restsOn: () => ['term[*].credits'] },
  { id: /^base\.sub$/, restsOn: () => ['base.limit', 'final_period'] },
  { id: /^base\.unsub$/, restsOn: () => ['base.sub', 'base.limit', 'base.health_professions', 'final_period'] },
  { id: /^cap\./, restsOn: () => ['base.sub', 'base.unsub'] },
  { id: /^final_period$/, restsOn: () => ['term[*].credits', 'base.limit', 'policy'] },
  { id: /^term\[(\d+)\]\.eligibility$/, restsOn: ([, i]) => [`term[${i}].credits`] },
  { id: /^options$/, restsOn: () => ['percentage', 'term[*].eligibility'] },
  { id: /^term\[\d+\]\.disbursement_pct$/, restsOn: () => ['options', 'term[*].eligibility', 'term[*].credits'] },
  {
    id: new RegExp(`^total\\.${OPTION}$`),
    restsOn: ([, option]) => [`term[*].${option}.*`, `${option}.*`, 'term[*].closed', 'options'],
  },
  {
    id: /^term\[\d+\]\.adjustment$/,
    restsOn: () => ['term[*].credits', 'term[*].equal.*', 'equal.*', 'baseline.term[*].equal.*', 'baseline.equal.*'],
  },
];

const BASELINE = 'baseline.';

/** `term[*].equal.*` → a test of ids (`*` stands for one index or one name). */
function idMatcher(pattern: string): (id: string) => boolean {
  if (!pattern.includes('*')) return (id) => id === pattern;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.[\]\\^$+?(){}|]/g, '\\$&'))
    .join('[^.\\]]+');
  const re = new RegExp(`^${source}$`);
  return (id) => re.test(id);
}

/** The ids a step rests on, as patterns. */
function restsOn(id: string): string[] {
  const p = id.startsWith(BASELINE) ? BASELINE : '';
  const own = id.slice(p.length);
  for (const link of LINKS) {
    const match = link.id.exec(own);
    if (match !== null) return link.restsOn(match, p);
  }
  return [];
}

/** Every result path the worksheet produces, in the worksheet's order. */
export function resultPaths(steps: readonly TraceStep[]): string[] {
  return steps.flatMap((s) => Object.keys(s.output));
}

export interface Derivation {
  /** The steps that produced the values asked about. */
  producers: TraceStep[];
  /** Those steps and every step they rest on, in the worksheet's order. */
  steps: TraceStep[];
}

/** The steps that produced `paths` and everything they rest on. */
export function derivationOf(steps: readonly TraceStep[], paths: readonly string[]): Derivation {
  const wanted = new Set(paths);
  const producers = steps.filter((s) => Object.keys(s.output).some((path) => wanted.has(path)));
  const included = new Set<TraceStep>(producers);
  const queue = [...producers];
  while (queue.length > 0) {
    const step = queue.shift()!;
    for (const pattern of restsOn(step.id)) {
      const matches = idMatcher(pattern);
      for (const candidate of steps) {
        if (candidate !== step && !included.has(candidate) && matches(candidate.id)) {
          included.add(candidate);
          queue.push(candidate);
        }
      }
    }
  }
  return { producers, steps: steps.filter((s) => included.has(s)) };
}
