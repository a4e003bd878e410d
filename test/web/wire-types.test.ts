/**
 * The page is compiled on its own (tsconfig.web.json: the browser's lib, src/web alone), so it reads the service's
 * answers through its own copies of their types. These checks run in the typecheck of the test command: a field the
 * service renames, drops or retypes breaks them, so the page's copies cannot drift from the schemas that the
 * OpenAPI document and the responses come from.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { JobSchema } from '../../src/api/openapi/job-schema.ts';
import type { CalculationResultSchema } from '../../src/schema/response.ts';
import type { WireWorksheetSummary } from '../../src/schema/worksheet-summary.ts';
import type { Job } from '../../src/web/job-types.ts';
import type { CalculationResult } from '../../src/web/result-types.ts';
import type { WorksheetSummary } from '../../src/web/summary-types.ts';

describe("the page's copies of the service's answers", () => {
  it('a calculation result as the service sends it is one the page can read', () => {
    expectTypeOf<z.output<typeof CalculationResultSchema>>().toExtend<CalculationResult>();
  });

  it("a worksheet's summary as the service sends it is one the page can read", () => {
    expectTypeOf<WireWorksheetSummary>().toExtend<WorksheetSummary>();
  });

  it('a job as the service sends it is one the page can read', () => {
    expectTypeOf<z.output<typeof JobSchema>>().toExtend<Job>();
  });
});
