/**
 * rules.md §8 "Input rules", clause by clause, through the real HTTP server: each rejection is a 422
 * validation_error naming the offending path; each acceptance is a 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseRequest, fieldPaths, postJson, startTestServer, type TestServer } from './helpers.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.close());

type Req = ReturnType<typeof baseRequest>;

/** Builds a request from the valid base with `edit` applied. */
function req(edit: (r: Req) => void): Req {
  const r = baseRequest();
  edit(r);
  return r;
}

async function expectRejected(body: unknown, paths: string[]) {
  const res = await postJson(srv.base, body);
  expect(res.status, res.text).toBe(422);
  const json = res.json as { code: string; message: string; field_errors: { field: string; message: string }[] };
  expect(json.code).toBe('validation_error');
  expect(typeof json.message).toBe('string');
  expect(fieldPaths(json)).toEqual(expect.arrayContaining(paths));
  for (const fe of json.field_errors) expect(fe.message.length).toBeGreaterThan(0);
  return json;
}

async function expectAccepted(body: unknown) {
  const res = await postJson(srv.base, body);
  expect(res.status, res.text).toBe(200);
  return res;
}

describe('§8 missing required fields', () => {
  it.each(['dependency_status', 'terms'])('%s missing → 422 at that path', async (field) => {
    const json = await expectRejected(
      req((r) => delete r[field]),
      [field],
    );
    expect(json.field_errors.find((f) => f.field === field)?.message).toBe('is required');
  });

  it.each(['label', 'full_time_credits', 'credits_enrolled'])('terms[1].%s missing → 422', async (field) => {
    await expectRejected(
      req((r) => delete r.terms[1]![field]),
      [`terms[1].${field}`],
    );
  });
});

describe('§8 wrong types', () => {
  it.each([
    ['dependency_status', 1],
    ['dependency_status', 'Dependent'],
    ['degree_level', 'doctorate'],
    ['grade_level', 'fifth_year'],
    ['terms', {}],
    ['terms', 'Fall'],
    ['is_legacy_borrower', 'true'],
    ['is_legacy_borrower', 1],
    ['plus_denied', 0],
    ['plus_denied', 'false'],
    ['subsidized_amount', true],
    ['subsidized_amount', [3500]],
    ['total_limit', { value: 5500 }],
    ['academic_year_terms', '2'],
    ['academic_year_terms', true],
  ])('%s = %j → 422', async (field, value) => {
    await expectRejected(
      req((r) => (r[field] = value)),
      [field],
    );
  });

  it.each([
    ['label', 5],
    ['label', false],
    ['full_time_credits', true],
    ['credits_enrolled', [6]],
    ['actual_final_credits', {}],
    ['prior_disbursement_unsub', false],
  ])('terms[0].%s = %j → 422', async (field, value) => {
    await expectRejected(
      req((r) => (r.terms[0]![field] = value)),
      [`terms[0].${field}`],
    );
  });

  it('a term that is not an object → 422 at terms[i]', async () => {
    await expectRejected(
      req((r) => (r.terms[1] = 'Spring' as unknown as Record<string, unknown>)),
      ['terms[1]'],
    );
  });
});

describe('§8 unknown fields', () => {
  it('a top-level typo (plus_denid) is rejected, not ignored', async () => {
    await expectRejected(
      req((r) => (r.plus_denid = true)),
      ['plus_denid'],
    );
  });

  it('an unknown field inside a term is rejected at its path', async () => {
    await expectRejected(
      req((r) => (r.terms[1]!.credit_enrolled = 9)),
      ['terms[1].credit_enrolled'],
    );
  });

  it('every unknown field is named', async () => {
    await expectRejected(
      req((r) => {
        r.foo = 1;
        r.bar = null;
        r.terms[0]!.baz = 'x';
      }),
      ['foo', 'bar', 'terms[0].baz'],
    );
  });
});

