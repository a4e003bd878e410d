/**
 * The prose of the OpenAPI document (src/api/openapi/document.ts): legal basis, the readings table (rules.md §9),
 * rounding, the calculation steps, the COD note, the input rules, and the descriptions of the document and of
 * POST /v1/calculate. Kept as data and text, so the document is the audit trail. Limit figures come from the
 * limit table (limits-prose.ts), never written here.
 */
import { RULE_SET_ID } from '../../domain/rule-set.ts';
import { MAX_FIELD_ERRORS, MAX_TERMS } from '../../schema/request.ts';
import { MAX_CREDITS, MAX_DECIMAL_PLACES, MAX_DECIMAL_STRING_LENGTH, MAX_MONEY } from '../../schema/decimal.ts';
import { awardYearsPhrase, graduateFigures, limitTableMarkdown } from './limits-prose.ts';

/** The configured limits the descriptions state. */
export interface DocumentLimits {
  maxBodyBytes: number;
  bulkMaxBytes: number;
  bulkMaxRows: number;
}

export const fmt = (n: number) => n.toLocaleString('en-US');

const GRADUATE_FIGURES = graduateFigures();

export const LEGAL_BASIS = [
  'Statute: HEA §455(a) as amended by Pub. L. 119-21 §81001 (July 4, 2025): the annual amount is reduced "in direct ' +
    'proportion" to less-than-full-time enrollment, rounded to the nearest whole percentage point.',
  'Regulation: 34 CFR 685.203(m)(1), RISE final rule, 91 FR 23768 (May 1, 2026), effective July 1, 2026 ' +
    '(NPRM 91 FR 4254, January 30, 2026).',
  'Institution-set program limit on Subsidized + Unsubsidized + PLUS: 34 CFR 685.203(m)(2); Dear Colleague Letter ' +
    'GEN-26-02 (the institutional limit is the starting point for the reduction).',
  `Graduate ${GRADUATE_FIGURES.graduate} / professional ${GRADUATE_FIGURES.professional} annual limits and the end ` +
    'of Grad PLUS for new borrowers: HEA ' +
    '§455(a)(4) (20 U.S.C. 1087e(a)(4)) and the final rule’s amendatory text at 91 FR 23883 (the eCFR notes that ' +
    'its amendment of 34 CFR 685.203(b)(2)(iv) "could not be completed", so the statute and the Federal Register ' +
    'page are cited, not that CFR paragraph); 34 CFR 685.200(b)(2).',
  'Loans never exceed cost of attendance minus other aid: 34 CFR 685.203(j)(1).',
  'Unequal (proportional) disbursements only for students subject to the reduction: 34 CFR 685.303 as amended by ' +
    'the same final rule.',
  'Traditional proration of a final period of an undergraduate program shorter than an academic year: 34 CFR ' +
    '685.203(a)(4)–(6), (d); FSA Handbook Vol. 8 ch. 5 ("Loan limit proration"). That the reduction is then not ' +
    'applied on top rests on vendors relaying the Department (FSA vendor focus group of 2026-07-23, as ' +
    'implemented by project-sor V56).',
  'Below-half-time credits counted in the academic-year sum: the FSA vendor focus group of 2026-04-15 as relayed ' +
    'by project-sor (`countLthtInAyPct`, "per 4/15 VFG"), not a published Electronic Announcement.',
  'Worked examples: FSA "Schedule of Reductions" Q&A examples (April 2026) as relayed by project-sor at commit ' +
    '43254b1e4d12cc75e18bcbd91fa7ecf194e0a928 (`src/lib/scenarios.ts`; the relayer later removed examples 2, 4, 5 ' +
    'and 6, so they are cited at that commit), and the other published sources listed with each example below.',
  'The COD field "Direct Loan Enrollment Intensity" (COD schema 5.0d, required on 2026-27 Direct Loan ' +
    'disbursements): COD Technical Reference 2026-27, described by vendors as the student’s less-than-full-time ' +
    'reduction percentage for the payment period.',
];

