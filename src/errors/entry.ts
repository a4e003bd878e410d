/** The shape of one entry of the error catalogue (src/errors.ts), shared by its files by area. */
import type { WireErrorCode } from '../error-codes.ts';

export interface FieldError {
  /** Path of the offending field: `terms[1].credits_enrolled` in JSON, the column name in CSV. */
  field: string;
  message: string;
}

/** One catalogue entry. `message` is a template: `{name}` is replaced by the parameter of that name. */
export interface ErrorEntry {
  readonly code: WireErrorCode;
  readonly status: number;
  readonly message: string;
  /**
   * An internal_error's message never reaches the wire (the envelope says INTERNAL_MESSAGE) unless the entry is
   * written for clients: the job lifecycle failures that tell the client to submit the file again.
   */
  readonly public?: true;
}

/** The wire message of every internal_error that is not `public`: no stack, no internal detail. */
export const INTERNAL_MESSAGE = 'An internal error occurred.';
