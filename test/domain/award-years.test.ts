/**
 * Award years: the limit table is keyed by award year, the request names one (`award_year`,
 * a CSV column of the same name) or gets the one in force today, and a new award year is one data change.
 *
 * A fictitious 2027-28 is added here, in the test (never in the shipped table), with figures that differ from
 * rules.md §2.1: dependent first year 3,700 / 5,800, graduate 21,000. Expected 2026-27 dollars come from
 * examples.json and rules.md §2.1; expected 2027-28 dollars are worked by hand from those fictitious figures.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHeader, validateStudentRows } from '../../src/bulk/csv-layout.ts';
import { calculate } from '../../src/domain/calculate.ts';
import {
  type LimitTable,
  STATUTORY_LIMIT_TABLE,
  awardYear,
  awardYearOn,
  awardYearStart,
  lookupStatutoryLimit,
} from '../../src/domain/limits.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { awardYearsPhrase, limitTableMarkdown } from '../../src/api/openapi/limits-prose.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import { todayUtc } from '../../src/schema/award-year.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';
import { type TestServer, baseRequest, postJson, startTestServer } from '../api/helpers.ts';
import { parseOutput, runToString } from '../bulk/helpers.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';

const shipped = STATUTORY_LIMIT_TABLE[0]!;

/** 2027-28 (fictitious): the shipped rows, with three figures changed and the effective date of the change. */
const FICTITIOUS_2027_28 = awardYear(
  '2027-28',
  shipped.rows.map((r) => {
    if (r.id === 'ug-dep-1') return { ...r, subsidizedMax: '3700', combinedMax: '5800', effective: '2027-07-01' };
    if (r.id === 'grad') return { ...r, combinedMax: '21000', effective: '2027-07-01' };
    return r; // unchanged figures keep the date they took effect
  }),
);
const EXTENDED: LimitTable = [...STATUTORY_LIMIT_TABLE, FICTITIOUS_2027_28];

function parseOk(body: unknown, options: Parameters<typeof parseCalculationRequest>[1] = {}) {
  const parsed = parseCalculationRequest(body, options);
  if (!parsed.ok) throw new Error(`expected a valid request: ${JSON.stringify(parsed.fieldErrors)}`);
  return parsed.value;
}

function annual(result: ReturnType<typeof calculate>): [number, number, number, number] {
  return [
    result.reduced_annual_pct,
    result.annual_basic_eligibility_sub,
    result.annual_basic_eligibility_unsub,
    result.annual_basic_eligibility_grad_plus,
  ];
}

/** A dependent first-year undergraduate with 9 + 12 of 24 credits (87.5% → 88%) and need above any sub max. */
const dependentFirstYear = (extra: Record<string, unknown> = {}) => ({
  dependency_status: 'dependent',
  grade_level: 'first_year',
  subsidized_amount: 5000,
  terms: [
    { label: 'Fall', full_time_credits: 12, credits_enrolled: 9 },
    { label: 'Spring', full_time_credits: 12, credits_enrolled: 12 },
  ],
  ...extra,
});

describe('the shipped table', () => {
  it('holds 2026-27 from July 1, 2026, every row dated and referenced with links', () => {
    expect(STATUTORY_LIMIT_TABLE.map((y) => [y.awardYear, y.start])).toEqual([['2026-27', '2026-07-01']]);
    for (const row of shipped.rows) {
      expect(row.awardYear).toBe('2026-27');
      expect(row.effective <= shipped.start).toBe(true);
      expect(row.references.length).toBeGreaterThan(0);
      for (const ref of row.references) {
        expect(ref.title).not.toBe('');
        expect(ref.href).toMatch(/^https:\/\/[a-z0-9.-]+\/\S+$/);
      }
    }
  });

  it('reads an award year id as its July 1 start and refuses anything else', () => {
    expect(awardYearStart('2026-27')).toBe('2026-07-01');
    expect(awardYearStart('2099-00')).toBe('2099-07-01');
    for (const bad of ['2026-28', '2026-2027', '26-27', '2026/27', ' 2026-27', ''])
      expect(awardYearStart(bad)).toBeNull();
    expect(() => awardYear('2026-2027', [])).toThrow();
  });
});