describe('§8 term count', () => {
  it('empty terms → 422 at terms', async () => {
    const json = await expectRejected(
      req((r) => (r.terms = [])),
      ['terms'],
    );
    expect(fieldPaths(json)).toEqual(['terms']);
  });

  it('more than 4 terms (no academic_year_terms) → 422 at terms', async () => {
    const term = { label: 'T', full_time_credits: 12, credits_enrolled: 6 };
    const json = await expectRejected(
      req((r) => {
        r.academic_year_terms = null;
        r.terms = [term, term, term, term, term];
      }),
      ['terms'],
    );
    expect(fieldPaths(json)).toEqual(['terms']);
  });

  it('more terms than academic_year_terms → 422 at terms', async () => {
    const json = await expectRejected(
      req((r) => {
        r.academic_year_terms = 2;
        r.terms.push({ label: 'Summer', full_time_credits: 12, credits_enrolled: 6 });
      }),
      ['terms'],
    );
    expect(fieldPaths(json)).toEqual(['terms']);
  });

  it('fewer terms than academic_year_terms is accepted (shorter loan period)', async () => {
    await expectAccepted(req((r) => (r.academic_year_terms = 4)));
  });

  it('errors inside terms are still reported alongside a count error', async () => {
    const term = { label: 'T', full_time_credits: 12, credits_enrolled: 6 };
    await expectRejected(
      req((r) => {
        r.academic_year_terms = null;
        r.terms = [term, term, term, term, { ...term, credits_enrolled: -1 }];
      }),
      ['terms', 'terms[4].credits_enrolled'],
    );
  });

  it('a hostile number of terms is bounded: one count error, a bounded error list', async () => {
    const terms = Array.from({ length: 20_000 }, () => ({}));
    const res = await postJson(
      srv.base,
      req((r) => (r.terms = terms)),
    );
    expect(res.status).toBe(422);
    const paths = fieldPaths(res.json);
    expect(paths.filter((p) => p === 'terms')).toHaveLength(1);
    expect(paths.length).toBeLessThanOrEqual(100);
  });
});

describe('§8 academic_year_terms', () => {
  it('2.5 is rejected', async () => {
    await expectRejected(
      req((r) => (r.academic_year_terms = 2.5)),
      ['academic_year_terms'],
    );
  });

  it('3.0 (as written in the JSON text) is the integer 3 and is accepted', async () => {
    const r = req((x) => (x.academic_year_terms = 3));
    const text = JSON.stringify(r).replace('"academic_year_terms":3', '"academic_year_terms":3.0');
    expect(text).toContain('"academic_year_terms":3.0');
    const a = await expectAccepted(text);
    const b = await expectAccepted(r);
    expect(a.text).toBe(b.text);
  });

  it.each([1, 5, 0, -2])('%j is outside 2 to 4 → 422', async (v) => {
    await expectRejected(
      req((r) => (r.academic_year_terms = v)),
      ['academic_year_terms'],
    );
  });

  it('null is accepted', async () => {
    await expectAccepted(req((r) => (r.academic_year_terms = null)));
  });
});

describe('§8 decimal strings', () => {
  it.each(['+.', '1e3', ' 5', '5 ', '', '.', '-', '1,000', '0x10', '1.2.3', 'NaN', 'Infinity', '١٢'])(
    '%j is rejected',
    async (s) => {
      await expectRejected(
        req((r) => (r.terms[0]!.credits_enrolled = s)),
        ['terms[0].credits_enrolled'],
      );
    },
  );

  it.each(['6', '+6', '6.', '6.0', '06', '006.000', '.5', '-0'])('%j is accepted', async (s) => {
    await expectAccepted(req((r) => (r.terms[0]!.credits_enrolled = s)));
  });

  it('a 33-character decimal string is rejected; 32 characters are accepted', async () => {
    const s33 = '6.' + '0'.repeat(31);
    const s32 = '6.' + '0'.repeat(30);
    expect(s33).toHaveLength(33);
    expect(s32).toHaveLength(32);
    await expectRejected(
      req((r) => (r.terms[0]!.credits_enrolled = s33)),
      ['terms[0].credits_enrolled'],
    );
    await expectAccepted(req((r) => (r.terms[0]!.credits_enrolled = s32)));
  });
});

