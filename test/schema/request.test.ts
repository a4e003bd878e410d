/**
 * parseCalculationRequest directly (the bulk pipeline's entry point): canonical output with defaults applied,
 * every offending field, and safety with hostile objects.
 */
import { describe, expect, it } from 'vitest';
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
        subsidized_amount: '0',
        total_limit: null,
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
