/**
 * Identity of parseCalculationRequest (fast path for ordinary valid requests, zod for the rest) with the pure zod
 * path, parseCalculationRequestWithZod, on random bodies: valid requests of every shape, from JSON and from CSV
 * cells (strings), and mutated ones (wrong types, nulls, missing, extra and `__proto__` keys, numbers as strings,
 * exponents, too many decimals, huge values, too many terms, near-miss keys, non-plain objects, non-enumerable
 * fields). Both outcomes are compared deep-equal AND as JSON text (so the output's key order is the same too).
 * The reference is zod itself (the schema that also makes the OpenAPI document), not the fast path's own output.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEGREE_LEVELS,
  DEPENDENCY_STATUSES,
  GRADE_LEVELS,
  parseCalculationRequest,
  parseCalculationRequestWithZod,
} from '../../src/schema/request.ts';
import { parseValidRequest } from '../../src/schema/request-fast-path.ts';
import { canonicalDecimalOrNull, toCanonicalDecimal, type DecimalRule } from '../../src/schema/decimal.ts';
import { STATUTORY_LIMIT_TABLE } from '../../src/domain/limits.ts';
import { DEFAULT_POLICY, POLICY_OPTIONS } from '../../src/domain/policy.ts';
import { HEALTH_PROFESSIONS_PROGRAMS } from '../../src/domain/health-professions.ts';

type Body = Record<string, unknown>;

const RULES: DecimalRule[] = [
  { kind: 'credits', positive: false },
  { kind: 'credits', positive: true },
  { kind: 'money', positive: false },
  { kind: 'money', positive: true },
];

// ----- decimal values ---------------------------------------------------------------------------------------------

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));

/** Decimal strings near every edge of the grammar and the bounds (signs, zeros, points, places, length). */
const decimalText = fc
  .tuple(
    fc.constantFrom('', '', '', '+', '-', '++', ' '),
    fc.constantFrom('', '', '', '0', '00'),
    digits(0, 10),
    fc.constantFrom(null, null, '.'),
    digits(0, 9),
    fc.constantFrom('', '', '', '', '0', '000', 'e3', 'E-2', ' ', ',5', 'x'),
  )
  .map(([sign, zeros, int, point, frac, tail]) => sign + zeros + int + (point ?? '') + (point ? frac : '') + tail);

/** Numbers: in-bounds integers and decimals (the ordinary case) and every kind of out-of-rule value. */
const decimalNumber = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 1000 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 100_000_000 }) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 0, max: 7 }))
      .map(([units, scale]) => units / 10 ** scale),
  },
  { weight: 2, arbitrary: fc.integer({ min: -1000, max: -1 }) },
  { weight: 2, arbitrary: fc.double({ noNaN: false }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(-0, 0, 1e-7, 1.5e-6, 1e-6, 0.000001, 1e21, 1e8, 1e8 + 0.5, 1000, 1000.5, 999.999999),
  },
  { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE) },
);

const decimalValue = fc.oneof(
  { weight: 5, arbitrary: decimalNumber },
  { weight: 3, arbitrary: decimalNumber.map(String) },
  { weight: 3, arbitrary: decimalText },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('-0', '-0.000', '+0', '.', '+.', '', 'a'.repeat(33), '1'.repeat(33)) },
);

describe('canonicalDecimalOrNull (the fast path of toCanonicalDecimal)', () => {
  it('is null or exactly toCanonicalDecimal’s accepted value, for every rule (property, 100,000 values)', () => {
    let accepted = 0;
    let agreed = 0;
    fc.assert(
      fc.property(decimalValue, fc.constantFrom(...RULES), (value, rule) => {
        const fast = canonicalDecimalOrNull(value, rule);
        const reference = toCanonicalDecimal(value, rule);
        if (fast !== null) expect(reference).toEqual({ ok: true, value: fast });
        if (reference.ok) {
          accepted++;
          if (fast !== null) agreed++;
          // Everything valid is taken except a minus sign on a zero string (zod's path handles those).
          else expect(String(value).startsWith('-')).toBe(true);
        }
      }),
      { numRuns: 100_000 },
    );
    expect(agreed / accepted).toBeGreaterThan(0.95);
  });

  it('returns an already canonical string itself', () => {
    for (const s of ['12', '7.5', '0.5', '100000000', '0.000001']) {
      expect(canonicalDecimalOrNull(s, { kind: 'money', positive: false })).toBe(s);
    }
    expect(canonicalDecimalOrNull('+007.50', { kind: 'credits', positive: false })).toBe('7.5');
    expect(canonicalDecimalOrNull('-0', { kind: 'credits', positive: false })).toBeNull(); // valid: left to zod
  });
});

