/**
 * The service's field errors in the aid office's words, for the place beside the field and the list at the top of
 * the form. The service names a field by its path and says what is wrong in an integrator's terms
 * (`terms[1].credits_enrolled: is required`); the page says which term and what to do: "Spring: enter the credits
 * the student is enrolled in." What to do is the field's `ask` (the page words of the field table); the problem is
 * read from the service's message, a problem the page does not know keeps the message, in words (words.ts).
 */
import { fieldOf, type FieldDef } from './fields.ts';
import { inWords } from './words.ts';

export interface FieldError {
  field: string;
  message: string;
}

const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** What the message says is wrong, as the end of a sentence that starts with the field's `ask`. */
function problem(message: string, typed: string): string {
  const required = /^is required (when|for) ([^(]*?)\s*(?:\(.*)?$/.exec(message);
  if (required) return ` (needed ${inWords(`${required[1]} ${required[2]}`)})`;
  if (/^is required\b/.test(message)) return '';
  if (/^must be (?:a decimal number|a number|a finite number)/.test(message)) {
    return typed === '' ? ' as a number' : ` — “${typed}” is not a number`;
  }
  if (/^must not be negative/.test(message)) return ' — it cannot be negative';
  if (/^must be greater than 0/.test(message)) return ' — it must be more than 0';
  const most = /^must be at most ([\d,]+) (credits|dollars)/.exec(message);
  if (most) return ` — at most ${most[2] === 'dollars' ? `$${most[1]}` : `${most[1]} credits`}`;
  const places = /^must have at most (\d+) decimal places/.exec(message);
  if (places) return `, with at most ${places[1]} decimal places`;
  if (/^must be at most \d+ characters long/.test(message)) return ' — the number is too long';
  const length = /^must be (\d+) to (\d+) characters/.exec(message);
  if (length) return ` — use ${length[1]} to ${length[2]} characters`;
  if (/^must be (?:one of|a whole number|a string naming|an award year)/.test(message)) return '';
  return ` — ${inWords(message)}`;
}

/** The error about the list of terms itself (how many there are). */
function termsSentence(message: string): string {
  if (/at least 1 term/.test(message)) return 'Add at least one term.';
  const most = /at most (\d+) terms/.exec(message);
  if (most) return `Enter at most ${most[1]} terms.`;
  const year = /more terms than academic_year_terms \((\d+)\)/.exec(message);
  if (year) {
    return (
      `The academic year has ${year[1]} terms (“Terms in the academic year”, under More details): ` +
      'remove a term or change that number.'
    );
  }
  return `Terms: ${inWords(message)}`;
}

/**
 * One field error as a sentence. `termName(i)` is what the form calls term i (its name as typed, else "Term 2");
 * `typed(path)` is the text in the field, quoted when the service could not read it as a number.
 */
export function errorSentence(
  error: FieldError,
  termName: (index: number) => string,
  typed: (path: string) => string = () => '',
): string {
  if (error.field === 'terms') return termsSentence(error.message);
  const found = fieldOf(error.field);
  if (found === undefined) return fallback(error);
  const { def, term } = found;
  const sentence = `${def.ask}${problem(error.message, typed(error.field))}.`;
  return term === null ? capital(sentence) : `${termName(term)}: ${sentence}`;
}

/** An error about something the form has no field for (the student's name and ID, the policy, the body). */
function fallback(error: FieldError): string {
  const student = /^student\.(name|id)$/.exec(error.field);
  if (student) {
    const what = student[1] === 'id' ? 'Student ID' : 'Student name';
    return `${what}: ${inWords(error.message)}.`;
  }
  if (error.field.startsWith('policy')) return `School policy: ${inWords(error.message)}.`;
  return capital(`${inWords(error.message)}.`);
}

/** The words of a choice the page asks for (a `choose` field left empty). */
export function chooseSentence(def: FieldDef): string {
  return capital(`${def.ask}.`);
}