/** rules.md §9, row for row: every reading taken where the sources disagree. */
export const READINGS: ReadonlyArray<{ question: string; other: string; choice: string }> = [
  {
    question: "Below-half-time credits in the year's sum",
    other: 'excluded (an older Department scenario)',
    choice: 'counted (April 2026 guidance)',
  },
  { question: 'Proportional when there is no reduction', other: 'allowed (older scenarios)', choice: 'not offered' },
  {
    question: 'Single-term loan period',
    other: 'halve the annual amount first; multiply by 1/terms',
    choice: 'per-term formula on the full annual amount (FSA example 2)',
  },
  {
    question: 'Remainder dollars',
    other: 'last term absorbs; floor then last',
    choice: 'largest remainder, ties to the earlier term (matches all published examples)',
  },
  {
    question: 'Sub and unsub',
    other: 'reduce the total, then subtract',
    choice: 'reduce each separately (FSA example 1, Oracle SFP)',
  },
  {
    question: 'Reduction base',
    other: 'statutory maximum, then cap by need',
    choice: "the student's eligibility (FSA example 3)",
  },
  {
    question: 'Legacy borrowers',
    other: 'exempt',
    choice: "reduced like everyone (the statute's exception list omits this paragraph)",
  },
  {
    question: 'What `total_limit` covers',
    other: 'Sub + Unsub only',
    choice: 'Sub + Unsub + Grad PLUS, as (m)(2) says; a warning when it squeezes Grad PLUS',
  },
  {
    question: 'Grad PLUS base',
    other: 'the gap before the reduction of Sub/Unsub',
    choice: 'the gap after it (COA − the reduced Sub and Unsub), then reduced once (Oracle SFP, project-sor)',
  },
  {
    question: 'Final period of an undergraduate program shorter than an academic year',
    other: 'reduction only; or proration and reduction',
    choice:
      'traditional proration only, reduction not applied on top (§2.3; vendors relaying the Department, 2026-07-23)',
  },
  {
    question: 'Final-period proration: how the two limits are rounded',
    other:
      "the subsidized limit and the unsubsidized-only part prorated separately (Metro State's page: 1,833 + 2,333)",
    choice:
      'the combined limit and the subsidized limit each prorated directly (FSA Handbook ch. 5, example 8: 4,583 / 2,917); 2026-27.3',
  },
  {
    question: 'Final-period proration: fraction or decimal',
    other: 'a 2-decimal figure, rounded (0.67) or truncated (0.66), applied consistently (Handbook ch. 5 allows both)',
    choice: "the exact fraction by default; a school's policy may choose either decimal (§10)",
  },
  {
    question: 'Final-period proration: below-half-time terms',
    other: 'their credits counted in the fraction',
    choice:
      'left out: they receive no loan, so only the credits of the terms that can be paid are used (Handbook ch. 5, example 5); 2026-27.3',
  },
  {
    question: 'Final-period proration: credits that change after origination',
    other: 're-prorate with the final credits',
    choice:
      'fixed at origination (`credits_enrolled`): no retroactive proration (Handbook ch. 5; 34 CFR 685.301(a)(5)(ii)); 2026-27.3',
  },
  {
    question: 'What a payment closes',
    other:
      'the loan type that was paid (project-sor locks each loan type separately, a blank payment meaning "not entered")',
    choice: 'the whole term: any prior disbursement > 0 closes it for every loan type, null counts as 0 (§6)',
  },
  {
    question: 'Single-term loan period',
    other: '— (see the row above: per-term formula on the full annual amount)',
    choice:
      "project-sor V56 halves the annual amount first, citing an unpublished July 2026 focus group; this service keeps FSA example 2 and Oracle SFP's reading until published guidance says otherwise",
  },
  {
    question: 'Proportional with one eligible term',
    other: 'proportional with 0 on the others',
    choice: 'not offered: identical to equal',
  },
  {
    question: 'What closes a term',
    other: 'known final credits',
    choice: 'a payment; final credits alone only replace the credits',
  },
  { question: 'Parent PLUS', other: '—', choice: 'never reduced, not in scope' },
  { question: 'Non-term and clock-hour programs', other: '—', choice: 'out of scope: say so in the docs' },
];

const readingsTable = [
  '| Question | Other readings | Choice made by this service |',
  '|---|---|---|',
  ...READINGS.map((r) => `| ${r.question} | ${r.other} | ${r.choice} |`),
].join('\n');

