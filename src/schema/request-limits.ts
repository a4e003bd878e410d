/** The request's size limits (rules.md §8), shared by the schema (request.ts) and its fast path. */

/** Most terms a request may hold (rules.md §8): an academic year has at most 4 terms. */
export const MAX_TERMS = 4;
/**
 * Terms inspected field by field when a request holds too many: the count error is reported at `terms`, and the
 * items past this index are not inspected (this bounds the work and the size of the error list for hostile
 * bodies; a request over MAX_TERMS must be resent with fewer terms anyway).
 */
export const MAX_INSPECTED_TERMS = 16;
