/**
 * Warning sentences (rules.md §7): plain English an aid officer can paste into a student's file. Each function
 * returns exactly one sentence, deterministic for its arguments, with the amounts written out ($1,840; credits
 * as given: 10.5). Nothing here decides *whether* to warn; the calculation modules do that.
 *
 * One namespace for the calculation (`import * as W`), the sentences kept by the rules' section they explain.
 */

export * from './warning-text.ts';
export * from './warnings-bases.ts';
export * from './warnings-final-period.ts';
export * from './warnings-terms.ts';