/** Choices where the rules are silent, as implemented by src/domain (docs/readings-and-policy.md lists the same). */
const SMALLER_CHOICES = [
  "A below-half-time term's warning appears both in the term's `warning` and in `warnings`; so does the " +
    'final-term over-disbursement sentence (on the last term).',
  'The "legacy borrowers are still reduced" warning appears only when reduced_annual_pct is below 100.',
  'plus_denied for a graduate or professional student is warned for legacy and non-legacy students alike.',
  'The cost-of-attendance cap binds (and warns) only when it actually lowers an amount; deriving legacy Grad PLUS ' +
    'from the cost of attendance is not a binding cap.',
  'The total_limit ceiling on the Grad PLUS base is total_limit minus the subsidized and unsubsidized starting ' +
    'amounts after both caps (total_limit, then cost of attendance) have lowered them; a warning says when it binds.',
  'Under the final-period proration (§2.3) the "loan period shorter than the academic year" sentence of ' +
    'academic_year_terms is not given (the proration sentence says so instead), and the baseline of a ' +
    'recalculation prorates the limits with credits_enrolled, so adjustments show the effect of the credit change ' +
    'on the prorated limits.',
  'academic_year_credits sent without final_period_of_program (undergraduate) is ignored with a warning; for a ' +
    'graduate or professional student, either field is ignored with one warning.',
  'Cents in starting amounts are kept exactly; only the reduced annual amounts are rounded to whole dollars.',
  'At 100% the reason given for not offering the proportional option is "no reduction", even when fewer than two ' +
    'terms are eligible.',
  'An adjustment_explanation names every changed term in term order, the annual amounts that changed and the ' +
    "term's non-zero dollar effects.",
];

export const ROUNDING_RULES = [
  'All arithmetic is exact decimal; no binary floating point, including when parsing: `10.5` and `"10.5"` give ' +
    'byte-identical answers.',
  'Percentages (reduced_annual_pct, enrollment_intensity_pct, disbursement_pct): half up to a whole percent ' +
    '(62.5 → 63, 87.5 → 88, 83.33 → 83).',
  'Dollars: half up to a whole dollar. Prior disbursements are rounded half up to whole dollars (per term and loan ' +
    'type) before any use, including the test that closes a term.',
  'Splitting a whole-dollar amount over terms (both options, every loan type): largest remainder. Each term gets ' +
    'the floor of its exact share; the dollars still missing go one each to the terms with the largest fractional ' +
    'remainders, ties to the earlier term. The parts sum exactly to the amount and are never negative ' +
    '(7,875 / 2 → 3,938 + 3,937; 1,100 / 3 → 367 + 367 + 366; 1,840 × (9, 12, 12) / 33 → 502 + 669 + 669).',
];

