/**
 * JSON numbers are judged by the text the client wrote (rules.md §1, §8; integrity issue item 6): a number a
 * double cannot hold exactly is rejected for the rule its written value breaks, and every number a double holds
 * exactly gives the same answer as its decimal string.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAY_BE_INEXACT, decimalDigits, exactJsonNumber, parseJsonExact } from '../../src/api/json-exact.ts';
import { baseRequest, fieldPaths, postJson, startTestServer, type TestServer } from './helpers.ts';

describe('decimalDigits', () => {
  it('reads sign, significant digits and the point position exactly', () => {
    expect(decimalDigits('3500')).toEqual({ negative: false, digits: '35', point: 4 });
    expect(decimalDigits('-0.00120')).toEqual({ negative: true, digits: '12', point: -2 });
    expect(decimalDigits('1.5e-7')).toEqual({ negative: false, digits: '15', point: -6 });
    expect(decimalDigits('1E+21')).toEqual({ negative: false, digits: '1', point: 22 });
    expect(decimalDigits('-0')).toEqual({ negative: false, digits: '', point: 0 });
    expect(decimalDigits('Infinity')).toBeNull();
  });
});

describe('exactJsonNumber', () => {
  it('keeps a number whose text a double holds exactly', () => {
    expect(exactJsonNumber(10.5, '10.5')).toBe(10.5);
    expect(exactJsonNumber(10.5, '10.50000')).toBe(10.5);
    expect(exactJsonNumber(1000, '1e3')).toBe(1000);
    expect(exactJsonNumber(1.5e-7, '1.5e-7')).toBe(1.5e-7);
  });

  it('replaces an inexact number by one that breaks the same rule', () => {
    // 3500.0000000000001 parses to 3500: its written value has 13 decimal places.
    expect(exactJsonNumber(3500, '3500.0000000000001')).toBe(1e-7);
    // 1e-400 parses to 0: 400 decimal places.
    expect(exactJsonNumber(0, '1e-400')).toBe(1e-7);
    expect(exactJsonNumber(-0, '-1e-400')).toBe(-1e-7);
    // 12345678901234567890 parses to 12345678901234567000: an integer part beyond every bound.
    expect(exactJsonNumber(12345678901234567000, '12345678901234567890')).toBe(1e21);
    expect(exactJsonNumber(-12345678901234567000, '-12345678901234567890')).toBe(-1e21);
  });

  it('every in-bounds value with at most 6 decimals is exact, so it is kept (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 0, max: 999_999 }), (int, frac) => {
        const text = `${int}.${String(frac).padStart(6, '0')}`;
        const value = Number(text);
        expect(exactJsonNumber(value, text)).toBe(value);
      }),
      { numRuns: 5000 },
    );
  });

  it('parseJsonExact judges every number as exactJsonNumber does, fast path or not (property)', () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
    const numberText = fc
      .tuple(
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        digits(0, 24),
        fc.option(digits(1, 24)),
        fc.option(fc.integer({ min: -400, max: 400 })),
      )
      .map(([neg, lead, rest, frac, exp]) => {
        const int = lead === 0 ? '0' : `${lead}${rest}`;
        return `${neg ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `e${exp}`}`;
      });
    fc.assert(
      fc.property(numberText, (text) => {
        const parsed = parseJsonExact(`{"label":"x","value":${text}}`) as { value: number };
        expect(parsed.value).toBe(exactJsonNumber(Number(text), text));
      }),
      { numRuns: 5000 },
    );
  });

  it('the pre-check flags exactly the texts with 7 decimals, 10 integer digits or an exponent (property)', () => {
    // The shapes an inexact number must have (see the module's comment), written plainly: the pre-check must find
    // every one of them, and find nothing else.
    const spec = /\.\d{7}|\d{10}|\d[eE]/;
    const text = fc
      .array(fc.constantFrom(...'0123456789.eE-+ "x,:'.split(''), '1234567', '123456789', '0.000000'), {
        maxLength: 40,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(text, fc.string()), (t) => {
        expect(MAY_BE_INEXACT.test(t)).toBe(spec.test(t));
      }),
      { numRuns: 20_000 },
    );
    for (const t of ['1.1234567', '1234567890', '1e5', '2E-3', '"x1e"']) expect(MAY_BE_INEXACT.test(t)).toBe(true);
    for (const t of ['1.123456', '123456789', 'e5', '.e5', '{"a":12}']) expect(MAY_BE_INEXACT.test(t)).toBe(false);
  });

  it('parseJsonExact applies it to every number of a document, nested ones included', () => {
    expect(parseJsonExact('{"a":[1,2.5,{"b":3500.0000000000001}],"c":"3500.0000000000001"}')).toEqual({
      a: [1, 2.5, { b: 1e-7 }],
      c: '3500.0000000000001',
    });
  });
});

describe('POST /v1/calculate judges what the client wrote', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.close();
  });

  function withRaw(replacements: Record<string, string>): string {
    let text = JSON.stringify(baseRequest());
    for (const [from, to] of Object.entries(replacements)) text = text.replace(from, to);
    return text;
  }

  it('3500.0000000000001 and 1e-400 are 422 at their paths, like their decimal-string forms', async () => {
    const raw = withRaw({ '"subsidized_amount":3500': '"subsidized_amount":3500.0000000000001' }).replace(
      '"credits_enrolled":6',
      '"credits_enrolled":1e-400',
    );
    const res = await postJson(srv.base, raw);
    expect(res.status).toBe(422);
    expect(fieldPaths(res.json).sort()).toEqual(['subsidized_amount', 'terms[0].credits_enrolled']);
    const asStrings = await postJson(
      srv.base,
      withRaw({ '"subsidized_amount":3500': '"subsidized_amount":"3500.0000000000001"' }),
    );
    expect(asStrings.status).toBe(422);
    expect(fieldPaths(asStrings.json)).toEqual(['subsidized_amount']);
    const messages = (res.json as { field_errors: { field: string; message: string }[] }).field_errors;
    expect(messages.every((f) => f.message === 'must have at most 6 decimal places')).toBe(true);
  });

  it('an integer part beyond every bound, written with more digits than a double holds, is 422', async () => {
    const res = await postJson(srv.base, withRaw({ '"total_limit":5500': '"total_limit":12345678901234567890' }));
    expect(res.status).toBe(422);
    expect(fieldPaths(res.json)).toEqual(['total_limit']);
  });

  it('exact numbers in any notation give the same answer as their strings (FSA example 1: Fall sub 1,103)', async () => {
    const plain = await postJson(srv.base, baseRequest());
    const exponent = await postJson(srv.base, withRaw({ '"subsidized_amount":3500': '"subsidized_amount":3.5e3' }));
    const padded = await postJson(srv.base, withRaw({ '"subsidized_amount":3500': '"subsidized_amount":3500.000' }));
    expect(plain.status).toBe(200);
    expect(exponent.text).toBe(plain.text);
    expect(padded.text).toBe(plain.text);
    const result = plain.json as { terms: { equal: { subsidized: number } }[] };
    expect(result.terms[0]?.equal.subsidized).toBe(1103);
  });
});