describe('a fictitious 2027-28 added to the table', () => {
  it('leaves every 2026-27 result unchanged (all worked examples, figures as published)', () => {
    for (const example of WORKED_EXAMPLES) {
      const input = parseOk({ ...example.request, award_year: '2026-27' }, { table: EXTENDED });
      expect(input.award_year).toBe('2026-27');
      const withNewYear = calculate(input, EXTENDED);
      expect(withNewYear).toEqual(calculate(input));
      const e = example.expected;
      expect(annual(withNewYear), example.id).toEqual([
        e.reduced_annual_pct,
        e.annual_basic_eligibility_sub,
        e.annual_basic_eligibility_unsub,
        e.annual_basic_eligibility_grad_plus,
      ]);
    }
  });

  it('2026-27 keeps rules.md §2.1: 3,500 / 5,500 for a dependent first year; 20,500 for a graduate', () => {
    // 88% of sub 3,500 = 3,080 and of unsub 5,500 − 3,500 = 2,000 → 1,760.
    const r = calculate(parseOk(dependentFirstYear({ award_year: '2026-27' }), { table: EXTENDED }), EXTENDED);
    expect(annual(r)).toEqual([88, 3080, 1760, 0]);
    const grad = parseOk(
      {
        ...dependentFirstYear(),
        degree_level: 'graduate',
        grade_level: null,
        subsidized_amount: 0,
        award_year: '2026-27',
      },
      { table: EXTENDED },
    );
    // 88% of 20,500 = 18,040.
    expect(annual(calculate(grad, EXTENDED))).toEqual([88, 0, 18040, 0]);
  });

  it('2027-28 uses the new figures: 3,700 / 5,800 for a dependent first year; 21,000 for a graduate', () => {
    // 88% of sub 3,700 = 3,256 and of unsub 5,800 − 3,700 = 2,100 → 1,848.
    const r = calculate(parseOk(dependentFirstYear({ award_year: '2027-28' }), { table: EXTENDED }), EXTENDED);
    expect(annual(r)).toEqual([88, 3256, 1848, 0]);
    expect(r.warnings.join(' ')).toContain('statutory subsidized maximum of $3,700');
    const grad = parseOk(
      {
        ...dependentFirstYear(),
        degree_level: 'graduate',
        grade_level: null,
        subsidized_amount: 0,
        award_year: '2027-28',
      },
      { table: EXTENDED },
    );
    // 88% of 21,000 = 18,480.
    expect(annual(calculate(grad, EXTENDED))).toEqual([88, 0, 18480, 0]);
    // A row whose figures did not change is the same figures, still dated when they took effect.
    const key = {
      degree: 'professional',
      dependency: 'independent',
      plusDenied: false,
      grade: null,
      legacy: false,
    } as const;
    const prof26 = lookupStatutoryLimit({ ...key, awardYear: '2026-27' }, EXTENDED);
    const prof27 = lookupStatutoryLimit({ ...key, awardYear: '2027-28' }, EXTENDED);
    expect([prof27.awardYear, prof27.combinedMax, prof27.effective]).toEqual(['2027-28', '50000', '2026-07-01']);
    expect(prof26.awardYear).toBe('2026-27');
  });

  it('the default is the newest award year started by the given day (UTC date), taken at the schema', () => {
    const request = dependentFirstYear();
    expect(parseOk(request, { table: EXTENDED, today: '2027-06-30' }).award_year).toBe('2026-27');
    expect(parseOk(request, { table: EXTENDED, today: '2027-07-01' }).award_year).toBe('2027-28');
    expect(parseOk(request, { table: EXTENDED, today: '2031-01-15' }).award_year).toBe('2027-28');
    // Before the first award year (a wrong clock): the table's first award year.
    expect(parseOk(request, { table: EXTENDED, today: '2025-12-31' }).award_year).toBe('2026-27');
    expect(awardYearOn('2027-07-01', EXTENDED)).toBe('2027-28');
    // A named award year wins over the date.
    expect(parseOk({ ...request, award_year: '2026-27' }, { table: EXTENDED, today: '2030-01-01' }).award_year).toBe(
      '2026-27',
    );
  });
});

describe('today, for the default', () => {
  it('is the UTC date, and follows the clock across midnight in both directions', () => {
    expect(todayUtc(Date.UTC(2027, 5, 30, 23, 59, 59, 999))).toBe('2027-06-30');
    expect(todayUtc(Date.UTC(2027, 6, 1, 0, 0, 0, 0))).toBe('2027-07-01');
    expect(todayUtc(Date.UTC(2027, 6, 1, 23, 0, 0, 0))).toBe('2027-07-01');
    expect(todayUtc(Date.UTC(2027, 5, 30, 12, 0, 0, 0))).toBe('2027-06-30');
    expect(todayUtc(Date.UTC(2028, 1, 29, 1, 0, 0, 0))).toBe('2028-02-29');
    expect(todayUtc()).toBe(new Date().toISOString().slice(0, 10));
  });
});