// ----- requests ---------------------------------------------------------------------------------------------------

/** A value that is valid for a decimal field (number or string), as JSON or a CSV cell would carry it. */
const validDecimal = (max: number, positive: boolean) =>
  fc
    .tuple(
      fc.integer({ min: positive ? 1 : 0, max: max }),
      fc.integer({ min: 0, max: 6 }),
      fc.constantFrom('number', 'string', 'padded'),
    )
    .map(([units, scale, form]) => {
      const text = (units / 10 ** scale).toFixed(scale);
      if (form === 'number') return Number(text);
      if (form === 'string') return text;
      return `+0${text}${scale > 0 ? '00' : '.0'}`;
    });

const optionalField = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });

const validTerm = fc
  .record({
    // Mostly valid labels (1 to 100 characters, rules.md §8); now and then an empty or an over-long one.
    label: fc.oneof(
      { weight: 30, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
      { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(100), 'x'.repeat(101), '😀'.repeat(100)) },
    ),
    full_time_credits: validDecimal(1000, true),
    credits_enrolled: validDecimal(1000, false),
    actual_final_credits: optionalField(fc.option(validDecimal(1000, false))),
    prior_disbursement_sub: optionalField(fc.option(validDecimal(10_000, false))),
    prior_disbursement_unsub: optionalField(fc.option(validDecimal(10_000, false))),
    prior_disbursement_grad_plus: optionalField(fc.option(validDecimal(10_000, false))),
  })
  .map(dropUndefined);

const validRequest = fc
  .record({
    dependency_status: fc.constantFrom(...DEPENDENCY_STATUSES),
    degree_level: optionalField(fc.constantFrom(...DEGREE_LEVELS)),
    grade_level: fc.option(fc.constantFrom(...GRADE_LEVELS), { nil: undefined, freq: 8 }),
    academic_year_terms: optionalField(fc.constantFrom(null, 2, 3, 4)),
    cost_of_attendance: optionalField(fc.option(validDecimal(100_000, false))),
    is_legacy_borrower: optionalField(fc.boolean()),
    plus_denied: optionalField(fc.boolean()),
    subsidized_amount: optionalField(validDecimal(10_000, false)),
    total_limit: optionalField(fc.option(validDecimal(100_000, true))),
    final_period_of_program: optionalField(fc.boolean()),
    academic_year_credits: optionalField(fc.option(validDecimal(48, true))),
    health_professions_program: optionalField(fc.option(fc.constantFrom(...HEALTH_PROFESSIONS_PROGRAMS))),
    academic_year_months: optionalField(fc.option(fc.constantFrom(9, 10, 11, 12))),
    policy: optionalField(
      fc.record(Object.fromEntries(POLICY_OPTIONS.map((o) => [o.name, fc.constantFrom(...o.values)])), {
        requiredKeys: [],
      }),
    ),
    award_year: optionalField(fc.constantFrom('2026-27', '2026-27', '2025-26', '2027-28')),
    terms: fc.array(validTerm, { minLength: 1, maxLength: 4 }),
  })
  .map((body) => {
    const out = dropUndefined(body);
    // Mostly consistent with the cross-field rules, so that most generated requests are valid.
    const terms = out.terms as unknown[];
    if (typeof out.academic_year_terms === 'number' && terms.length > out.academic_year_terms) {
      out.academic_year_terms = terms.length >= 2 ? terms.length : null;
    }
    return out;
  });

function dropUndefined(record: Record<string, unknown>): Body {
  const out: Body = {};
  for (const [k, v] of Object.entries(record)) if (v !== undefined) out[k] = v;
  return out;
}

