/**
 * The identifier of the rule set this service computes (rules.md §8a): bumped whenever a rule or reading of
 * rules.md changes, so every response can be traced to the rules that made it. Reported in the OpenAPI `info`
 * and in the `X-Rule-Set` header of every calculation response (single, bulk, jobs).
 *
 * 2026-27.2: Grad PLUS sized after the reduction (§2.2), final period of an undergraduate program (§2.3), the
 * "no subsidized eligibility assumed" warning (§7), citations of §0/§3/§9.
 * 2026-27.3: §2.3 as the FSA Handbook (Vol. 8 ch. 5) computes it (the period is the enrolled terms, only the
 * credits of terms at least half time, the combined and subsidized limits each prorated directly, fixed at
 * origination); the health professions increase for legacy borrowers (§2.1, Handbook Vol. 8 ch. 4); the school
 * policy (§10: its options are readings, one warning names the non-default ones); every $0 Grad PLUS of a legacy
 * borrower explained (§7); the shadow check's four new reasons. A school policy does not change the id.
 */
export const RULE_SET_ID = '2026-27.3';
