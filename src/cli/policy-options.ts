/**
 * `--policy <option>=<value>` (repeatable) of `sor bulk` and `sor calculate`: the school policy (rules.md §10) of
 * the one policy table (src/domain/policy.ts). Locally the options go over SOR_POLICY; with --server they go to the
 * service as `policy.<option>=<value>` query parameters, over the service's own SOR_POLICY. A bad option is a usage
 * error naming it (exit 1), before any file is read.
 */
import { parsePolicyItems, POLICY_OPTIONS, type PolicyChoices } from '../domain/policy.ts';
import { policyParameter } from '../api/policy-query.ts';
import { UsageError } from './io.ts';

/** parseArgs option declaration of --policy. */
export const POLICY_OPTION = { policy: { type: 'string', multiple: true } } as const;

/** The usage lines of --policy, from the policy table. */
export const POLICY_USAGE =
  '  --policy OPTION=VALUE  the school policy (repeatable; rules.md §10), over SOR_POLICY:\n' +
  POLICY_OPTIONS.map((o) => `                           ${o.name}=${o.values.join('|')}\n`).join('');

/** The options the --policy flags give ({} for none); a UsageError naming the first bad one. */
export function policyFromArgs(items: readonly string[] | undefined): PolicyChoices {
  if (items === undefined || items.length === 0) return {};
  const parsed = parsePolicyItems(items);
  if (parsed.ok) return parsed.choices;
  const first = parsed.errors[0]!;
  throw new UsageError(`--policy ${first.option.slice(0, 60)} ${first.message}`);
}

/** The query parameters that ask a service for the same options. */
export function policyQueryParams(choices: PolicyChoices): [string, string][] {
  return Object.entries(choices).map(([option, value]) => [policyParameter(option), value as string]);
}