describe('§8 six decimal places (both forms)', () => {
  it('7 decimals as a JSON number is rejected', async () => {
    await expectRejected(
      req((r) => (r.terms[0]!.credits_enrolled = 6.1234567)),
      ['terms[0].credits_enrolled'],
    );
  });

  it('7 decimals as a string is rejected', async () => {
    await expectRejected(
      req((r) => (r.terms[1]!.prior_disbursement_sub = '0.0000001')),
      ['terms[1].prior_disbursement_sub'],
    );
  });

  it('1.5e-7 as a JSON number is rejected', async () => {
    await expectRejected(
      req((r) => (r.terms[0]!.actual_final_credits = 1.5e-7)),
      ['terms[0].actual_final_credits'],
    );
  });

  it('"1.5000000" is 1.5 and accepted, with the same answer as 1.5', async () => {
    const a = await expectAccepted(req((r) => (r.terms[0]!.credits_enrolled = '1.5000000')));
    const b = await expectAccepted(req((r) => (r.terms[0]!.credits_enrolled = 1.5)));
    expect(a.text).toBe(b.text);
  });

  it('6 decimals are accepted', async () => {
    await expectAccepted(req((r) => (r.terms[0]!.credits_enrolled = '6.123456')));
    await expectAccepted(req((r) => (r.terms[0]!.credits_enrolled = 6.123456)));
  });

  it('an exponent in the JSON text that denotes an in-bounds value is accepted (1.2e1 is 12)', async () => {
    const text = JSON.stringify(baseRequest()).replace('"full_time_credits":12', '"full_time_credits":1.2e1');
    expect(text).toContain('1.2e1');
    const a = await expectAccepted(text);
    const b = await expectAccepted(baseRequest());
    expect(a.text).toBe(b.text);
  });
});

describe('§8 bounds', () => {
  it.each([0, '0', '-0', '0.000', -1, '-12'])('full_time_credits %j (≤ 0) is rejected', async (v) => {
    await expectRejected(
      req((r) => (r.terms[1]!.full_time_credits = v)),
      ['terms[1].full_time_credits'],
    );
  });

  it.each([
    ['credits_enrolled', -1],
    ['credits_enrolled', '-0.5'],
    ['actual_final_credits', -3],
    ['prior_disbursement_sub', -1],
    ['prior_disbursement_unsub', '-0.01'],
    ['prior_disbursement_grad_plus', -100],
  ])('negative terms[0].%s = %j is rejected', async (field, v) => {
    await expectRejected(
      req((r) => (r.terms[0]![field] = v)),
      [`terms[0].${field}`],
    );
  });

  it.each([
    ['subsidized_amount', -1],
    ['cost_of_attendance', '-5000'],
    ['total_limit', -5500],
  ])('negative %s = %j is rejected', async (field, v) => {
    await expectRejected(
      req((r) => (r[field] = v)),
      [field],
    );
  });

  it('total_limit 0 is rejected (must be > 0)', async () => {
    await expectRejected(
      req((r) => (r.total_limit = 0)),
      ['total_limit'],
    );
  });

  it('"-0" is zero and accepted where zero is allowed', async () => {
    const a = await expectAccepted(req((r) => (r.terms[0]!.prior_disbursement_sub = '-0')));
    const b = await expectAccepted(req((r) => (r.terms[0]!.prior_disbursement_sub = 0)));
    expect(a.text).toBe(b.text);
  });

  it.each([1000.000001, '1000.000001', 1001, '10000'])('credits above 1,000 (%j) are rejected', async (v) => {
    await expectRejected(
      req((r) => (r.terms[0]!.credits_enrolled = v)),
      ['terms[0].credits_enrolled'],
    );
  });

  it('credits of exactly 1,000 are accepted', async () => {
    await expectAccepted(
      req((r) => {
        r.terms[0]!.full_time_credits = 1000;
        r.terms[0]!.credits_enrolled = '1000.000';
      }),
    );
  });

  it.each([
    ['subsidized_amount', 100_000_000.01],
    ['cost_of_attendance', '100000001'],
    ['total_limit', 1e9],
  ])('money above 100,000,000 (%s = %j) is rejected', async (field, v) => {
    await expectRejected(
      req((r) => (r[field] = v)),
      [field],
    );
  });

  it('money above 100,000,000 in a term is rejected', async () => {
    await expectRejected(
      req((r) => (r.terms[0]!.prior_disbursement_sub = '100000000.5')),
      ['terms[0].prior_disbursement_sub'],
    );
  });

  it('money of exactly 100,000,000 is accepted', async () => {
    await expectAccepted(req((r) => (r.cost_of_attendance = '100000000')));
  });

  it('huge JSON numbers are rejected, never overflow', async () => {
    const text = JSON.stringify(baseRequest()).replace('"total_limit":5500', '"total_limit":1e400');
    await expectRejected(text, ['total_limit']);
    const text2 = JSON.stringify(baseRequest()).replace(
      '"subsidized_amount":3500',
      '"subsidized_amount":123456789012345678901234567890',
    );
    await expectRejected(text2, ['subsidized_amount']);
  });
});