/** Anything at all where a field is expected. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  decimalValue,
  fc.constantFrom(null, undefined, true, false, '', 'undergraduate', 'graduate', 'first_year', 'dependent', '2026-27'),
  fc.constantFrom(2, 3, 4, 3.0, 2.5, 1, 5, -3, '3', 'null', 'true'),
  fc.constantFrom([], {}, [1], { x: 1 }, new Date(0), new Map(), Object.create(null) as object),
  fc.constantFrom(new Number(5), new String('12'), new Boolean(true)), // boxed primitives
);

const REQUEST_KEYS = [
  'dependency_status',
  'terms',
  'degree_level',
  'grade_level',
  'academic_year_terms',
  'cost_of_attendance',
  'is_legacy_borrower',
  'plus_denied',
  'subsidized_amount',
  'total_limit',
  'final_period_of_program',
  'academic_year_credits',
  'health_professions_program',
  'academic_year_months',
  'policy',
  'award_year',
];
const TERM_KEYS = [
  'label',
  'full_time_credits',
  'credits_enrolled',
  'actual_final_credits',
  'prior_disbursement_sub',
  'prior_disbursement_unsub',
  'prior_disbursement_grad_plus',
];
const NEAR_MISS_KEYS = ['plus_denid', 'Terms', 'terms ', 'label ', 'constructor', 'toString', 'hasOwnProperty', 'x'];

class Student {
  constructor(fields: Body) {
    Object.assign(this, fields);
  }
}

/** One mutation of an object (the body or a term), as an in-place edit of a copy. */
type Mutation = (target: Body, keys: readonly string[]) => Body;

const edits: fc.Arbitrary<Mutation> = fc.oneof(
  // a known field set to anything (wrong type, null, undefined, number as string, exponent, huge, boxed...)
  fc.tuple(fc.nat(), anyValue).map(([i, v]): Mutation => (t, keys) => ({ ...t, [keys[i % keys.length]!]: v })),
  // a known field left out
  fc.nat().map((i): Mutation => (t, keys) => {
    const out = { ...t };
    delete out[keys[i % keys.length]!];
    return out;
  }),
  // an unknown or near-miss field
  fc.tuple(fc.constantFrom(...NEAR_MISS_KEYS), anyValue).map(
    ([k, v]): Mutation =>
      (t) =>
        Object.assign({ ...t }, JSON.parse(`{${JSON.stringify(k)}: 0}`), { [k]: v }),
  ),
  // an own `__proto__` key, as JSON.parse makes it
  anyValue.map(
    (v): Mutation =>
      (t) =>
        Object.defineProperty({ ...t }, '__proto__', {
          value: v,
          enumerable: true,
          writable: true,
          configurable: true,
        }),
  ),
  // a known field that for..in does not list (non-enumerable)
  fc.tuple(fc.nat(), anyValue).map(([i, v]): Mutation => (t, keys) => {
    const out = { ...t };
    const key = keys[i % keys.length]!;
    delete out[key];
    return Object.defineProperty(out, key, { value: v, enumerable: false });
  }),
  // the same fields in another order
  fc.nat().map((seed): Mutation => (t) => {
    const entries = Object.entries(t);
    const rotated = entries.slice(seed % (entries.length || 1)).concat(entries.slice(0, seed % (entries.length || 1)));
    return Object.fromEntries(rotated.reverse());
  }),
  // not a plain object: a class instance, a null-prototype object, an inheriting object
  fc.constantFrom<Mutation>(
    (t) => new Student(t) as Body,
    (t) => Object.assign(Object.create(null) as Body, t),
    (t) => Object.assign(Object.create({ plus_denied: true, label: 'x' }) as Body, t),
  ),
);
/** The edits apply to objects; a term already replaced by a primitive stays as it is. */
const mutation = edits.map(
  (edit): Mutation =>
    (t, keys) =>
      typeof t === 'object' && t !== null ? edit(t, keys) : t,
);

