/**
 * The legal basis of each rule (rules.md §0) as data: the one place the worksheet's steps (src/domain/trace*.ts)
 * take their citations from, besides the statutory rows of the limit table (src/domain/limits.ts), which carry
 * their own. A citation names the source as rules.md §0 writes it; where the rule is a reading chosen by this
 * service (rules.md §9), the citation says so. Each also has a short form, the pin cite an auditor looks up, for
 * the worksheet's summary page (src/domain/summary.ts): legal sources only, no reference to the rule book.
 */

export interface RuleCitation {
  /** The citation as written in rules.md §0. */
  readonly citation: string;
  /** The short form printed beside a figure of the summary ("HEA §455(a); 34 CFR 685.203(m)(1)"). */
  readonly short: string;
}

function cite(citation: string, short: string): RuleCitation {
  return Object.freeze({ citation, short });
}

export const CITATIONS = Object.freeze({
  /** The reduction itself: the academic-year percentage and the reduced annual amounts (§3). */
  reduction: cite(
    'HEA §455(a) as amended by Pub. L. 119-21 §81001 (July 4, 2025): reduced in direct proportion to ' +
      'less-than-full-time enrollment, rounded to the nearest whole percentage point; 34 CFR 685.203(m)(1), RISE ' +
      'final rule, 91 FR 23768 (May 1, 2026), effective July 1, 2026',
    'HEA §455(a); 34 CFR 685.203(m)(1)',
  ),
  /** Credits below half time still count in the year's sum (§3): a relayed reading, not a published one. */
  belowHalfTimeCounted: cite(
    '34 CFR 685.203(m)(1); below-half-time credits counted per the FSA vendor focus group of 2026-04-15 as ' +
      'relayed by project-sor (countLthtInAyPct), not a published Electronic Announcement (rules.md §9)',
    '34 CFR 685.203(m)(1); FSA vendor focus group, April 15, 2026',
  ),
  /** Terms, enrollment intensity and disbursement eligibility (§4). */
  terms: cite('34 CFR 685.203(m)(1) (less-than-full-time enrollment per term); rules.md §4', '34 CFR 685.203(m)(1)'),
  /** The institution-set program limit (§2.2 item 4). */
  programLimit: cite(
    '34 CFR 685.203(m)(2); Dear Colleague Letter GEN-26-02 (the institutional limit is the starting point for ' +
      'the reduction)',
    '34 CFR 685.203(m)(2); DCL GEN-26-02',
  ),
  /** Cost of attendance minus other aid (§2.2 item 5, Grad PLUS in item 3). */
  costOfAttendance: cite(
    '34 CFR 685.203(j)(1) (loans never exceed cost of attendance minus other aid)',
    '34 CFR 685.203(j)(1)',
  ),
  /** Grad PLUS sized after the reduction (§2.2 item 3). */
  gradPlus: cite(
    'HEA §455(a)(4) (20 U.S.C. 1087e(a)(4)); 91 FR 23883; 34 CFR 685.200(b)(2); 34 CFR 685.203(j)(1) (Grad PLUS ' +
      'sized after the reduction of the other loans, the reading of Oracle SFP and project-sor, rules.md §9)',
    'HEA §455(a)(4); 34 CFR 685.200(b)(2); 34 CFR 685.203(j)(1)',
  ),
  /** Traditional proration of a final period shorter than an academic year (§2.3 as revised in 2026-27.3). */
  finalPeriod: cite(
    '34 CFR 685.203(a)(4)–(6) and (d); FSA Handbook Vol. 8 ch. 5 ("Loan limit proration"); no reduction on top ' +
      'per the FSA vendor focus group of 2026-07-23 as implemented by project-sor V56',
    '34 CFR 685.203(a)(4)–(6), (d); FSA Handbook Vol. 8 ch. 5',
  ),
  /**
   * How the final-period limits are prorated (§2.3, 2026-27.3): the period's terms at least half time, the combined
   * and subsidized limits each prorated directly, fixed at origination.
   */
  proration: cite(
    'FSA Handbook 2025-26 Vol. 8 ch. 5 ("Loan Limit Proration"): only the hours of terms the student can be paid ' +
      'for (example 5), a not-enrolled term outside the period (example 6), the combined and then the subsidized ' +
      'prorated limit each determined directly (example 8), the fraction or a 2-decimal figure applied ' +
      'consistently; fixed at origination, 34 CFR 685.301(a)(5)(ii)',
    'FSA Handbook Vol. 8 ch. 5; 34 CFR 685.301(a)(5)(ii)',
  ),
  /** Increased unsubsidized amounts for health professions kept for legacy borrowers (§2.1, 2026-27.3). */
  healthProfessions: cite(
    'FSA Handbook 2025-26 Vol. 8 ch. 4 ("Annual and Aggregate Loan Limits"), tables 3A and 3B and the proration ' +
      'for 10 or 11 months; kept for legacy borrowers by the interim exception (HEA §455(a)(4) as amended by ' +
      'Pub. L. 119-21 §81001; FSA Loan Limits FAQ 2026-05-20, GPSLL-Q5)',
    'FSA Handbook 2025-26 Vol. 8 ch. 4, tables 3A and 3B',
  ),
  /** The school policy in force (§10, 2026-27.3). */
  schoolPolicy: cite(
    'rules.md §10: choices the FSA Handbook leaves to the school "as long as [it is] consistent" (Vol. 8 ch. 5) ' +
      'and readings of rules.md §9 a school may settle on its own counsel’s advice',
    'The school’s written policy (FSA Handbook Vol. 8 ch. 5)',
  ),
  /** Equal and proportional disbursements (§5). */
  distribution: cite(
    '34 CFR 685.303 as amended by the RISE final rule, 91 FR 23768 (unequal disbursements only for students ' +
      'subject to the reduction)',
    '34 CFR 685.303',
  ),
  /** Whole-dollar splits by the largest-remainder method (§1). */
  split: cite(
    'rules.md §1: largest-remainder split, ties to the earlier term (reproduces every published FSA Schedule of ' +
      'Reductions example, April 2026)',
    'FSA Schedule of Reductions examples (April 2026)',
  ),
  /** Recalculation after disbursements (§6). */
  recalculation: cite(
    '34 CFR 685.203(m)(1); FSA Schedule of Reductions Q&A examples (April 2026), example 4, as relayed by ' +
      'project-sor at commit 43254b1e4d12cc75e18bcbd91fa7ecf194e0a928 (src/lib/scenarios.ts)',
    '34 CFR 685.203(m)(1); FSA Schedule of Reductions example 4 (April 2026)',
  ),
  /** The warning sentences (§7). */
  warnings: cite('rules.md §7 (plain-English warnings for the student file); 34 CFR 685.203(m)', '34 CFR 685.203(m)'),
} satisfies Record<string, RuleCitation>);

export type CitationKey = keyof typeof CITATIONS;
