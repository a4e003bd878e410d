/**
 * A registrar's file spells values as its SIS exports them (`Dependent`, `Y`, grade level `2`): the bulk pipeline
 * reads them as the canonical spellings and gives every worked example its published figures (examples.json),
 * in CSV and NDJSON. The JSON API stays strict (test/schema).
 */
import { describe, expect, it } from 'vitest';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';
import { EXAMPLES, examplesCsv, expectRowsMatchExample, withoutFreeText } from './examples.ts';
import { parseNdjson, parseOutput, runToString } from './helpers.ts';
import { sisSpelledExamplesCsv } from './registrar-files.ts';

const inline = createInlineRunner();
const spelled = sisSpelledExamplesCsv();
const SPELLED = new Set([
  'dependency_status',
  'degree_level',
  'grade_level',
  'is_legacy_borrower',
  'plus_denied',
  'final_period_of_program',
  'health_professions_program',
]);

describe('SIS spellings in a bulk file', () => {
  it('the file really is written the SIS way: Dependent, INDEPENDENT, Graduate, Y/N and COD grade codes', () => {
    const rows = parseOutput(spelled);
    const values = (column: string) => new Set(rows.map((r) => (r as Record<string, string>)[column]));
    expect([...values('dependency_status')]).toEqual(expect.arrayContaining(['Dependent', 'INDEPENDENT']));
    expect(values('degree_level').has('Graduate')).toBe(true);
    expect([...values('grade_level')]).toEqual(expect.arrayContaining(['0', '1', '2', '3']));
    expect([...values('is_legacy_borrower')]).toEqual(expect.arrayContaining(['Y', 'N']));
    expect(values('dependency_status').has('dependent')).toBe(false);
  });

  it('gives every worked example the figures of examples.json, as its canonical spelling does (CSV)', async () => {
    const rows = parseOutput((await runToString(spelled, inline)).text);
    for (const ex of EXAMPLES)
      expectRowsMatchExample(
        rows.filter((r) => r.student_id === ex.id),
        ex,
      );
    const canonical = parseOutput((await runToString(examplesCsv(), inline)).text);
    // Every cell but the spelled ones (echoed as written) is the same: the results, the ids, the labels.
    const results = (r: Record<string, string>) =>
      Object.fromEntries(Object.entries(r).filter(([k]) => !SPELLED.has(k)));
    expect(rows.map(results)).toEqual(canonical.map(results));
  });

  it('and in NDJSON: each result is the example’s expected result', async () => {
    const lines = parseNdjson((await runToString(spelled, inline, { format: 'ndjson' })).text);
    expect(lines.map((l) => l.student_id)).toEqual(EXAMPLES.map((e) => e.id));
    lines.forEach((line, i) => expect(withoutFreeText(line.result), line.student_id).toEqual(EXAMPLES[i]!.expected));
  });

  it('the JSON API keeps refusing the same spellings', () => {
    const ex = EXAMPLES.find((e) => e.request.dependency_status === 'dependent')!;
    for (const change of [{ dependency_status: 'Dependent' }, { grade_level: '2' }, { plus_denied: 'Y' }]) {
      const parsed = parseCalculationRequest({ ...ex.request, ...change });
      expect(parsed.ok, JSON.stringify(change)).toBe(false);
    }
  });
});
