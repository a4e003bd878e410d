/**
 * The service's own tables the page shows, written at build time by scripts/build-web.ts (serviceTablesModule)
 * from the domain: the page keeps no copy of them. This file only declares the module's shape.
 */

/** One school-policy option (rules.md §10, src/domain/policy.ts POLICY_OPTIONS). */
export interface PolicyOptionTable {
  /** The request field under `policy` (`proration_fraction`). */
  readonly name: string;
  /** Its values, the service default first. */
  readonly values: readonly string[];
  /** The rules.md section it changes (`§2.3`). */
  readonly section: string;
  /** What it changes, in one line. */
  readonly summary: string;
  /** When a school would choose another value than the default. */
  readonly choose: string;
  readonly citation: string;
}

/** One health professions program with its additional Unsubsidized amounts (rules.md §2.1). */
export interface HealthProfessionsTable {
  readonly program: string;
  /** The FSA Handbook vol. 8 ch. 4 table it is listed in. */
  readonly table: string;
  readonly nineMonths: number;
  readonly twelveMonths: number;
}

/** One field of the request as the form shows it (a row of src/schema/fields.ts with a `page` entry). */
export interface RequestFieldTable {
  /** The request field (for a term field, the name within the term). */
  readonly name: string;
  readonly level: 'student' | 'term';
  /** The table's type kind: decimal, enum, integer, boolean, label or award_year. */
  readonly kind: string;
  /** An enum's values, in order. */
  readonly values?: readonly string[];
  /** An integer's range. */
  readonly min?: number;
  readonly max?: number;
  readonly required: boolean;
  readonly label: string;
  /** The help under the field, in the aid office's words, with an example. */
  readonly help: string;
  /** What an error beside the field asks for: "enter the credits the student is enrolled in". */
  readonly ask: string;
  /** A hint beside the label (units, examples). */
  readonly hint?: string;
  /** The text of a select's empty choice, which leaves the field out of the request. */
  readonly empty?: string;
  /** Counts only for a legacy graduate or professional student. */
  readonly legacyOnly?: boolean;
  /** Behind the form's "More details" disclosure. */
  readonly more?: boolean;
  /** A choice the page asks for with none preselected, though the API has a default. */
  readonly choose?: boolean;
}

export declare const POLICY_OPTIONS: readonly PolicyOptionTable[];
export declare const HEALTH_PROFESSIONS: readonly HealthProfessionsTable[];
/** The request's fields the form shows, student level first, each in the request's order. */
export declare const REQUEST_FIELDS: readonly RequestFieldTable[];
/** What each shadow-check reason means: "the school's figures equal ours computed with …" (check-reasons.ts). */
export declare const CHECK_REASON_TEXT: Readonly<Record<string, string>>;
/** The award years the service holds limits for (src/domain/limits.ts). */
export declare const AWARD_YEARS: readonly string[];
/** The rule set the service computes (src/domain/rule-set.ts). */
export declare const RULE_SET: string;
/** Every column of the bulk CSV layout (src/bulk/csv-layout.ts INPUT_COLUMNS): others are a file's extra columns. */
export declare const INPUT_COLUMNS: readonly string[];
