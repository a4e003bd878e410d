/**
 * The shape of a row of the request-field table (fields.ts): what a field holds, when it may be left out, its CSV
 * column, its OpenAPI description and how the page shows it.
 */
import type { DecimalRule } from './decimal.ts';

/** What a field holds and its bounds. `terms`, `policy` and `award_year` have their own schemas (kinds below). */
export type FieldType =
  | { kind: 'decimal'; rule: DecimalRule }
  | { kind: 'enum'; values: readonly [string, ...string[]] }
  | { kind: 'integer'; min: number; max: number }
  | { kind: 'boolean' }
  /** A string of MIN_LABEL_LENGTH to MAX_LABEL_LENGTH code points (the term's label). */
  | { kind: 'label' }
  /** The array of terms (Term's fields are the term-level rows of this table). */
  | { kind: 'terms' }
  /** The school policy object, one option per row of src/domain/policy.ts POLICY_OPTIONS (schema/policy.ts). */
  | { kind: 'policy' }
  /** An award year the limit table holds (schema/award-year.ts); left out: the one in force today. */
  | { kind: 'award_year' };

/**
 * When the field is left out: `required` (an error), `default` (the value `default`), `absent-null` (null, while
 * an explicit null is an error: subsidized_amount keeps "not given" apart from an explicit 0).
 */
export type Presence = 'required' | 'default' | 'absent-null';

/**
 * How the page's form shows a field, in the aid office's words: its label, the help under it (with an example;
 * never the API's vocabulary: no null, JSON or field paths), and what an error beside it asks the officer to do.
 * The OpenAPI `description` stays the integrator's text; the page shows the field's API name only as a small hint.
 */
export interface PageField {
  label: string;
  /** The help under the field: what it means for this student, with an example. */
  help: string;
  /** What an error beside the field asks for, after the term's name: "enter the credits the student is enrolled in". */
  ask: string;
  /** A hint beside the label (units, examples). */
  hint?: string;
  /** The text of the select's empty choice, which leaves the field out of the request. */
  empty?: string;
  /** Counts only for a legacy graduate or professional student: the form says so beside a value it would ignore. */
  legacyOnly?: boolean;
  /** Shown behind the form's "More details" disclosure (it has a default that suits most students). */
  more?: boolean;
  /** A choice the page asks for with none preselected, where the API has a default (degree and grade level). */
  choose?: boolean;
}

export interface RequestField {
  name: string;
  level: 'student' | 'term';
  type: FieldType;
  presence: Presence;
  /** The value when left out (presence `default`); null for nullable fields. */
  default?: string | boolean | null;
  /** null is accepted (and is what an empty CSV cell means for a term column). */
  nullable: boolean;
  /** The bulk CSV column ('' when the field has none: terms are rows, the policy is the file's). */
  column: string;
  /** What an empty cell of a student column means, where the generic wording (null, the default) is not enough. */
  emptyCell?: string;
  /** The OpenAPI description (for integrators; the page has its own words in `page`). */
  description: string;
  /** The page's form; undefined when the page has its own section (terms, policy). */
  page?: PageField;
}
