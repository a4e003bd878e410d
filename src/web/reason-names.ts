/**
 * Readable names of the shadow check's reasons (architecture.md, "Shadow check"), for the page's chart. Which
 * reasons there are, and their order, come from the job status (`check_summary.by_reason` lists every reason in
 * the table's order); this only says how each reads. A reason the page does not know yet is shown by its own
 * name, its underscores as spaces.
 */
const REASON_NAMES: Readonly<Record<string, string>> = {
  option_mismatch: 'Other distribution option',
  remainder_placement: 'Leftover dollars on the last term',
  below_half_time_excluded: 'Below-half-time credits left out of the sum',
  percent_not_rounded: 'Percentage not rounded',
  binary_float: 'Binary floating-point arithmetic',
  grad_plus_gap_before_reduction: 'Grad PLUS gap before the reduction',
  paid_term_recomputed: 'Paid term recomputed',
  proration_parts_rounded: 'Final-period proration in two rounded parts',
  proration_decimal: 'Final-period fraction as a 2-decimal figure',
  single_term_half_annual: 'One term on half the annual amount',
  below_half_time_term_dropped: 'Below-half-time term left out of the year',
  unexplained: 'Unexplained',
};

export function reasonName(reason: string): string {
  return REASON_NAMES[reason] ?? reason.replaceAll('_', ' ');
}