/** Term-level mutations and term-count changes, applied to the body's terms. */
const termsMutation = fc.oneof(
  fc.tuple(fc.nat(), mutation).map(([i, m]) => (terms: unknown[]) => {
    const out = [...terms];
    const j = i % out.length;
    out[j] = m(out[j] as Body, TERM_KEYS);
    return out;
  }),
  fc.tuple(fc.nat(), anyValue).map(([i, v]) => (terms: unknown[]) => {
    const out = [...terms];
    out[i % out.length] = v; // a term that is not an object
    return out;
  }),
  fc
    .constantFrom(0, 5, 16, 17, 30)
    .map((n) => (terms: unknown[]) => Array.from({ length: n }, (_, i) => terms[i % terms.length])),
  fc.constant((terms: unknown[]) => {
    const sparse = [...terms];
    sparse.length += 1; // a hole
    return sparse;
  }),
);

const mutatedRequest = fc
  .tuple(validRequest, fc.array(mutation, { maxLength: 3 }), fc.array(termsMutation, { maxLength: 2 }))
  .map(([body, mutations, termMutations]) => {
    let out: Body = body;
    for (const tm of termMutations) out = { ...out, terms: tm(out.terms as unknown[]) };
    for (const m of mutations) out = m(out, REQUEST_KEYS);
    return out;
  });

/** The bulk pipeline's body: every credit and money cell a string, empty nullable term cells null. */
const csvRequest = fc
  .tuple(validRequest, fc.array(fc.tuple(fc.nat(), fc.nat(), decimalText), { maxLength: 2 }))
  .map(([body, cells]) => {
    const strings = JSON.parse(JSON.stringify(body), (key, value: unknown) =>
      typeof value === 'number' && key !== 'academic_year_terms' && key !== 'academic_year_months'
        ? String(value)
        : value,
    ) as Body;
    for (const [t, k, text] of cells) {
      const terms = strings.terms as Body[];
      terms[t % terms.length]![TERM_KEYS[1 + (k % 6)]!] = text;
    }
    return strings;
  });

const TODAYS = [undefined, '2026-08-01', '2027-07-01', '2020-01-01'];

function compare(body: unknown, today: string | undefined): boolean {
  const options = today === undefined ? {} : { today };
  const fast = parseCalculationRequest(body, options);
  const reference = parseCalculationRequestWithZod(body, options);
  expect(fast).toStrictEqual(reference);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(reference));
  return reference.ok;
}

/** Edge values for every field, tried one field at a time on valid bodies (deterministic, exhaustive). */
const EDGE_VALUES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  1,
  2,
  3,
  4,
  5,
  2.5,
  3.0000001,
  -3,
  NaN,
  Infinity,
  1e-7,
  1e21,
  1e8,
  1e8 + 1,
  1000,
  1000.5,
  1001,
  0.000001,
  0.0000015,
  '',
  ' ',
  '0',
  '-0',
  '+0',
  '00.000',
  '1',
  '2',
  '3',
  '12',
  '12.0',
  '+12',
  '-12',
  '.5',
  '5.',
  '.',
  '1e3',
  '1E3',
  '0x10',
  'Infinity',
  'NaN',
  '1,000',
  ' 12',
  '12 ',
  '1.1234567',
  '1.1234560',
  '100000000',
  '100000000.5',
  '1000',
  '1000.0',
  '1000.01',
  '9'.repeat(33),
  'dependent',
  'independent',
  'Dependent',
  'undergraduate',
  'graduate',
  'professional',
  'first_year',
  'second_year',
  'third_year_and_beyond',
  'dentistry',
  'public_health',
  'nursing',
  9,
  11,
  12,
  12.5,
  8,
  { proration_fraction: 'decimal_rounded' },
  { remainder_placement: 'last_term', grad_plus_gap: 'before_reduction' },
  { proration_fraction: 'decimal' },
  { remainder: 'last_term' },
  { proration_fraction: null },
  'x'.repeat(100),
  'x'.repeat(101),
  '😀'.repeat(100),
  '😀'.repeat(101),
  '2026-27',
  '2025-26',
  'true',
  'null',
  [],
  [1],
  {},
  { x: 1 },
  new Date(0),
  new Number(12),
  new String('12'),
];

