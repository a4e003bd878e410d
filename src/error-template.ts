/**
 * Message templates of the error catalogue (src/errors.ts): `{name}` marks a parameter. The parameter names of a
 * template are a type (so `appError` call sites must give exactly those), and one function fills them in.
 */

/** The `{parameter}` names of a message template, as a union of string literals. */
export type TemplateParams<T extends string> = T extends `${string}{${infer P}}${infer Rest}`
  ? P | TemplateParams<Rest>
  : never;

const PARAM = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

/** Fills a template; a parameter without a value is a programming error (TypeScript prevents it at call sites). */
export function renderTemplate(template: string, params: Readonly<Record<string, string | number>>): string {
  return template.replace(PARAM, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`error template parameter {${name}} has no value`);
    return String(value);
  });
}

/** "1 error" / "3 errors": the counted noun of a template parameter. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
