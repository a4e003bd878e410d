/**
 * The shadow check (architecture.md "Shadow check") through the bulk pipeline: for every reason a student built from
 * the published examples whose school figures come from that reading (computed by hand in shadow-files.ts) gets
 * that reason back; matches stay matches; every differing field is named; invalid sis values are error rows naming
 * the column; the summary adds up; adding sis_* columns never changes any other output column (fuzz); and the sample
 * samples/shadow-check.csv gives its hand-checked expected output.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import { ROOT, bulkConfig, parseNdjson, parseOutput, readText, runToString } from './helpers.ts';
import { EXAMPLES, EXAMPLES_HEADER, examplesCsv } from './examples.ts';
import { SHADOW_CASES, SIS_HEADER, caseRows, example, shadowCsv, type ShadowCase } from './shadow-files.ts';

const inline = createInlineRunner();
const pool = createPoolRunner({ threads: 2 });
afterAll(async () => {
  await pool.close();
});

type Row = Record<string, string>;

function byStudent(rows: Row[]): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const r of rows) out.set(r.student_id!, [...(out.get(r.student_id!) ?? []), r]);
  return out;
}

const RESULT_ONLY = [
  'check_status',
  'check_detail',
  'check_reason',
  'sis_option',
  'sis_reduced_annual_pct',
  'sis_sub',
  'sis_unsub',
  'sis_grad_plus',
];

describe('one student per reason, from the published examples', () => {
  it('CSV: every case comes back with its status and reason, repeated on each of its rows', async () => {
    const { text, summary } = await runToString(shadowCsv(), inline);
    const header = text.slice(0, text.indexOf('\n')).split(',');
    expect(header.slice(-3)).toEqual(['check_status', 'check_detail', 'check_reason']);
    const students = byStudent(parseOutput(text) as unknown as Row[]);
    for (const c of SHADOW_CASES) {
      const rows = students.get(c.id)!;
      expect(rows, c.id).toHaveLength(c.request.terms.length);
      for (const r of rows) {
        expect([r.row_status, r.check_status, r.check_reason], `${c.id}: ${c.why}`).toEqual(['ok', c.status, c.reason]);
        expect(r.check_detail, c.id).toBe(rows[0]!.check_detail);
        if (c.status !== 'mismatch') expect(r.check_detail, c.id).toBe('');
      }
    }
    const mismatches = SHADOW_CASES.filter((c) => c.status === 'mismatch');
    expect(summary.checks).toEqual({
      checked: SHADOW_CASES.filter((c) => c.status !== 'not_checked').length,
      match: SHADOW_CASES.filter((c) => c.status === 'match').length,
      mismatch: mismatches.length,
      not_checked: 1,
      by_reason: {
        option_mismatch: 1,
        remainder_placement: 1,
        below_half_time_excluded: 1,
        percent_not_rounded: 2,
        binary_float: 1,
        grad_plus_gap_before_reduction: 1,
        paid_term_recomputed: 1,
        unexplained: 1,
      },
    });
  });

  it('NDJSON: the same checks as `check` on each BulkResult, and the same summary', async () => {
    const csv = await runToString(shadowCsv(), inline);
    const { text, summary } = await runToString(shadowCsv(), inline, { format: 'ndjson' });
    const lines = parseNdjson(text) as unknown as { student_id: string; check: Record<string, unknown> }[];
    expect(lines.map((l) => l.student_id)).toEqual(SHADOW_CASES.map((c) => c.id));
    const rows = byStudent(parseOutput(csv.text) as unknown as Row[]);
    for (const [i, c] of SHADOW_CASES.entries()) {
      const r = rows.get(c.id)![0]!;
      expect(lines[i]!.check, c.id).toEqual({
        status: c.status,
        detail: r.check_detail,
        reason: c.reason === '' ? null : c.reason,
      });
    }
    expect(summary.checks).toEqual(csv.summary.checks);
  });

  it('names each differing field with its term, the school’s figure first', async () => {
    const { text } = await runToString(shadowCsv(), inline);
    const detail = (id: string) => byStudent(parseOutput(text) as unknown as Row[]).get(id)![0]!.check_detail;
    // FSA-1: the rules give 1,103 + 1,102; the school 1,102 + 1,103.
    expect(detail('REMAINDER')).toBe('Fall: sub 1102 ≠ 1103; Spring: sub 1103 ≠ 1102');
    expect(detail('UNROUNDED')).toBe(
      'pct 62.5 ≠ 63; Fall: sub 1094 ≠ 1103, unsub 625 ≠ 630; Spring: sub 1094 ≠ 1102, unsub 625 ≠ 630',
    );
    expect(detail('UNEXPLAINED')).toBe('Fall: sub 1000 ≠ 1103');
    expect(detail('GP-BEFORE')).toBe('Fall: grad_plus 5655 ≠ 7414; Spring: grad_plus 5655 ≠ 7414');
  });

  it('the counts made where chunks are calculated equal the counts read back from the output', async () => {
    for (const format of ['csv', 'ndjson'] as const) {
      const { text, summary } = await runToString(shadowCsv(), inline, {
        format,
        config: bulkConfig({ BULK_CHUNK_STUDENTS: '3' }),
      });
      const { readHeader } = await import('../../src/bulk/csv-layout.ts');
      const { CheckTally } = await import('../../src/bulk/shadow-summary.ts');
      const tally = new CheckTally(format, readHeader(SIS_HEADER.split(',')));
      const body = format === 'csv' ? text.slice(text.indexOf('\n') + 1) : text;
      tally.read({ text: body });
      expect(tally.summary(), format).toEqual(summary.checks);
      // and from UTF-8 bytes (the pool's and the queue's outcomes)
      const bytesTally = new CheckTally(format, readHeader(SIS_HEADER.split(',')));
      bytesTally.read({ text: '', bytes: new Uint8Array(Buffer.from(body)) });
      expect(bytesTally.summary(), format).toEqual(summary.checks);
    }
  });

  it('is the same from the pool runner, and independent of the chunk size', async () => {
    const expected = (await runToString(shadowCsv(), inline)).text;
    expect((await runToString(shadowCsv(), pool)).text).toBe(expected);
    const small = bulkConfig({ BULK_CHUNK_STUDENTS: '1' });
    expect((await runToString(shadowCsv(), pool, { config: small })).text).toBe(expected);
    const nd = (await runToString(shadowCsv(), inline, { format: 'ndjson' })).text;
    expect((await runToString(shadowCsv(), pool, { format: 'ndjson', config: small })).text).toBe(nd);
  });
});

describe('matches, precision and partial figures', () => {
  it('every published example with its own figures (either option, only some fields) is a match', async () => {
    const cases: ShadowCase[] = EXAMPLES.flatMap((ex) => [
      {
        id: `${ex.id}/equal`,
        request: ex.request,
        school: {
          pct: ex.expected.reduced_annual_pct,
          terms: ex.expected.terms.map((t) => ({
            sub: t.equal.subsidized,
            unsub: t.equal.unsubsidized,
            grad_plus: t.equal.grad_plus,
          })),
        },
        status: 'match' as const,
        reason: '',
        why: 'published equal figures',
      },
      {
        id: `${ex.id}/proportional`,
        request: ex.request,
        school: {
          option: 'PROPORTIONAL',
          // Not offered: the proportional amounts are the equal ones.
          terms: ex.expected.terms.map((t) => ({ unsub: (t.proportional ?? t.equal).unsubsidized })),
        },
        status: 'match' as const,
        reason: '',
        why: 'published proportional figures, unsub only',
      },
    ]);
    const { text, summary } = await runToString(shadowCsv(cases), inline);
    for (const r of parseOutput(text) as unknown as Row[]) {
      expect([r.row_status, r.check_status, r.check_detail, r.check_reason], r.student_id).toEqual([
        'ok',
        'match',
        '',
        '',
      ]);
    }
    expect(summary.checks?.match).toBe(cases.length);
  });

  it('compares the percentage at the school’s precision', async () => {
    const fsa3 = example('FSA-3');
    const make = (id: string, pct: string, subs: number[]): ShadowCase => ({
      id,
      request: fsa3.request,
      school: { pct, terms: subs.map((sub) => ({ sub })) },
      status: 'mismatch',
      reason: '',
      why: '',
    });
    // 33 / 36 = 91.666…%: unrounded, 2,000 × 33 / 36 = 1,833.33 → 1,833 → 611 each.
    const cases = [
      make('P-2', '91.67', [611, 611, 611]),
      make('P-T', '91.66', [611, 611, 611]),
      make('P-1', '91.7', [611, 611, 611]),
      make('P-X', '91.5', [611, 611, 611]),
    ];
    const rows = byStudent(parseOutput((await runToString(shadowCsv(cases), inline)).text) as unknown as Row[]);
    expect(rows.get('P-2')![0]!.check_reason).toBe('percent_not_rounded');
    expect(rows.get('P-T')![0]!.check_reason).toBe('percent_not_rounded'); // truncated at 2 decimals
    expect(rows.get('P-1')![0]!.check_reason).toBe('percent_not_rounded');
    expect(rows.get('P-X')![0]!.check_reason).toBe('unexplained');
    expect(rows.get('P-X')![0]!.check_detail).toBe(
      'pct 91.5 ≠ 92; Fall: sub 611 ≠ 614; Spring: sub 611 ≠ 613; Summer: sub 611 ≠ 613',
    );
  });
});

describe('bad sis values and students with errors', () => {
  it('an invalid sis value is an error row naming the column; students with errors are not checked', async () => {
    const base = SHADOW_CASES.find((c) => c.id === 'MATCH-FSA-1')!;
    const bad = (id: string, school: ShadowCase['school']): ShadowCase => ({ ...base, id, school });
    const cases = [
      bad('BAD-OPTION', { option: 'both', terms: [{ sub: 1103 }, { sub: 1102 }] }),
      bad('BAD-PCT', { pct: '101', terms: [{}, {}] }),
      bad('BAD-PCT-BIG', { pct: '1500', terms: [{}, {}] }),
      bad('BAD-MONEY', { terms: [{ sub: '1103.5.0' }, { unsub: -5 }] }),
      { ...base, id: 'BAD-REQUEST', request: { ...base.request, dependency_status: 'maybe' } },
      base,
    ];
    const { text, summary } = await runToString(shadowCsv(cases as ShadowCase[]), inline);
    const rows = byStudent(parseOutput(text) as unknown as Row[]);
    const errorOf = (id: string, i = 0) => {
      const r = rows.get(id)![i]!;
      expect([r.row_status, r.check_status, r.check_detail, r.check_reason]).toEqual(['error', '', '', '']);
      return r.error_field;
    };
    expect(errorOf('BAD-OPTION')).toBe('sis_option');
    expect(errorOf('BAD-PCT')).toBe('sis_reduced_annual_pct');
    expect(rows.get('BAD-PCT')![0]!.error_message).toMatch(/from 0 to 100/);
    expect(errorOf('BAD-PCT-BIG')).toBe('sis_reduced_annual_pct');
    expect(rows.get('BAD-PCT-BIG')![0]!.error_message).toBe(
      'sis_reduced_annual_pct: must be a percentage from 0 to 100',
    );
    expect(errorOf('BAD-MONEY', 0)).toBe('sis_sub');
    expect(errorOf('BAD-MONEY', 1)).toBe('sis_unsub');
    expect(errorOf('BAD-REQUEST')).toBe('dependency_status');
    expect(summary.checks).toMatchObject({ checked: 1, match: 1, mismatch: 0, not_checked: 0 });

    const nd = parseNdjson((await runToString(shadowCsv(cases as ShadowCase[]), inline, { format: 'ndjson' })).text);
    const lines = nd as unknown as { student_id: string; error: unknown; check: unknown }[];
    for (const l of lines.slice(0, 5)) expect([l.check, l.error === null], l.student_id).toEqual([null, false]);
    expect(JSON.stringify(lines[0]!.error)).toMatch(/sis_option/);
  });

  it('a student-level sis value that contradicts the first row is an error', async () => {
    const rows = caseRows(SHADOW_CASES[0]!);
    const columns = SIS_HEADER.split(',');
    const second = rows[1]!.split(',');
    second[columns.indexOf('sis_reduced_annual_pct')] = '64';
    const csv = [SIS_HEADER, rows[0], second.join(',')].join('\n') + '\n';
    const out = parseOutput((await runToString(csv, inline)).text) as unknown as Row[];
    expect(out.map((r) => [r.row_status, r.error_field])).toEqual([
      ['error', ''],
      ['error', 'sis_reduced_annual_pct'],
    ]);
  });
});

describe('adding sis_* columns never changes any other output column (fuzz)', () => {
  const columns = SIS_HEADER.split(',');
  const exampleCases = EXAMPLES.map((ex) => ({ ...ex, school: { terms: [] }, status: 'match', reason: '', why: '' }));
  const plain = examplesCsv();

  it('for random sis cells on random examples, CSV and NDJSON keep every other column', async () => {
    const without = parseOutput((await runToString(plain, inline)).text) as unknown as Row[];
    const withoutNd = parseNdjson((await runToString(plain, inline, { format: 'ndjson' })).text);
    const cellArb = fc.oneof(
      fc.constant(''),
      fc.integer({ min: 0, max: 20000 }).map(String),
      fc.constantFrom('equal', 'proportional', 'x', '-1', '62.5', '1e3', '=1+1', ' 5', '100.0000001'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cellArb, { minLength: 5, maxLength: 5 }), { minLength: 40, maxLength: 40 }),
        async (grid) => {
          let k = 0;
          const lines = [SIS_HEADER];
          for (const c of exampleCases) {
            for (const line of caseRows(c as unknown as ShadowCase)) {
              const cells = line.split(',');
              const sis = grid[k++ % grid.length]!;
              columns.forEach((col, i) => {
                const j = ['sis_option', 'sis_reduced_annual_pct', 'sis_sub', 'sis_unsub', 'sis_grad_plus'].indexOf(
                  col,
                );
                if (j >= 0) cells[i] = sis[j]!;
              });
              lines.push(cells.join(','));
            }
          }
          const csv = lines.join('\n') + '\n';
          const out = parseOutput((await runToString(csv, inline)).text) as unknown as Row[];
          expect(out).toHaveLength(without.length);
          out.forEach((r, i) => {
            const w = without[i]!;
            if (r.row_status === 'error') {
              // Only a sis problem can make a student an error here, and it names a sis column on some row.
              expect(w.row_status === 'ok' || r.error_field === w.error_field).toBe(true);
              return;
            }
            for (const key of Object.keys(w)) expect(r[key], key).toBe(w[key]);
            for (const key of Object.keys(r)) if (!(key in w)) expect(RESULT_ONLY).toContain(key);
          });
          const nd = parseNdjson((await runToString(csv, inline, { format: 'ndjson' })).text);
          nd.forEach((l, i) => {
            if (l.error !== null) return;
            const { check: _check, ...rest } = l as unknown as Record<string, unknown>;
            expect(rest).toEqual(withoutNd[i]);
          });
        },
      ),
      { numRuns: 15 },
    );
    expect(EXAMPLES_HEADER).toBe(columns.slice(0, -5).join(','));
  });
});

describe('the sample samples/shadow-check.csv', () => {
  it('gives samples/shadow-check.expected.csv byte for byte', async () => {
    const input = readText(new URL('samples/shadow-check.csv', ROOT));
    const expected = readText(new URL('samples/shadow-check.expected.csv', ROOT));
    expect((await runToString(input, inline)).text).toBe(expected);
  });
});