describe('§8 nulls', () => {
  it.each(['dependency_status', 'terms', 'degree_level', 'is_legacy_borrower', 'plus_denied', 'subsidized_amount'])(
    '%s: null is not allowed',
    async (field) => {
      const json = await expectRejected(
        req((r) => (r[field] = null)),
        [field],
      );
      expect(json.field_errors.find((f) => f.field === field)?.message).toMatch(/null/);
    },
  );

  it.each(['label', 'full_time_credits', 'credits_enrolled'])('terms[0].%s: null is not allowed', async (field) => {
    await expectRejected(
      req((r) => (r.terms[0]![field] = null)),
      [`terms[0].${field}`],
    );
  });

  it('null is accepted where the interface says nullable', async () => {
    await expectAccepted(
      req((r) => {
        r.academic_year_terms = null;
        r.cost_of_attendance = null;
        r.total_limit = null;
        for (const t of r.terms) {
          t.actual_final_credits = null;
          t.prior_disbursement_sub = null;
          t.prior_disbursement_unsub = null;
          t.prior_disbursement_grad_plus = null;
        }
      }),
    );
    await expectAccepted(
      req((r) => {
        r.degree_level = 'graduate';
        r.grade_level = null;
      }),
    );
  });
});

describe('§8 grade_level for undergraduates', () => {
  it('missing for an explicit undergraduate → 422 at grade_level', async () => {
    await expectRejected(
      req((r) => delete r.grade_level),
      ['grade_level'],
    );
  });

  it('missing with degree_level defaulted → 422 at grade_level', async () => {
    await expectRejected(
      req((r) => {
        delete r.grade_level;
        delete r.degree_level;
      }),
      ['grade_level'],
    );
  });

  it('null for an undergraduate → 422 at grade_level', async () => {
    await expectRejected(
      req((r) => (r.grade_level = null)),
      ['grade_level'],
    );
  });

  it('not required for graduate or professional students', async () => {
    for (const degree of ['graduate', 'professional']) {
      await expectAccepted(
        req((r) => {
          r.degree_level = degree;
          delete r.grade_level;
        }),
      );
    }
  });
});

describe('§8 an invalid value in a field that would be ignored is still a 422', () => {
  it('grade_level invalid for a graduate student (grade_level is ignored for graduates)', async () => {
    await expectRejected(
      req((r) => {
        r.degree_level = 'graduate';
        r.grade_level = 'senior';
      }),
      ['grade_level'],
    );
  });

  it('is_legacy_borrower not a boolean for an undergraduate (ignored for undergraduates)', async () => {
    await expectRejected(
      req((r) => (r.is_legacy_borrower = 'yes')),
      ['is_legacy_borrower'],
    );
  });

  it('cost_of_attendance malformed for an undergraduate who does not need it', async () => {
    await expectRejected(
      req((r) => (r.cost_of_attendance = '12,000')),
      ['cost_of_attendance'],
    );
  });
});

describe('§8 every offending field is reported', () => {
  it('one request with many problems names each of them', async () => {
    const json = await expectRejected(
      {
        dependency_status: 'other',
        degree_level: 'undergraduate',
        academic_year_terms: 2.5,
        subsidized_amount: '-1',
        total_limit: ' 5',
        is_legacy_borrower: 'no',
        plus_denid: true,
        terms: [
          { label: 'Fall', full_time_credits: 0, credits_enrolled: '1e3' },
          { label: 7, full_time_credits: 12, credits_enrolled: 1001, prior_disbursement_sub: '0.0000001' },
        ],
      },
      [
        'dependency_status',
        'academic_year_terms',
        'subsidized_amount',
        'total_limit',
        'is_legacy_borrower',
        'plus_denid',
        'grade_level',
        'terms[0].full_time_credits',
        'terms[0].credits_enrolled',
        'terms[1].label',
        'terms[1].credits_enrolled',
        'terms[1].prior_disbursement_sub',
      ],
    );
    expect(json.field_errors).toHaveLength(12);
    expect(json.message).toBe('The request has 12 invalid fields.');
  });
});

