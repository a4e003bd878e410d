/**
 * School policy (rules.md §10, revision 2026-27.3): the choices the FSA Handbook leaves to the school "as long as
 * [it is] consistent", and the contested readings of rules.md §9 a school may have settled on its own counsel's
 * advice. ONE table: the request schema, the CSV query parameters, the CLI flag, SOR_POLICY, OpenAPI, the worksheet
 * and the page all derive their option names, values, defaults and prose from POLICY_OPTIONS.
 *
 * The default of every option is this service's reading (rules.md); a request without `policy` and one with every
 * option at its default give identical answers. Each option maps to one reading of the engine
 * (src/domain/readings.ts), so a policy is applied by calculating under `readingsForPolicy(policy)`.
 */

/** The options of rules.md §10, each with its values (default first), what it changes, and its sources. */
export const POLICY_OPTIONS = Object.freeze([
  {
    name: 'proration_fraction',
    values: ['exact', 'decimal_rounded', 'decimal_truncated'],
    section: '§2.3',
    summary: 'Final-period proration: the fraction as it is, or as a 2-decimal figure rounded or truncated.',
    description:
      'rules.md §2.3: the fraction credits ÷ academic-year credits as it is (exact, the default), or as a decimal ' +
      'with 2 places rounded half up (decimal_rounded: 24/36 → 0.67) or truncated (decimal_truncated: 0.66); the ' +
      'combined and subsidized limits are then each prorated by it and rounded half up to whole dollars.',
    choose:
      'decimal_rounded or decimal_truncated for a school whose written procedure follows the FSA Handbook’s ' +
      'printed examples, which convert the fraction to a 2-decimal figure; the Handbook allows either as long as ' +
      'the school applies it consistently.',
    citation: 'FSA Handbook 2025-26 Vol. 8 ch. 5 ("Loan Limit Proration"), examples 5, 6 and 8',
  },
  {
    name: 'remainder_placement',
    values: ['largest_remainder', 'last_term'],
    section: '§5',
    summary: 'Leftover dollars of a split: largest remainder (ties to the earlier term), or all on the last term.',
    description:
      'rules.md §1 and §5: an annual amount split over terms gives each term the floor of its exact share and the ' +
      'dollars still missing to the terms with the largest remainders, ties to the earlier term (largest_remainder, ' +
      'the default), or every leftover dollar to the last open eligible term (last_term). Both options, the ' +
      'revision and the baseline.',
    choose:
      'last_term for a school whose system or disbursement schedule puts rounding leftovers on the final ' +
      'disbursement; the largest-remainder method reproduces every published FSA example.',
    citation:
      'FSA Schedule of Reductions Q&A examples (April 2026) as relayed by project-sor at commit ' +
      '43254b1e4d12cc75e18bcbd91fa7ecf194e0a928; rules.md §9 "Remainder dollars"',
  },
  {
    name: 'single_term_basis',
    values: ['full_annual', 'half_annual'],
    section: '§3',
    summary: 'A one-term loan period: the per-term formula on the full annual amount, or on half of it.',
    description:
      'rules.md §3, for a request of exactly one term when the final-period proration does not apply: the reduced ' +
      'amounts come from the full annual amount (full_annual, FSA example 2, the default) or from half of it ' +
      '(half_annual: round_half_up(base × pct ÷ 200) for Subsidized and Unsubsidized; Grad PLUS is not halved).',
    choose:
      'half_annual for a school whose counsel follows project-sor V56/V57, which halves the annual amount for a ' +
      'single-term loan period citing an unpublished July 2026 vendor focus group.',
    citation:
      'FSA Schedule of Reductions Q&A example 2 (April 2026) and Oracle SFP (default); project-sor V56/V57 ' +
      '(half_annual); rules.md §9 "Single-term loan period"',
  },
  {
    name: 'below_half_time_credits',
    values: ['counted', 'excluded'],
    section: '§3',
    summary: 'Credits of below-half-time terms counted in the year’s sum, or left out of it.',
    description:
      'rules.md §3: the credits of terms below half time count in Σ credits(t) (counted, the default), or are left ' +
      'out of it (excluded); Σ full-time credits, the denominator, is unchanged either way.',
    choose:
      'excluded for a school that follows the older Department scenario in which a below-half-time term’s credits ' +
      'were left out of the year’s percentage.',
    citation:
      'FSA vendor focus group of 2026-04-15 as relayed by project-sor (counted); an older Department scenario ' +
      '(excluded); rules.md §9 "Below-half-time credits in the year’s sum"',
  },
  {
    name: 'grad_plus_gap',
    values: ['after_reduction', 'before_reduction'],
    section: '§2.2',
    summary: 'Grad PLUS base: cost of attendance minus the reduced, or the starting, Sub and Unsub.',
    description:
      'rules.md §2.2 item 3: the Grad PLUS base is the cost of attendance minus the reduced Subsidized and ' +
      'Unsubsidized amounts (after_reduction, the default), or minus their starting amounts before the reduction ' +
      '(before_reduction); the same total_limit cap and the reduction follow.',
    choose:
      'before_reduction for a school whose counsel reads the Grad PLUS gap as the unmet cost before the ' +
      'less-than-full-time reduction of the other Direct Loans.',
    citation:
      'Oracle SFP ("applied to the unpackaged amount: COA − higher priority aid") and project-sor (after_reduction); ' +
      'rules.md §9 "Grad PLUS base"',
  },
] as const);

