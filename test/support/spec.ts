/**
 * Where the project's published spec folder (shared/spec: examples.json, rules.md) is, when it is there: next
 * to the checkout (`<repo>/../shared/spec`, how CI and every developer machine lay it out) or where
 * SOR_SPEC_DIR points. The service never reads it at run time; tests use it only to prove the copy shipped in
 * src/api/openapi/worked-examples.json has not drifted from the published file.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const candidates = [process.env.SOR_SPEC_DIR, fileURLToPath(new URL('../../../shared/spec', import.meta.url))].filter(
  (dir): dir is string => dir !== undefined && dir !== '',
);

/** Path of shared/spec/examples.json, or undefined when the spec folder is not beside this checkout. */
export const SPEC_EXAMPLES_FILE: string | undefined = candidates
  .map((dir) => `${dir}/examples.json`)
  .find((file) => existsSync(file));

/** Path of shared/spec/rules.md, or undefined when the spec folder is not beside this checkout. */
export const SPEC_RULES_FILE: string | undefined = candidates
  .map((dir) => `${dir}/rules.md`)
  .find((file) => existsSync(file));
