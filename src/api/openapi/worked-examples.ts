/**
 * The spec's worked examples (shared/spec/examples.json: ids, sources, requests, expected figures), shipped as a
 * verbatim copy in worked-examples.json so the service documents them without reading the spec folder at run
 * time. The OpenAPI document shows them as request/response examples; the test suite checks the live service
 * against them and checks that the copy still equals the spec file (test/api/examples.test.ts).
 *
 * `expected` leaves out the free-text fields (warnings, warning, adjustment_explanation): their wording is the
 * implementation's.
 */
import type { CalculationResult, TermResult } from '../../domain/types.ts';
import type { CalculationRequestInput } from '../../schema/request.ts';
import spec from './worked-examples.json' with { type: 'json' };

export interface ExampleSource {
  url: string;
  numbers: string;
}

/** A TermResult without its free-text fields (their wording is the implementation's). */
export type ExpectedTerm = Omit<TermResult, 'warning' | 'adjustment_explanation'>;

/** A CalculationResult without its free-text fields. */
export type ExpectedResult = Omit<CalculationResult, 'warnings' | 'terms'> & { terms: ExpectedTerm[] };

export interface WorkedExample {
  id: string;
  source: ExampleSource;
  description: string;
  request: CalculationRequestInput;
  expected: ExpectedResult;
}

export interface InvalidExample {
  id: string;
  description: string;
  /** Deliberately invalid: not typed as a request. */
  request: Record<string, unknown>;
  expected_status: number;
  expected_code: string;
  expected_field_paths: string[];
}

export const EXAMPLES_ABOUT: string = spec.about;

// JSON literals widen (enrollment_status is `string`, not the union): the drift and engine tests prove the shape.
export const WORKED_EXAMPLES: WorkedExample[] = spec.examples as WorkedExample[];

export const INVALID_EXAMPLES: InvalidExample[] = spec.invalid;