describe('award_year in a request', () => {
  it('an award year the table does not hold is an error at award_year listing the supported ones', () => {
    for (const value of ['2027-28', '2025-26', '2026-2027', '']) {
      const parsed = parseCalculationRequest(dependentFirstYear({ award_year: value }));
      expect(parsed.ok).toBe(false);
      if (parsed.ok) continue;
      expect(parsed.fieldErrors).toEqual([
        { field: 'award_year', message: 'must be an award year this service holds limits for: 2026-27' },
      ]);
    }
    const withNewYear = parseCalculationRequest(dependentFirstYear({ award_year: '2025-26' }), { table: EXTENDED });
    expect(withNewYear.ok ? [] : withNewYear.fieldErrors.map((e) => e.message)).toEqual([
      'must be an award year this service holds limits for: 2026-27, 2027-28',
    ]);
  });

  it('a value that is not a string is an error at award_year; null is not allowed', () => {
    for (const value of [2026, null, true, ['2026-27']]) {
      const parsed = parseCalculationRequest(dependentFirstYear({ award_year: value }));
      expect(parsed.ok ? [] : parsed.fieldErrors.map((e) => e.field)).toEqual(['award_year']);
    }
  });

  it('is reported together with the other offending fields', () => {
    const parsed = parseCalculationRequest(dependentFirstYear({ award_year: '1999-00', plus_denid: true }));
    expect(parsed.ok ? [] : parsed.fieldErrors.map((e) => e.field).sort()).toEqual(['award_year', 'plus_denid']);
  });
});

describe('award_year over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('"2026-27" gives the same bytes as leaving it out (FSA example 1: 63%, 2,205 / 1,260)', async () => {
    const named = await postJson(server.base, { ...baseRequest(), award_year: '2026-27' });
    const left = await postJson(server.base, baseRequest());
    expect(named.status).toBe(200);
    expect(named.text).toBe(left.text);
    const body = named.json as { reduced_annual_pct: number; annual_basic_eligibility_sub: number };
    expect([body.reduced_annual_pct, body.annual_basic_eligibility_sub]).toEqual([63, 2205]);
  });

  it('an unknown award year is a 422 at award_year that lists the supported ones', async () => {
    const res = await postJson(server.base, { ...baseRequest(), award_year: '2027-28' });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      code: 'validation_error',
      message: 'The request has 1 invalid field.',
      field_errors: [{ field: 'award_year', message: 'must be an award year this service holds limits for: 2026-27' }],
    });
  });
});

describe('the award_year CSV column', () => {
  const header = 'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,award_year';
  const layout = readHeader(header.split(','));
  const student = (year: string, laterYear = '') => [
    ['S1', 'Fall', '12', '9', 'dependent', 'first_year', year],
    ['S1', 'Spring', '12', '12', '', '', laterYear],
  ];

  it('is a student-level column: named, empty (the default), or repeated on every row', () => {
    for (const [rows, expected] of [
      [student('2026-27'), '2026-27'],
      [student(''), '2026-27'],
      [student('2026-27', '2026-27'), '2026-27'],
    ] as const) {
      const v = validateStudentRows(rows, [2, 3], layout);
      expect(v.ok ? v.input.award_year : v.errors).toEqual(expected);
    }
  });

  it('an unknown award year or a contradicting later row is an error naming the column', () => {
    const unknown = validateStudentRows(student('2030-31'), [2, 3], layout);
    expect(unknown.ok ? [] : unknown.errors).toEqual([
      { row: 0, field: 'award_year', message: 'must be an award year this service holds limits for: 2026-27' },
    ]);
    const contradicting = validateStudentRows(student('2026-27', '2027-28'), [2, 3], layout);
    expect(contradicting.ok ? [] : contradicting.errors.map((e) => [e.row, e.field])).toEqual([[1, 'award_year']]);
  });

  it('the bulk pipeline echoes the column and turns an unknown award year into error rows', async () => {
    const csv =
      'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,academic_year_terms,' +
      'subsidized_amount,total_limit,award_year\n' +
      'A,Fall,12,6,dependent,first_year,2,3500,5500,2026-27\nA,Spring,12,9,,,,,,\n' +
      'B,Fall,12,6,dependent,first_year,2,3500,5500,2030-31\nB,Spring,12,9,,,,,,\n';
    const { text } = await runToString(csv, createInlineRunner());
    const rows = parseOutput(text);
    // FSA example 1 for A (63%: 2,205 / 1,260); B is two error rows naming the column.
    expect(rows.map((r) => [r.student_id, r.award_year, r.row_status, r.error_field])).toEqual([
      ['A', '2026-27', 'ok', ''],
      ['A', '', 'ok', ''],
      ['B', '2030-31', 'error', 'award_year'],
      ['B', '', 'error', ''],
    ]);
    expect([rows[0]!.reduced_annual_pct, rows[0]!.annual_basic_eligibility_sub]).toEqual(['63', '2205']);
    expect(rows[2]!.error_message).toBe('award_year: must be an award year this service holds limits for: 2026-27');
  });
});

