/**
 * The OpenAPI parts of files as registrars export them: the upload query parameters of the bulk door
 * (the job door takes the same) and GET /v1/calculate/bulk/template.csv.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { CSV_CHARSETS, CSV_DELIMITERS } from '../../bulk/csv-dialect.ts';
import { TEMPLATE_EXAMPLE_ID, TEMPLATE_PATH } from '../bulk-template.ts';
import { POLICY_OPTIONS } from '../../domain/policy.ts';
import { policyParameter } from '../policy-query.ts';

/** One `policy.<option>` query parameter per option of the one policy table (src/domain/policy.ts). */
const POLICY_QUERY = Object.fromEntries(
  POLICY_OPTIONS.map((option) => {
    const values = option.values as unknown as readonly [string, ...string[]];
    return [
      policyParameter(option.name),
      z
        .enum(values)
        .optional()
        .meta({
          description:
            `School policy for every student of the file (rules.md ${option.section}): ${option.summary} ` +
            `Default: the deployment's SOR_POLICY, else ${values[0]}. When a school would choose another value: ` +
            `${option.choose} Source: ${option.citation}.`,
        }),
    ];
  }),
);

export const UPLOAD_QUERY = z.object({
  ...POLICY_QUERY,
  charset: z
    .string()
    .optional()
    .meta({
      description:
        `The file's charset, instead of the Content-Type's (or the multipart file part's): ` +
        `${CSV_CHARSETS.join(', ')} (aliases such as cp1252, latin1 accepted). Default: the charset of the ` +
        'Content-Type, else UTF-8. An unknown charset is 415.',
    }),
  delimiter: z
    .enum(Object.keys(CSV_DELIMITERS) as [keyof typeof CSV_DELIMITERS])
    .optional()
    .meta({ description: 'The cell delimiter of the file (default comma).' }),
  output_delimiter: z
    .enum(Object.keys(CSV_DELIMITERS) as [keyof typeof CSV_DELIMITERS])
    .optional()
    .meta({
      description:
        'The cell delimiter of the CSV output. Default: the file’s own (a semicolon file is answered in ' +
        'semicolons, a tab file in tabs, so the spreadsheet that wrote it opens the answer).',
    }),
  extra_columns: z.enum(['strict', 'keep']).optional().meta({
    description: 'strict (default): a column outside the layout rejects the file (400); keep: it is echoed verbatim.',
  }),
  bom: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: 'true: the CSV output starts with a UTF-8 byte order mark (for Excel).' }),
});

export const UPLOAD_ENCODING_NOTE =
  '\n\n### Charsets, delimiters, extra columns, gzip\n' +
  'The body may be declared in another charset (`Content-Type: text/csv; charset=windows-1252`, or `?charset=`), ' +
  'use `;` or TAB (`?delimiter=`; the CSV answer then uses it too, unless `?output_delimiter=` asks for another), ' +
  'keep columns outside the layout (`?extra_columns=keep`), and be sent with ' +
  '`Content-Encoding: gzip` (the limits count the decompressed bytes). `application/octet-stream` is read as ' +
  'CSV. Unnamed columns (trailing empty columns) are ignored while their cells are empty. With ' +
  '`Accept-Encoding: gzip` the answer is gzip-compressed (`Content-Encoding: gzip`, `Vary: Accept-Encoding`).' +
  '\n\n### School policy (one per file)\n' +
  'Every student of the file is calculated under one school policy (rules.md §10): the deployment default ' +
  '(SOR_POLICY) with the file’s own `policy.<option>=<value>` parameters over it, option by option (' +
  POLICY_OPTIONS.map((o) => `\`${policyParameter(o.name)}\`: ${o.values.join(' | ')}`).join('; ') +
  '). An unknown option, a value outside the table or a parameter given twice is a 400 validation_error naming ' +
  'the parameter (field_errors: `policy.<option>`), before any row is read. A non-default option adds the ' +
  'warning naming the options in force to every calculated student; an async job’s status shows the policy it ' +
  'ran with.';

export const TEMPLATE_PATHS: ZodOpenApiPathsObject = {
  [TEMPLATE_PATH]: {
    get: {
      operationId: 'bulkTemplate',
      tags: ['calculation'],
      summary: 'A bulk CSV file to start from',
      description:
        `The header with every column of the bulk CSV layout v1 and one example student (worked example ` +
        `${TEMPLATE_EXAMPLE_ID}, FSA Schedule of Reductions example 1), one row per term.`,
      responses: {
        '200': {
          description: 'The template (UTF-8 CSV).',
          content: { 'text/csv': { schema: z.string() } },
        },
      },
    },
  },
};