describe('§8 final_period_of_program and academic_year_credits (rules.md §2.3)', () => {
  it('academic_year_credits is required for an undergraduate final period → 422 at academic_year_credits', async () => {
    for (const academicYearCredits of [undefined, null]) {
      const json = await expectRejected(
        req((r) => {
          r.final_period_of_program = true;
          if (academicYearCredits === null) r.academic_year_credits = null;
        }),
        ['academic_year_credits'],
      );
      expect(fieldPaths(json)).toEqual(['academic_year_credits']);
    }
  });

  it.each([0, '0', -1, 1000.5, '1e3', ' 24', 'x', true, 1.1234567])(
    'academic_year_credits %j is rejected, even where it would be ignored',
    async (v) => {
      await expectRejected(
        req((r) => {
          r.final_period_of_program = true;
          r.academic_year_credits = v;
        }),
        ['academic_year_credits'],
      );
      await expectRejected(
        req((r) => {
          r.academic_year_credits = v;
        }),
        ['academic_year_credits'],
      );
    },
  );

  it.each([null, 'true', 1, 'yes'])('final_period_of_program %j is not a boolean → 422', async (v) => {
    await expectRejected(
      req((r) => {
        r.final_period_of_program = v;
        r.academic_year_credits = 24;
      }),
      ['final_period_of_program'],
    );
  });

  it('accepted: the flag with academic_year_credits as a number or a string; a graduate needs neither', async () => {
    for (const ayc of [24, '24.0', 1000]) {
      await expectAccepted(
        req((r) => {
          r.final_period_of_program = true;
          r.academic_year_credits = ayc;
        }),
      );
    }
    const res = await expectAccepted(
      req((r) => {
        r.degree_level = 'graduate';
        r.grade_level = null;
        r.subsidized_amount = 0;
        r.final_period_of_program = true;
      }),
    );
    expect((res.json as { warnings: string[] }).warnings.join(' ')).toMatch(/final_period_of_program .*ignored/);
  });

  it('subsidized_amount: null is rejected; absent is accepted with the warning, 0 without it', async () => {
    await expectRejected(
      req((r) => {
        r.subsidized_amount = null;
      }),
      ['subsidized_amount'],
    );
    const absent = await expectAccepted(req((r) => delete r.subsidized_amount));
    const zero = await expectAccepted(
      req((r) => {
        r.subsidized_amount = 0;
      }),
    );
    const warned = (res: { json: unknown }) =>
      (res.json as { warnings: string[] }).warnings.some((w) => w.includes('no subsidized eligibility was assumed'));
    expect([warned(absent), warned(zero)]).toEqual([true, false]);
  });
});

describe('§8 a term label is 1 to 100 characters (2026-27.3)', () => {
  it('a 40,000-character label is a 422 at terms[i].label, answered at once, through JSON and the worksheet', async () => {
    const body = req((r) => {
      r.terms[1]!.label = 'A'.repeat(40_000);
    });
    const json = await expectRejected(body, ['terms[1].label']);
    expect(json.field_errors.find((e) => e.field === 'terms[1].label')?.message).toBe(
      'must be 1 to 100 characters (got 40000)',
    );
    for (const accept of ['application/pdf', 'text/html', 'application/json']) {
      const started = performance.now();
      const res = await fetch(`${srv.base}/v1/calculate/worksheet`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: accept },
        body: JSON.stringify(body),
      });
      expect(res.status, accept).toBe(422);
      await res.arrayBuffer();
      // Not a timing assertion on the service: only that nothing was laid out (a laid-out PDF took 36 s).
      expect(performance.now() - started, accept).toBeLessThan(10_000);
    }
  });

  it('an empty label is a 422; 100 characters, and 100 emoji (code points), are accepted', async () => {
    await expectRejected(
      req((r) => {
        r.terms[0]!.label = '';
      }),
      ['terms[0].label'],
    );
    await expectAccepted(
      req((r) => {
        r.terms[0]!.label = 'x'.repeat(100);
        r.terms[1]!.label = '🎓'.repeat(100);
      }),
    );
    await expectRejected(
      req((r) => {
        r.terms[0]!.label = '🎓'.repeat(101);
      }),
      ['terms[0].label'],
    );
  });
});