function bases(): Body[] {
  const term = { label: 'Fall', full_time_credits: 12, credits_enrolled: '7.5' };
  const fullTerm = {
    label: 'Spring',
    full_time_credits: '12',
    credits_enrolled: 6,
    actual_final_credits: null,
    prior_disbursement_sub: 500,
    prior_disbursement_unsub: '0',
    prior_disbursement_grad_plus: null,
  };
  return [
    { dependency_status: 'dependent', grade_level: 'first_year', terms: [term] },
    { dependency_status: 'independent', grade_level: 'second_year', academic_year_terms: 2, terms: [term, fullTerm] },
    {
      dependency_status: 'independent',
      degree_level: 'graduate',
      final_period_of_program: true,
      terms: [fullTerm, term, term, fullTerm],
    },
    {
      dependency_status: 'dependent',
      degree_level: 'undergraduate',
      grade_level: 'third_year_and_beyond',
      academic_year_terms: null,
      cost_of_attendance: '30000.50',
      is_legacy_borrower: false,
      plus_denied: true,
      subsidized_amount: 3500,
      total_limit: '9500',
      final_period_of_program: true,
      academic_year_credits: 24,
      award_year: '2026-27',
      terms: [term, term, term],
    },
  ];
}

describe('parseCalculationRequest ≡ the zod path, one field at a time', () => {
  it('every request field set to every edge value (and left out), on every base body', () => {
    for (const base of bases()) {
      expect(compare(base, undefined)).toBe(true);
      expect(parseValidRequest(base, STATUTORY_LIMIT_TABLE, undefined, DEFAULT_POLICY)).not.toBeNull(); // taken by the fast path
      for (const key of REQUEST_KEYS) {
        const without = { ...base };
        delete without[key];
        compare(without, undefined);
        for (const value of EDGE_VALUES) compare({ ...base, [key]: value }, undefined);
      }
    }
  });

  it('every term field set to every edge value (and left out), in every term position', () => {
    for (const base of bases()) {
      const terms = base.terms as Body[];
      for (let t = 0; t < terms.length; t++) {
        for (const key of TERM_KEYS) {
          const without = { ...terms[t] };
          delete without[key];
          compare({ ...base, terms: terms.map((x, i) => (i === t ? without : x)) }, undefined);
          for (const value of EDGE_VALUES) {
            compare({ ...base, terms: terms.map((x, i) => (i === t ? { ...x, [key]: value } : x)) }, undefined);
          }
        }
        for (const value of EDGE_VALUES)
          compare({ ...base, terms: terms.map((x, i) => (i === t ? value : x)) }, undefined);
      }
    }
  });
});

describe('parseCalculationRequest ≡ the zod path (property)', () => {
  it('valid requests of every shape, mostly through the fast path (40,000)', () => {
    let valid = 0;
    let fast = 0;
    fc.assert(
      fc.property(validRequest, fc.constantFrom(...TODAYS), (body, today) => {
        if (compare(body, today)) {
          valid++;
          if (parseValidRequest(body, STATUTORY_LIMIT_TABLE, today, DEFAULT_POLICY) !== null) fast++;
        }
      }),
      { numRuns: 40_000 },
    );
    expect(valid).toBeGreaterThan(20_000);
    expect(fast / valid).toBeGreaterThan(0.99); // the fast path is not a no-op
  });

  it('mutated requests: wrong types, nulls, missing, extra and __proto__ keys, non-plain objects (50,000)', () => {
    fc.assert(
      fc.property(mutatedRequest, fc.constantFrom(...TODAYS), (body, today) => {
        compare(body, today);
      }),
      { numRuns: 50_000 },
    );
  });

  it('CSV-built requests: string cells, some malformed (20,000)', () => {
    let valid = 0;
    fc.assert(
      fc.property(csvRequest, (body) => {
        if (compare(body, undefined)) valid++;
      }),
      { numRuns: 20_000 },
    );
    expect(valid).toBeGreaterThan(3_000);
  });

  it('any value at all as the body', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, fc.anything()), (body) => {
        compare(body, undefined);
      }),
      { numRuns: 2_000 },
    );
  });
});
