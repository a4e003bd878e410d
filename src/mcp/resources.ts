/**
 * The MCP server's resources: the reference data an assistant can read before it asks or answers, each derived
 * from the one table that holds it (never a copy):
 *
 *   sor://readings   the readings of the regulation the engine takes (src/domain/readings.ts), the other readings
 *                    the shadow check tries, and what each reason means (src/domain/check-reasons.ts)
 *   sor://policy     the school-policy options (src/domain/policy.ts) and the policy this deployment applies when a
 *                    request gives none (SOR_POLICY over the service's readings)
 *   sor://limits     the statutory annual limits by award year, each row with its effective date and citation
 *                    (src/domain/limits.ts)
 *   sor://examples   the worked examples with their expected figures (the shipped copy of the spec's examples.json)
 */
import { WORKED_EXAMPLES, EXAMPLES_ABOUT } from '../api/openapi/worked-examples.ts';
import { CHECK_POLICY_TEXT, CHECK_REASON_TEXT } from '../domain/check-reasons.ts';
import { STATUTORY_LIMIT_TABLE } from '../domain/limits.ts';
import { DEFAULT_POLICY, POLICY_OPTIONS, type SchoolPolicy } from '../domain/policy.ts';
import {
  CHECK_REASONS,
  REASON_CHANGES,
  SERVICE_READINGS,
  type ReadingReason,
  type Readings,
} from '../domain/readings.ts';
import { RULE_SET_ID } from '../domain/rule-set.ts';

export interface ResourceSpec {
  name: string;
  uri: string;
  title: string;
  description: string;
  /** The resource's JSON (the deployment's default policy changes sor://policy). */
  read(policy: SchoolPolicy): unknown;
}

/** Each reading of the engine: the service's value, and every other value a shadow-check reason tries. */
function readingsTable() {
  return (Object.keys(SERVICE_READINGS) as (keyof Readings)[]).map((reading) => {
    const alternatives: { value: string; tried_by: ReadingReason }[] = [];
    for (const [reason, changes] of Object.entries(REASON_CHANGES) as [ReadingReason, readonly Partial<Readings>[]][]) {
      for (const change of changes) {
        const value = change[reading];
        if (value !== undefined && value !== SERVICE_READINGS[reading]) alternatives.push({ value, tried_by: reason });
      }
    }
    return { reading, service: SERVICE_READINGS[reading], alternatives };
  });
}

export const RESOURCES: readonly ResourceSpec[] = [
  {
    name: 'readings',
    uri: 'sor://readings',
    title: 'Readings of the regulation',
    description:
      'Where sources and school systems read the Schedule of Reductions differently: the reading this service ' +
      'takes for each question, the other readings, and the shadow check’s reasons (what each one reproduces).',
    read: () => ({
      rule_set: RULE_SET_ID,
      readings: readingsTable(),
      check_reasons: CHECK_REASONS.map((reason) => ({
        reason,
        figures_equal_ours_computed_with: CHECK_REASON_TEXT[reason],
        changes: (REASON_CHANGES as Partial<Record<string, readonly Partial<Readings>[]>>)[reason] ?? [],
      })),
      policy: CHECK_POLICY_TEXT,
    }),
  },
  {
    name: 'policy',
    uri: 'sor://policy',
    title: 'School policy options',
    description:
      'The choices the rules leave to the school (rules.md §10): each option with its values (default first), ' +
      'what it changes, when a school would choose another value and its source; and the policy this deployment ' +
      'applies to a request that gives none.',
    read: (policy) => ({
      rule_set: RULE_SET_ID,
      options: POLICY_OPTIONS.map((o) => ({ ...o, default: o.values[0] })),
      service_default: { ...DEFAULT_POLICY },
      deployment_default: { ...policy },
    }),
  },
  {
    name: 'limits',
    uri: 'sor://limits',
    title: 'Statutory annual loan limits by award year',
    description:
      'The annual Direct Subsidized and combined limits (and Grad PLUS rule) for each kind of student, by award ' +
      'year, each row with the date it took effect, its citation and references.',
    read: () => ({ rule_set: RULE_SET_ID, award_years: STATUTORY_LIMIT_TABLE }),
  },
  {
    name: 'examples',
    uri: 'sor://examples',
    title: 'Worked examples',
    description:
      'Published worked examples (FSA Q&A, FSA Handbook, school pages) with their exact requests and expected ' +
      'figures: what a correct calculation gives, to compare with or to start a request from.',
    read: () => ({ about: EXAMPLES_ABOUT, examples: WORKED_EXAMPLES }),
  },
];
