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

export declare const POLICY_OPTIONS: readonly PolicyOptionTable[];
export declare const HEALTH_PROFESSIONS: readonly HealthProfessionsTable[];
/** The months an academic year may cover for the increase; `default` is what null means. */
export declare const ACADEMIC_YEAR_MONTHS: { readonly min: number; readonly max: number; readonly default: number };
/** What each shadow-check reason means: "the school's figures equal ours computed with …" (check-reasons.ts). */
export declare const CHECK_REASON_TEXT: Readonly<Record<string, string>>;
