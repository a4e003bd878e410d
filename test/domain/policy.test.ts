/**
 * The school-policy table (rules.md §10, src/domain/policy.ts): the options and defaults of the spec, option=value
 * parsing for the text doors (query parameters, the CLI, SOR_POLICY), resolution over a base, and the table's copy
 * in docs/readings-and-policy.md.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POLICY,
  POLICY_OPTIONS,
  checkPolicyChoice,
  isDefaultPolicy,
  nonDefaultOptions,
  parsePolicyItems,
  policyText,
  resolvePolicy,
} from '../../src/domain/policy.ts';
import { SPEC_RULES_FILE } from '../support/spec.ts';

describe('the policy table', () => {
  it('has the five options of rules.md §10 with their values, the default first', () => {
    expect(POLICY_OPTIONS.map((o) => [o.name, [...o.values]])).toEqual([
      ['proration_fraction', ['exact', 'decimal_rounded', 'decimal_truncated']],
      ['remainder_placement', ['largest_remainder', 'last_term']],
      ['single_term_basis', ['full_annual', 'half_annual']],
      ['below_half_time_credits', ['counted', 'excluded']],
      ['grad_plus_gap', ['after_reduction', 'before_reduction']],
    ]);
    expect(DEFAULT_POLICY).toEqual({
      proration_fraction: 'exact',
      remainder_placement: 'largest_remainder',
      single_term_basis: 'full_annual',
      below_half_time_credits: 'counted',
      grad_plus_gap: 'after_reduction',
    });
  });

  it.runIf(SPEC_RULES_FILE !== undefined)('is the table of rules.md §10, option for option', () => {
    const rules = readFileSync(SPEC_RULES_FILE!, 'utf8');
    const section = rules.slice(rules.indexOf('## 10.'));
    const rows = section
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.split(' | '));
    expect(rows.map((r) => r[0]!.replace(/^\| `|`$/g, ''))).toEqual(POLICY_OPTIONS.map((o) => o.name));
    rows.forEach((r, i) => {
      const values = [...r[1]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
      expect(values).toEqual([...POLICY_OPTIONS[i]!.values]);
    });
  });

  it('every option says what it changes, when a school would choose it, and its source', () => {
    for (const o of POLICY_OPTIONS) {
      expect(o.description.length, o.name).toBeGreaterThan(40);
      expect(o.choose.length, o.name).toBeGreaterThan(40);
      expect(o.citation, o.name).toMatch(/FSA|rules\.md|Oracle|project-sor/);
    }
  });

  it('the table of docs/readings-and-policy.md is this one, row for row', () => {
    const readme = readFileSync(new URL('../../docs/readings-and-policy.md', import.meta.url), 'utf8');
    const start = readme.indexOf('| Option | Values (default first) |');
    expect(start).toBeGreaterThan(0);
    const rows = readme
      .slice(start)
      .split('\n')
      .slice(2)
      .filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('|')));
    expect(rows).toEqual(
      POLICY_OPTIONS.map(
        (o) =>
          `| \`${o.name}\` | ${o.values.map((v) => `\`${v}\``).join(', ')} | ${o.description} | ${o.choose} | ` +
          `${o.citation} |`,
      ),
    );
  });
});

describe('resolvePolicy', () => {
  it('no choices, or every option at its default, is the default policy itself', () => {
    expect(resolvePolicy(undefined)).toBe(DEFAULT_POLICY);
    expect(resolvePolicy({})).toBe(DEFAULT_POLICY);
    expect(resolvePolicy({ ...DEFAULT_POLICY })).toBe(DEFAULT_POLICY);
  });

  it("applies the request's options over the base, option by option, in the table's order", () => {
    const base = resolvePolicy({ proration_fraction: 'decimal_rounded', remainder_placement: 'last_term' });
    const policy = resolvePolicy({ remainder_placement: 'largest_remainder', grad_plus_gap: 'before_reduction' }, base);
    expect(Object.entries(policy)).toEqual([
      ['proration_fraction', 'decimal_rounded'],
      ['remainder_placement', 'largest_remainder'],
      ['single_term_basis', 'full_annual'],
      ['below_half_time_credits', 'counted'],
      ['grad_plus_gap', 'before_reduction'],
    ]);
    expect(nonDefaultOptions(policy)).toEqual(['proration_fraction', 'grad_plus_gap']);
    expect(policyText(policy)).toBe('proration_fraction=decimal_rounded, grad_plus_gap=before_reduction');
    expect(isDefaultPolicy(policy)).toBe(false);
    expect(Object.isFrozen(policy)).toBe(true);
  });
});

describe('option=value text (query parameters, --policy, SOR_POLICY)', () => {
  it('parses valid items, ignoring blanks and spaces around them', () => {
    expect(
      parsePolicyItems(['proration_fraction=decimal_truncated', ' ', ' single_term_basis = half_annual ']),
    ).toEqual({ ok: true, choices: { proration_fraction: 'decimal_truncated', single_term_basis: 'half_annual' } });
  });

  it('names every problem: an unknown option, a value outside the table, no "=", a contradiction', () => {
    const outcome = parsePolicyItems([
      'remainder=last_term',
      'proration_fraction=decimal',
      'excluded',
      'grad_plus_gap=before_reduction',
      'grad_plus_gap=after_reduction',
    ]);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.errors.map((e) => e.option)).toEqual([
      'remainder',
      'proration_fraction',
      'excluded',
      'grad_plus_gap',
    ]);
    expect(outcome.errors[0]!.message).toContain('is not a school-policy option');
    expect(outcome.errors[1]!.message).toBe(
      'must be one of: exact, decimal_rounded, decimal_truncated (got "decimal")',
    );
    expect(outcome.errors[2]!.message).toContain('option=value');
    expect(outcome.errors[3]!.message).toContain('given twice');
  });

  it('checkPolicyChoice accepts exactly the values of the table', () => {
    for (const o of POLICY_OPTIONS) {
      for (const v of o.values) expect(checkPolicyChoice(o.name, v)).toBeNull();
      expect(checkPolicyChoice(o.name, o.values[0].toUpperCase())).not.toBeNull();
    }
  });
});