export type PolicyOptionSpec = (typeof POLICY_OPTIONS)[number];
export type PolicyOptionName = PolicyOptionSpec['name'];
type ValuesOf<N extends PolicyOptionName> = Extract<PolicyOptionSpec, { name: N }>['values'][number];

/** A policy with every option resolved (the domain never sees a partial one). */
export type SchoolPolicy = { readonly [N in PolicyOptionName]: ValuesOf<N> };
/** What a request, a file's query or SOR_POLICY says: any subset of the options. */
export type PolicyChoices = { -readonly [N in PolicyOptionName]?: ValuesOf<N> };

export const POLICY_OPTION_NAMES: readonly PolicyOptionName[] = POLICY_OPTIONS.map((o) => o.name);

/** The service's readings (rules.md): every option at its first value. */
export const DEFAULT_POLICY: SchoolPolicy = Object.freeze(
  Object.fromEntries(POLICY_OPTIONS.map((o) => [o.name, o.values[0]])) as SchoolPolicy,
);

const OPTION_BY_NAME: ReadonlyMap<string, PolicyOptionSpec> = new Map(POLICY_OPTIONS.map((o) => [o.name, o]));

export function policyOption(name: string): PolicyOptionSpec | undefined {
  return OPTION_BY_NAME.get(name);
}

/** True when `value` is one of the option's values. */
export function isPolicyValue(name: PolicyOptionName, value: unknown): boolean {
  return typeof value === 'string' && (policyOption(name)!.values as readonly string[]).includes(value);
}

/** `base` with `choices` applied option by option; the result lists the options in the table's order. */
export function resolvePolicy(choices: PolicyChoices | undefined, base: SchoolPolicy = DEFAULT_POLICY): SchoolPolicy {
  if (choices === undefined) return base;
  let changed = false;
  for (const name of POLICY_OPTION_NAMES) {
    const value = choices[name];
    if (value !== undefined && value !== base[name]) changed = true;
  }
  if (!changed) return base;
  const out: Record<string, string> = {};
  for (const name of POLICY_OPTION_NAMES) out[name] = choices[name] ?? base[name];
  return Object.freeze(out) as SchoolPolicy;
}

/** The options whose value is not the default, in the table's order. */
export function nonDefaultOptions(policy: SchoolPolicy): PolicyOptionName[] {
  return POLICY_OPTION_NAMES.filter((name) => policy[name] !== DEFAULT_POLICY[name]);
}

export function isDefaultPolicy(policy: SchoolPolicy): boolean {
  return policy === DEFAULT_POLICY || nonDefaultOptions(policy).length === 0;
}

/** `proration_fraction=decimal_rounded, remainder_placement=last_term` (the non-default options, or all). */
export function policyText(policy: SchoolPolicy, which: 'non_default' | 'all' = 'non_default'): string {
  const names = which === 'all' ? POLICY_OPTION_NAMES : nonDefaultOptions(policy);
  return names.map((name) => `${name}=${policy[name]}`).join(', ');
}

/** One problem with a policy given as text (a query parameter, a CLI flag, SOR_POLICY). */
export interface PolicyTextError {
  /** The option as written (`proration_fraction`), or the whole item when it has no `=`. */
  option: string;
  message: string;
}

const allowed = (spec: PolicyOptionSpec) => `one of: ${spec.values.join(', ')}`;

/** The error for one option given as text, or null when `name=value` is valid. */
export function checkPolicyChoice(name: string, value: string): PolicyTextError | null {
  const spec = policyOption(name);
  if (spec === undefined) {
    return { option: name, message: `is not a school-policy option (options: ${POLICY_OPTION_NAMES.join(', ')})` };
  }
  if (!(spec.values as readonly string[]).includes(value)) {
    return { option: name, message: `must be ${allowed(spec)} (got ${JSON.stringify(value)})` };
  }
  return null;
}

/**
 * Parses `option=value` items (the CLI's repeated --policy, SOR_POLICY split on commas, a file's query parameters
 * with their `policy.` prefix removed): the choices, or every problem. An option given twice with different values
 * is an error (a school's policy is one value per option).
 */
export function parsePolicyItems(
  items: readonly string[],
): { ok: true; choices: PolicyChoices } | { ok: false; errors: PolicyTextError[] } {
  const choices: Record<string, string> = {};
  const errors: PolicyTextError[] = [];
  for (const raw of items) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) {
      errors.push({ option: item, message: 'must be written option=value (for example proration_fraction=exact)' });
      continue;
    }
    const name = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    const error = checkPolicyChoice(name, value);
    if (error !== null) errors.push(error);
    else if (choices[name] !== undefined && choices[name] !== value) {
      errors.push({ option: name, message: `is given twice with different values (${choices[name]}, ${value})` });
    } else choices[name] = value;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, choices: choices as PolicyChoices };
}