describe('the OpenAPI document shows the table', () => {
  it('its prose follows the table: a new award year appears with its own figures', () => {
    const prose = limitTableMarkdown(EXTENDED);
    expect(prose).toContain('**Award year 2026-27** (from 2026-07-01;');
    expect(prose).toContain('**Award year 2027-28** (from 2027-07-01;');
    expect(prose).toContain('| Undergraduate, dependent, first year | $3,700 | $5,800 | none | 2027-07-01 |');
    expect(prose).toContain('| Graduate, not legacy | $0 | $21,000 | none | 2027-07-01 |');
    expect(awardYearsPhrase(EXTENDED)).toBe('award years 2026-27, 2027-28');
    expect(awardYearsPhrase()).toBe('award year 2026-27');
  });

  const text = JSON.stringify(buildOpenApiDocument());

  it('with every figure, effective date, citation and link of every row, and award_year as a field', () => {
    for (const row of shipped.rows) {
      expect(text).toContain(JSON.stringify(row.citation).slice(1, -1));
      for (const ref of row.references) expect(text).toContain(`](${ref.href})`);
    }
    // rules.md §2.1, written out here: the figures appear as dollars in the generated table.
    for (const figure of [
      '$3,500',
      '$4,500',
      '$5,500',
      '$6,500',
      '$7,500',
      '$9,500',
      '$10,500',
      '$12,500',
      '$20,500',
      '$50,000',
    ]) {
      expect(text).toContain(`| ${figure} |`);
    }
    const doc = buildOpenApiDocument() as {
      components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(doc.components?.schemas?.CalculationRequest?.properties?.award_year).toMatchObject({
      type: 'string',
      enum: ['2026-27'],
    });
  });
});

describe('the loan-limit figures live in the table only', () => {
  const SRC = new URL('../../src/', import.meta.url);
  /**
   * Files allowed to hold the figures: the table itself. Only .ts files are read: the JSON data under
   * api/openapi/ (worked-examples.json, the verbatim spec copy, and example-texts.json, the engine's own wording)
   * holds figures by nature and is checked against its source by test/api/examples.test.ts and
   * test/api/openapi/examples.test.ts.
   */
  // health-professions.ts: the §2.1 increase's own table (its 9- and 12-month amounts, one of which is 12,500).
  const ALLOWED = new Set(['domain/limits.ts', 'domain/health-professions.ts']);
  /** Lines where such a number is not a dollar figure: [file, text on the line, why]. */
  const NOT_DOLLARS: [string, string, string][] = [
    ['api/json-exact.ts', '`3500.0000000000001` parses to the double 3500', 'an example of JSON number parsing'],
  ];

  function sourceFiles(dir: URL, prefix = ''): string[] {
    const out: string[] = [];
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) out.push(...sourceFiles(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
      else if (entry.name.endsWith('.ts')) out.push(`${prefix}${entry.name}`);
    }
    return out;
  }

  it('no other file under src/ writes a figure of the table (3,500 or 3500, $20,500, 50000, …)', () => {
    const figures = new Set(
      STATUTORY_LIMIT_TABLE.flatMap((y) => y.rows.flatMap((r) => [r.subsidizedMax, r.combinedMax])),
    );
    figures.delete('0');
    // rules.md §2.1 has ten distinct figures. Numbers are read as tokens (1,234,567 grouped by thousands, or
    // digits with optional decimals), so a figure counts with or without its comma but not inside a longer number
    // ("3500.0000000000001", "1.5000000") and two CSV cells "3500,5500" are two numbers.
    expect(figures.size).toBe(10);
    const NUMBER = /\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?/g;
    const hasFigure = (line: string) => [...line.matchAll(NUMBER)].some((m) => figures.has(m[0].replaceAll(',', '')));
    const found: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (ALLOWED.has(file)) continue;
      readFileSync(new URL(file, SRC), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (NOT_DOLLARS.some(([f, text]) => f === file && line.includes(text))) return;
          if (hasFigure(line)) found.push(`src/${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
    // The pattern does find a figure written either way.
    expect(['the $20,500 limit', "'3500,5500'", '12,500.', '(50000)'].map(hasFigure)).toEqual([true, true, true, true]);
    expect(['13500', '3,5000', '1.5000000', '$1,833', '20,5000'].map(hasFigure)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
