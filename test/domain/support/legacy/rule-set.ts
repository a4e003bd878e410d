/**
 * The identifier of the rule set this service computes (rules.md §8a): bumped whenever a rule or reading of
 * rules.md changes, so every response can be traced to the rules that made it. Reported in the OpenAPI `info`
 * and in the `X-Rule-Set` header of every calculation response (single, bulk, jobs).
 *
 * 2026-27.2: Grad PLUS sized after the reduction (§2.2), final period of an undergraduate program (§2.3), the
 * "no subsidized eligibility assumed" warning (§7), citations of §0/§3/§9.
 */
export const RULE_SET_ID = '2026-27.2';
