/**
 * The worksheet's schemas: the WorksheetSummary example shown in OpenAPI is what the engine says for FSA example 1
 * and its student (so the documentation cannot drift), and it parses with the schema it illustrates.
 */
import { describe, expect, it } from 'vitest';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { worksheetSummary } from '../../src/domain/summary.ts';
import { calculateWithTrace } from '../../src/domain/trace.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';
import EXAMPLE from '../../src/schema/worksheet-summary-example.json' with { type: 'json' };
import { WorksheetSummarySchema } from '../../src/schema/worksheet.ts';

describe('the WorksheetSummary example of the OpenAPI document', () => {
  it('is the summary of FSA example 1 for Ana Díaz, A00123456, and parses with its schema', () => {
    const fsa1 = WORKED_EXAMPLES.find((e) => e.id === 'FSA-1')!;
    const parsed = parseCalculationRequest({ ...(fsa1.request as object), award_year: '2026-27' });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.fieldErrors));
    const { result, steps } = calculateWithTrace(parsed.value);
    const summary = worksheetSummary(parsed.value, result, steps, { name: 'Ana Díaz', id: 'A00123456' });
    expect(EXAMPLE).toEqual(JSON.parse(JSON.stringify(summary)));
    expect(WorksheetSummarySchema.parse(EXAMPLE)).toEqual(EXAMPLE);
    // FSA example 1 as published: 63%, $2,205 and $1,260, proportional 882 + 1,323.
    expect(EXAMPLE.percentage.arithmetic).toBe('(6 + 9) ÷ 24 = 62.5% → 63%');
    expect(EXAMPLE.annual.map((a) => a.amount)).toEqual([2205, 1260]);
    expect(EXAMPLE.schedule.map((t) => t.proportional?.subsidized)).toEqual([882, 1323]);
  });
});