const CALCULATION_STEPS = [
  '1. **Starting amounts** (the statutory limits of the request’s award_year: see "Statutory annual limits" ' +
    'below). `sub_base = min(subsidized_amount, statutory ' +
    'subsidized maximum)` (0 for graduate and professional students, with a warning if subsidized_amount > 0; an ' +
    'undergraduate request without subsidized_amount is 0 with a warning that no subsidized eligibility was ' +
    'assumed); `unsub_base = combined maximum − sub_base`. total_limit (34 CFR 685.203(m)(2)) and then ' +
    'cost_of_attendance (34 CFR 685.203(j)(1), taken as already net of other aid) cap `sub_base + unsub_base`, ' +
    'lowering unsubsidized, then subsidized. Each binding cap adds a warning.',
  '1a. **Final period of an undergraduate program** (`final_period_of_program`, rules §2.3 as revised in ' +
    '2026-27.3; 34 CFR 685.203(a)(4)–(6), (d); FSA Handbook vol. 8 ch. 5): the period is the terms with ' +
    'credits_enrolled > 0. When their full_time_credits sum below academic_year_credits, the statutory limits are ' +
    'first prorated by `fraction = min(1, P ÷ academic_year_credits)`, P being the credits_enrolled of the ' +
    "period's terms scheduled at least half time (a below-half-time term gets no loan and its credits are left " +
    'out); the combined and the subsidized limits are each prorated directly: `C′ = round_half_up(C_max × ' +
    'fraction)`, `S′ = round_half_up(S_max × fraction)`; then step 1 applies to them, and the reduction is ' +
    '**not** applied on top (reduced_annual_pct 100, proportional not offered). The fraction is exact unless the ' +
    "school's policy says decimal_rounded (0.67) or decimal_truncated (0.66) (policy.proration_fraction). The " +
    'proration is fixed at origination (credits_enrolled; a warning when actual_final_credits differ). Metro ' +
    'State: 8 of 24 credits → 1,833 subsidized / 2,334 unsubsidized. When the period is not shorter than an ' +
    'academic year, the normal reduction applies with a warning; for graduate and professional students the flag ' +
    'is ignored with a warning.',
  '1b. **Health professions** (`health_professions_program`, `academic_year_months`, rules §2.1): for a legacy ' +
    'graduate or professional student, C_max = the legacy combined limit + the program’s additional Unsubsidized amount (FSA ' +
    'Handbook 2025-26 vol. 8 ch. 4, tables 3A and 3B; 10 or 11 months: the 9-month amount ÷ 9 × months, rounded ' +
    'half up; dentistry, 11 months: 44,944). Ignored with a warning for anyone else.',
  '2. **Academic-year percentage**. `credits(t)` is actual_final_credits when present, else credits_enrolled. ' +
    '`annual_ft_credits = Σ full_time_credits`; `reduced_annual_pct = min(100, round_half_up(100 × Σ credits(t) ÷ ' +
    'annual_ft_credits))`. Over-loaded terms count in full; only the total is capped. When academic_year_terms is ' +
    'larger than the number of terms sent, the loan period is shorter than the academic year: the same formula ' +
    'applies to the supplied terms (warning).',
  '3. **Annual amounts**: `annual_basic_eligibility_X = round_half_up(X_base × reduced_annual_pct ÷ 100)` for ' +
    'subsidized and unsubsidized separately. **Grad PLUS** (legacy, interim-exception graduate and professional ' +
    'borrowers without plus_denied) is sized after that reduction: `grad_plus_base = max(0, cost_of_attendance − ' +
    'annual_basic_eligibility_sub − annual_basic_eligibility_unsub)`, at most `total_limit − sub_base − ' +
    'unsub_base` when total_limit is given (warning when that binds), then reduced once: ' +
    '`min(round_half_up(grad_plus_base × reduced_annual_pct ÷ 100), floor(grad_plus_base))`, so the reduced ' +
    'loans plus Grad PLUS never exceed the cost of attendance (Oracle SFP, project-sor). Legacy graduate, cost of ' +
    'attendance 35,000, 14 of 18 credits → 78%: unsubsidized 15,990, Grad PLUS round(19,010 × 78%) = 14,828. ' +
    'Grad PLUS is 0 with a warning when cost_of_attendance is null, plus_denied is true, or the borrower is not ' +
    'legacy (then only when cost_of_attendance is given).',
  '4. **Terms**: `enrollment_intensity_pct` (the term’s own credit ratio; see "COD" below) = ' +
    '`min(100, round_half_up(100 × credits(t) ÷ full_time_credits))`. A term is eligible when `credits(t) ≥ ' +
    'full_time_credits ÷ 2` (exact ratio: 5.99 of 12 is below half time). An ineligible open term gets 0 with a ' +
    'warning.',
  '5. **Two options**: *equal* splits each annual amount equally over the eligible terms; *proportional* weights ' +
    'each eligible term by credits(t) (FSA example 1: 2,205 × 6/15 and 9/15 → 882 + 1,323). show_both_options is ' +
    'true when reduced_annual_pct < 100 and at least two terms are eligible; otherwise every proportional is null ' +
    'and total_proportional equals total_equal (with a warning).',
  '6. **Recalculation after disbursements**: a term with any prior disbursement > 0 is closed and keeps exactly ' +
    'its prior disbursements. For each loan type, `remaining = revised annual amount − Σ prior disbursements of ' +
    'closed terms` is split over the open eligible terms (FSA example 4: 1,660 − 502 = 1,158 → 579 + 579). A ' +
    'negative remaining is an over-disbursement (warning); money with no open eligible term left stays ' +
    'unscheduled (warning). Adjustments compare each open term with a baseline that uses credits_enrolled ' +
    'everywhere (equal option), and name the change that caused them (adjustment_source_index). ' +
    'final_term_overdisbursement flags a closed last term whose payments exceed the revised annual amount: no ' +
    'reduction is required for a drop after the final disbursement; the school may choose to return the excess.',
].join('\n');

