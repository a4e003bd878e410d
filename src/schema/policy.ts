/**
 * The `policy` object of a CalculationRequest (rules.md §10), derived from the one policy table
 * (src/domain/policy.ts): every option optional, unknown options and values a 422 at `policy.<option>`. The
 * schema's output is the options the request gives; parseCalculationRequest resolves them over the deployment's
 * default (SOR_POLICY) or a file's query, so a request without `policy` gets that default whole.
 */
import 'zod-openapi';
import { z } from 'zod';
import { POLICY_OPTIONS, type PolicyChoices } from '../domain/policy.ts';

function optionSchema(option: (typeof POLICY_OPTIONS)[number]) {
  const values = option.values as unknown as readonly [string, ...string[]];
  const allowed = `one of: ${values.join(', ')}`;
  return z
    .enum(values, {
      error: (issue) =>
        issue.input === undefined
          ? 'is required'
          : issue.input === null
            ? `must be ${allowed}; null is not allowed here (leave the option out for the default, ${values[0]})`
            : `must be ${allowed}`,
    })
    .optional()
    .meta({
      description:
        `${option.description} Default: ${values[0]}. When a school would choose another value: ${option.choose} ` +
        `Source: ${option.citation}.`,
    });
}

const shape = Object.fromEntries(POLICY_OPTIONS.map((option) => [option.name, optionSchema(option)]));

export const PolicySchema = z
  .strictObject(shape, {
    error: (issue) =>
      issue.input === null
        ? 'must be an object of school-policy options; null is not allowed here (leave policy out for the default)'
        : 'must be an object of school-policy options',
  })
  .optional()
  .transform((value) => value as PolicyChoices | undefined)
  .meta({
    id: 'SchoolPolicy',
    description:
      'School policy (rules.md §10): where the rules leave a choice to the school "as long as [it is] consistent", ' +
      'or a contested reading a school settled on its own counsel’s advice. Every option is optional; an absent ' +
      'option takes the deployment default (SOR_POLICY), else the service’s reading (the first value). Unknown ' +
      'options and values are a 422 at policy.<option>. A non-default option adds a warning naming the options in ' +
      'force; the worksheet lists every option. The rule set id does not change with the policy.',
  });

/** The policy a calculation or a job used: every option with its value in force (the worksheet, the job status). */
export const PolicyInForceSchema = z
  .strictObject(
    Object.fromEntries(
      POLICY_OPTIONS.map((o) => [o.name, z.enum(o.values as unknown as readonly [string, ...string[]])]),
    ),
  )
  .meta({
    id: 'SchoolPolicyInForce',
    description:
      'The school policy used (rules.md §10), every option with its value in force: the request’s (or the ' +
      'file’s `policy.<option>` query parameters) over the deployment default (SOR_POLICY) over the service’s ' +
      'reading.',
  });
