/**
 * The worksheet request's `student` (POST /v1/calculate/worksheet only): who the worksheet is for, printed on it
 * and on the name of its PDF, never logged or stored. `{"name": "Ana Díaz", "id": "A00123456"}`, both optional;
 * each a string of 1 to 100 characters (Unicode code points) once trimmed, without control characters or line
 * breaks; any other key is a 422 at `student.<key>`. POST /v1/calculate keeps refusing `student` as an unknown
 * field. Error messages never repeat the value: a 422 names the field and the rule only.
 */
import 'zod-openapi';
import { z } from 'zod';
import type { StudentIdentity } from '../domain/summary.ts';
import type { FieldError } from '../errors.ts';

export const STUDENT_FIELD = 'student';
export const MAX_STUDENT_TEXT = 100;

/** C0 and C1 controls, and the line and paragraph separators: nothing a name or an id holds. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

function studentText(what: string, example: string) {
  return z
    .string({
      error: (issue) =>
        issue.input === null ? `must be text; null is not allowed here (leave ${what} out)` : 'must be text',
    })
    .trim()
    .check(
      z.refine((v) => v.length > 0, {
        message: `must not be empty (leave ${what} out when there is none)`,
        abort: true,
      }),
      z.refine((v) => [...v].length <= MAX_STUDENT_TEXT, { message: `must be at most ${MAX_STUDENT_TEXT} characters` }),
      z.refine((v) => !CONTROL.test(v), { message: 'must not contain control characters or line breaks' }),
    )
    .optional()
    .meta({
      description:
        `The student’s ${what}, printed on the worksheet: 1 to ${MAX_STUDENT_TEXT} characters once trimmed, no ` +
        'control characters. Never logged or stored.',
      example,
    });
}

export const StudentSchema = z
  .strictObject(
    { name: studentText('name', 'Ana Díaz'), id: studentText('id', 'A00123456') },
    {
      error: (issue) =>
        issue.code === 'invalid_type'
          ? issue.input === null
            ? 'must be an object with name and/or id; null is not allowed here (leave student out)'
            : 'must be an object with name and/or id'
          : undefined,
    },
  )
  .meta({
    id: 'WorksheetStudent',
    description:
      'Who the worksheet is for (worksheet only): printed on the HTML and PDF worksheets, in `summary.student`, and ' +
      'in the PDF’s file name (`worksheet-<id, else name>-<award year>.pdf`). Never logged, never stored, never ' +
      'part of a URL. POST /v1/calculate refuses it as an unknown field.',
  });

export type StudentParse = { ok: true; value: StudentIdentity | undefined } | { ok: false; fieldErrors: FieldError[] };

/** The request's `student` (undefined when absent), or its errors at `student.<field>` paths. */
export function parseStudent(value: unknown): StudentParse {
  if (value === undefined) return { ok: true, value: undefined };
  const parsed = StudentSchema.safeParse(value);
  if (parsed.success) {
    const out: StudentIdentity = {};
    if (parsed.data.name !== undefined) out.name = parsed.data.name;
    if (parsed.data.id !== undefined) out.id = parsed.data.id;
    return { ok: true, value: out };
  }
  const fieldErrors: FieldError[] = [];
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const shown = key.length > MAX_STUDENT_TEXT ? `${key.slice(0, MAX_STUDENT_TEXT)}…` : key;
        fieldErrors.push({
          field: `${STUDENT_FIELD}.${shown}`,
          message: 'is not a field of student (fields: name, id)',
        });
      }
      continue;
    }
    const path = issue.path.map(String);
    fieldErrors.push({ field: [STUDENT_FIELD, ...path].join('.'), message: issue.message });
  }
  return { ok: false, fieldErrors };
}