/** rules.md §8a: enrollment_intensity_pct is not necessarily COD's "Direct Loan Enrollment Intensity". */
export const COD_NOTE =
  '`enrollment_intensity_pct` is the term’s own credit ratio (credits ÷ full-time credits). It is **not** ' +
  'necessarily the value of COD’s "Direct Loan Enrollment Intensity" field (COD schema 5.0d), which vendors ' +
  'describe as the student’s reduction percentage for the payment period: on this service’s reading that is ' +
  '`reduced_annual_pct` of the calculation in force when that disbursement is made. Do not map ' +
  'enrollment_intensity_pct to COD’s field.';

function inputRules(maxBodyBytes: number): string {
  return [
    `- A 422 validation_error lists **every** offending field by path (\`terms[1].credits_enrolled\`; at most ` +
      `${MAX_FIELD_ERRORS} are listed): missing required fields, wrong types, unknown fields (a typo such as ` +
      '`plus_denid` is rejected, never ignored), an invalid value even in a field that would then be ignored.',
    `- \`terms\`: 1 to ${MAX_TERMS} terms, and no more than academic_year_terms when given; count errors are ` +
      'reported at path `terms`.',
    '- grade_level is required (non-null) for undergraduates (degree_level defaults to undergraduate). It is ' +
      'ignored with a warning for graduate and professional students; is_legacy_borrower: true is ignored with a ' +
      'warning for undergraduates.',
    '- Credit and money fields take a JSON number or a decimal string matching `^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)$` ' +
      '(`"+."`, `"1e3"` and `" 5"` are rejected). Strings are limited to ' +
      `${MAX_DECIMAL_STRING_LENGTH} characters as written. In both forms: at most ${MAX_DECIMAL_PLACES} decimal ` +
      'places once trailing zeros are dropped (`"1.5000000"` is 1.5; `1.5e-7` and `6.1234567` are rejected), not ' +
      `negative (\`"-0"\` is 0), credits at most ${fmt(MAX_CREDITS)}, money at most ${fmt(MAX_MONEY)}; ` +
      'full_time_credits and total_limit must be greater than 0. A JSON number is read as the shortest decimal that ' +
      'identifies it (every in-bounds value round-trips exactly); send decimal strings for full control.',
    '- academic_year_terms is an integer value 2 to 4 or null (3 and 3.0 are the same JSON number). Booleans ' +
      '(is_legacy_borrower, plus_denied, final_period_of_program) are JSON booleans, not nullable. null is ' +
      'accepted only for grade_level, academic_year_terms, cost_of_attendance, total_limit, academic_year_credits ' +
      'and the optional term fields.',
    '- academic_year_credits (credit bounds: > 0, at most ' +
      `${fmt(MAX_CREDITS)}) is required when final_period_of_program is true for an undergraduate (422 at ` +
      '`academic_year_credits`); final_period_of_program on a graduate or professional student is ignored with a ' +
      'warning. These two fields are additions to the interface’s CalculationRequest.',
    '- 400 invalid_json: the body is not UTF-8, not JSON, or not a JSON object. Duplicate keys: the last ' +
      'occurrence wins (JSON.parse semantics). A `__proto__` or `constructor` key is an unknown field (422).',
    '- 415 unsupported_media_type: a content type other than application/json or application/*+json (a charset, ' +
      'when given, must be UTF-8), or a Content-Encoding.',
    `- 413 validation_error: a body over ${fmt(maxBodyBytes)} bytes (HTTP’s own status for it; an addition to the ` +
      'interface’s status list).',
    '- 500 internal_error: never carries a stack trace or internal detail; quote the X-Request-Id response header ' +
      'when reporting it.',
  ].join('\n');
}

