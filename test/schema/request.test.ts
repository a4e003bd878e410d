/**
 * parseCalculationRequest directly (the bulk pipeline's entry point): canonical output with defaults applied,
 * every offending field, and safety with hostile objects.
 */
import { DEFAULT_POLICY } from '../../src/domain/policy.ts';
import { describe, expect, it } from 'vitest';
import { INVALID_EXAMPLES, WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { parseCalculationRequest, formatPath } from '../../src/schema/request.ts';

const minimal = () => ({
  dependency_status: 'independent',
  grade_level: 'second_year',
  terms: [{ label: 'Fall', full_time_credits: '12.0', credits_enrolled: 7.5 }],
});

describe('parseCalculationRequest', () => {
  it('applies every default and canonicalises decimals', () => {
    const r = parseCalculationRequest(minimal());
    expect(r).toEqual({
      ok: true,
      value: {
        dependency_status: 'independent',
        degree_level: 'undergraduate',
        grade_level: 'second_year',
        academic_year_terms: null,
        cost_of_attendance: null,
        is_legacy_borrower: false,
        plus_denied: false,
        // Left out: null, not "0", so the domain can warn that no subsidized eligibility was assumed (§7).
        subsidized_amount: null,
        total_limit: null,
        final_period_of_program: false,
        academic_year_credits: null,
        health_professions_program: null,
        academic_year_months: null,
        // Left out: the service's reading of every option (rules.md §10).
        policy: DEFAULT_POLICY,
        // Left out: the award year in force today; the shipped table holds only 2026-27.
        award_year: '2026-27',
        terms: [
          {
            label: 'Fall',
            full_time_credits: '12',
            credits_enrolled: '7.5',
            actual_final_credits: null,
            prior_disbursement_sub: null,
            prior_disbursement_unsub: null,
            prior_disbursement_grad_plus: null,
          },
        ],
      },
    });
  });

  it('accepts CSV-style strings for every credit and money field', () => {
    const r = parseCalculationRequest({
      ...minimal(),
      cost_of_attendance: '30000.50',
      subsidized_amount: '3500',
      total_limit: '+9500',
      terms: [
        {
          label: 'Fall',
          full_time_credits: '12',
          credits_enrolled: '6',
          actual_final_credits: '5.000',
          prior_disbursement_sub: '875.50',
          prior_disbursement_unsub: '0',
          prior_disbursement_grad_plus: '-0',
        },
      ],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.cost_of_attendance).toBe('30000.5');
    expect(r.value.total_limit).toBe('9500');
    expect(r.value.terms[0]).toMatchObject({
      actual_final_credits: '5',
      prior_disbursement_sub: '875.5',
      prior_disbursement_grad_plus: '0',
    });
  });

  it('keeps an explicit subsidized_amount 0 apart from a missing one, and rejects null', () => {
    const zero = parseCalculationRequest({ ...minimal(), subsidized_amount: 0 });
    expect(zero.ok && zero.value.subsidized_amount).toBe('0');
    const nul = parseCalculationRequest({ ...minimal(), subsidized_amount: null });
    expect(nul.ok).toBe(false);
    if (!nul.ok) expect(nul.fieldErrors.map((e) => e.field)).toEqual(['subsidized_amount']);
  });

  describe('§2.3 final_period_of_program and academic_year_credits (rules.md §8)', () => {
    const paths = (body: unknown) => {
      const r = parseCalculationRequest(body);
      return r.ok ? [] : r.fieldErrors.map((e) => e.field);
    };

    it('accepts both, canonicalising academic_year_credits', () => {
      const r = parseCalculationRequest({ ...minimal(), final_period_of_program: true, academic_year_credits: '24.0' });
      expect(r.ok && [r.value.final_period_of_program, r.value.academic_year_credits]).toEqual([true, '24']);
    });

    it('academic_year_credits is required (422 at academic_year_credits) for an undergraduate final period', () => {
      expect(paths({ ...minimal(), final_period_of_program: true })).toEqual(['academic_year_credits']);
      expect(paths({ ...minimal(), final_period_of_program: true, academic_year_credits: null })).toEqual([
        'academic_year_credits',
      ]);
      const explicitUndergraduate = { ...minimal(), degree_level: 'undergraduate', final_period_of_program: true };
      expect(paths(explicitUndergraduate)).toEqual(['academic_year_credits']);
    });

    it('is not required without the flag, nor for a graduate student (the flag is then ignored)', () => {
      expect(paths({ ...minimal(), final_period_of_program: false })).toEqual([]);
      expect(paths({ ...minimal(), academic_year_credits: null })).toEqual([]);
      const graduate = { dependency_status: 'independent', degree_level: 'graduate', terms: minimal().terms };
      expect(paths({ ...graduate, final_period_of_program: true })).toEqual([]);
    });

    it('an invalid value is a 422 even where it would be ignored', () => {
      const graduate = { dependency_status: 'independent', degree_level: 'graduate', terms: minimal().terms };
      for (const bad of [0, -1, 1000.5, '1e3', ' 24', true, '1.1234567']) {
        expect(paths({ ...graduate, academic_year_credits: bad })).toEqual(['academic_year_credits']);
        expect(paths({ ...minimal(), final_period_of_program: true, academic_year_credits: bad })).toEqual([
          'academic_year_credits',
        ]);
      }
      expect(paths({ ...minimal(), academic_year_credits: 1000 })).toEqual([]);
    });

    it('final_period_of_program is a JSON boolean, not nullable', () => {
      for (const bad of [null, 'true', 1]) {
        expect(paths({ ...minimal(), final_period_of_program: bad, academic_year_credits: 24 })).toEqual([
          'final_period_of_program',
        ]);
      }
    });
  });

  it.each(WORKED_EXAMPLES.map((e) => [e.id, e.request] as const))(
    'worked example %s is a valid request',
    (_id, body) => {
      const r = parseCalculationRequest(body);
      expect(r.ok, JSON.stringify(r)).toBe(true);
    },
  );

  it.each(INVALID_EXAMPLES.map((e) => [e.id, e] as const))('invalid example %s names every listed path', (_id, ex) => {
    const r = parseCalculationRequest(ex.request);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.fieldErrors.map((e) => e.field)).toEqual(expect.arrayContaining(ex.expected_field_paths));
  });

  it('does not mutate its input', () => {
    const input = minimal();
    const before = JSON.stringify(input);
    parseCalculationRequest(input);
    expect(JSON.stringify(input)).toBe(before);
  });

  it.each([null, [], 'x', 5, undefined])('a non-object body %j is one error', (body) => {
    const r = parseCalculationRequest(body);
    expect(r.ok).toBe(false);
  });

  it('only plain JSON objects are requests (no inherited fields)', () => {
    const proto = { plus_denied: true };
    const body = Object.assign(Object.create(proto) as object, minimal());
    expect(parseCalculationRequest(body)).toEqual({
      ok: false,
      fieldErrors: [{ field: 'body', message: 'must be a JSON object' }],
    });
    expect(parseCalculationRequest(Object.assign(Object.create(null) as object, minimal())).ok).toBe(true);
  });

  it('an own __proto__ key (as JSON.parse makes it) is an unknown field', () => {
    const body = JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(minimal()).slice(1)}`) as unknown;
    const r = parseCalculationRequest(body);
    expect(r).toEqual({ ok: false, fieldErrors: [{ field: '__proto__', message: 'is not an allowed field' }] });
  });

  it('an own __proto__ key is still seen when many terms force the bounded copy', () => {
    const terms = Array.from({ length: 30 }, () => ({ label: 'T', full_time_credits: 12, credits_enrolled: 6 }));
    const body = JSON.parse(`{"__proto__": 1, ${JSON.stringify({ ...minimal(), terms }).slice(1)}`) as unknown;
    const r = parseCalculationRequest(body);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.fieldErrors.map((f) => f.field).sort()).toEqual(['__proto__', 'terms']);
  });

  it('formats paths as terms[1].credits_enrolled', () => {
    expect(formatPath(['terms', 1, 'credits_enrolled'])).toBe('terms[1].credits_enrolled');
    expect(formatPath(['grade_level'])).toBe('grade_level');
    expect(formatPath(['terms', 0])).toBe('terms[0]');
  });
});
