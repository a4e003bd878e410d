/**
 * What each reason of the shadow check means (architecture.md "Shadow check"), in words for the documents that list
 * them: the OpenAPI CheckReason schema and the bulk endpoints' prose. The reasons themselves and their readings are
 * data of the domain (CHECK_REASONS, REASON_CHANGES in src/domain/readings.ts); this table is keyed by CheckReason,
 * so a reason added there without its words here does not compile.
 */
import { CHECK_REASONS, type CheckReason } from './readings.ts';

/** "The school's figures equal ours computed with …", per reason. */
export const CHECK_REASON_TEXT: Readonly<Record<CheckReason, string>> = Object.freeze({
  option_mismatch: 'the other distribution option',
  remainder_placement: 'the same annual amounts split with the leftover dollars on the last term',
  below_half_time_excluded: 'below-half-time credits left out of the year’s sum',
  percent_not_rounded: 'the unrounded (or rounded-down) percentage',
  binary_float: 'binary floating-point arithmetic (2,250 × 0.69 → 1,552 instead of 1,553)',
  grad_plus_gap_before_reduction: 'the Grad PLUS gap taken before the reduction of Sub/Unsub',
  paid_term_recomputed: 'closed terms recomputed instead of kept at their payments',
  proration_parts_rounded:
    'a final-period proration that prorates the subsidized limit and the unsubsidized-only part separately, ' +
    'S′ + round((C − S) × fraction) (Metro State’s page: 2,333 where the Handbook’s method gives 2,334)',
  proration_decimal:
    'a final-period proration with the fraction in another form than the policy’s: a 2-decimal figure rounded ' +
    '(0.67) or truncated (0.66), or, under a decimal policy, the exact fraction',
  single_term_half_annual: 'a one-term loan period computed on half the annual amount (project-sor’s reading)',
  below_half_time_term_dropped:
    'a below-half-time term left out of the year entirely, its credits and its full-time credits ' +
    '(fall 12/12 + spring 3/12 → 12/12 = 100%)',
  unexplained: 'none of the above',
});

/** How the school policy in force (rules.md §10) enters the check. */
export const CHECK_POLICY_TEXT =
  'The school’s figures are compared with ours computed under the school policy in force (rules.md §10); each ' +
  'reason tries its reading on top of that policy and is skipped where the policy already is that reading.';

/** Every reason in the table's order with its meaning: "`option_mismatch`: the other distribution option; …". */
export function checkReasonsProse(): string {
  return CHECK_REASONS.map((reason) => `\`${reason}\`: ${CHECK_REASON_TEXT[reason]}`).join('; ');
}