export function calculateDescription(maxBodyBytes: number): string {
  return [
    'Calculates the prorated (less-than-full-time) federal Direct Loan limits of one student for each term: the ' +
      '**Schedule of Reductions (SOR)** of 34 CFR 685.203(m)(1) (RISE final rule, 91 FR 23768, effective July 1, ' +
      '2026), implementing HEA §455(a) as amended by Pub. L. 119-21 §81001. The answer is deterministic: the same ' +
      `request gives the same bytes. Rule set \`${RULE_SET_ID}\` (response header \`X-Rule-Set\`).`,
    '',
    '### COD: which field is the Direct Loan Enrollment Intensity',
    COD_NOTE,
    '',
    '### How the amounts are computed',
    CALCULATION_STEPS,
    '',
    '### Statutory annual limits (rules §2.1), by award year',
    'The request’s `award_year` (a CSV column of the same name) picks the award year; left out, the newest award ' +
      'year whose July 1 start is not after the day the request is received (UTC date). Each figure carries the ' +
      'date it took effect, its citation and links.',
    '',
    limitTableMarkdown(),
    '',
    '### Rounding',
    ROUNDING_RULES.map((r) => `- ${r}`).join('\n'),
    '',
    '### Readings chosen where the sources disagree',
    readingsTable,
    '',
    '### Smaller choices where the rules are silent',
    SMALLER_CHOICES.map((c) => `- ${c}`).join('\n'),
    '',
    '### Input rules',
    inputRules(maxBodyBytes),
    '',
    '### Out of scope',
    'Parent PLUS loans are never reduced and are not calculated. Non-term and clock-hour programs are out of scope.',
  ].join('\n');
}

export function infoDescription(maxBodyBytes: number): string {
  return [
    'Prorated federal Direct Loan annual limits for students enrolled less than full time: the **Schedule of ' +
      'Reductions (SOR)** (**Direct Loan Enrollment Intensity** per payment period), 34 CFR 685.203(m), for ' +
      `${awardYearsPhrase()}.`,
    '',
    `Rule set: \`${RULE_SET_ID}\` (also \`info.x-rule-set\`). The identifier of the calculation rules and readings ` +
      'this service applies, bumped whenever a rule or reading changes. Every calculation response (POST ' +
      '/v1/calculate, POST /v1/calculate/bulk in CSV or NDJSON, and the /v1/jobs endpoints) names it in the ' +
      '`X-Rule-Set` response header, so each figure can be traced to the rules that made it.',
    '',
    COD_NOTE,
    '',
    '### Legal basis',
    LEGAL_BASIS.map((l) => `- ${l}`).join('\n'),
    '',
    '### Authentication',
    'The v1 API is open: no endpoint requires authentication. An `Authorization` header is accepted and ignored. ' +
      'The `bearerAuth` scheme (HTTP bearer) is declared for the planned behaviour but is **not enforced**. ' +
      'Planned: clients send `Authorization: Bearer <ACCESS_TOKEN>` with opaque, revocable tokens prefixed by ' +
      'environment (`svc_live_` production, `svc_test_` sandbox); existing integrations keep working with no other ' +
      'change.',
    '',
    '### Reserved (part of v1, not returned or emitted today)',
    '- Error codes: unauthenticated (401, Authorization missing or malformed), invalid_token (401, wrong token ' +
      'format), expired_token (403), revoked_token (403), quota_exceeded (429, rate or usage limit reached). See ' +
      'components.responses.',
    '- Response headers: X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (see components.headers). ' +
      'No rate limiting is applied today.',
    '',
    '### Conventions',
    '- Every response carries `X-Request-Id`: the client’s own value (letters, digits and `._~:/+=@-`, at most ' +
      '128 characters) or a generated UUID. Request logs never contain bodies or query strings.',
    `- JSON bodies up to ${fmt(maxBodyBytes)} bytes. Errors use the Error envelope {code, message}; a 422 may ` +
      'carry FieldValidationErrorBody {code, message, field_errors}.',
    '- Versioning: the path prefix /v1; this description is version 1.0.0. Enabling authentication later is ' +
      'additive.',
    '- Operational endpoints outside the interface: GET /healthz (liveness) and GET /readyz (readiness); an ' +
      'unknown path answers 404 `not_found` and a method a path does not serve answers 405 `method_not_allowed` ' +
      '(ExtendedError envelope).',
  ].join('\n');
}
