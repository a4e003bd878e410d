/**
 * One field of the form as a person meets it: its label (with "required" where the request needs it), the control
 * (buttons for a required choice with none preselected, a list, a box to check, or a text box that takes numbers
 * as people type them), the help in the office's words with a small "API: name" hint for integrators, and a place
 * for its error. Each control's `name` is the field's API path, so an error from the service finds it.
 */
import { h, idOf, type Child } from './dom.ts';
import type { FieldDef } from './fields.ts';

export type Control = HTMLInputElement | HTMLSelectElement;

/** The small hint naming a field for integrators: "API: credits_enrolled" (the page's only API vocabulary). */
export function apiHint(name: string): HTMLElement {
  return h('span', { class: 'api' }, 'API: ', h('code', {}, name));
}

/** The control of a field: a select, a checkbox, or a text box (radio buttons are built by `radioGroup`). */
export function controlOf(def: FieldDef, path: string, id: string): Control {
  if (def.kind === 'select') {
    const select = h('select', { id, name: path });
    for (const [value, text] of def.options ?? []) select.append(h('option', { value }, text));
    return select;
  }
  if (def.kind === 'checkbox') return h('input', { id, name: path, type: 'checkbox', value: 'true' });
  return h('input', {
    id,
    name: path,
    type: 'text',
    inputmode: def.kind === 'decimal' ? 'decimal' : undefined,
    autocomplete: 'off',
    spellcheck: 'false',
  });
}

const required = (def: FieldDef): Child =>
  def.required || def.choose ? h('span', { class: 'req' }, ' (required)') : null;

/** Help under a field: the office's words, then the API name. */
function helpLine(def: FieldDef, path: string, helpId: string): HTMLElement {
  return h('p', { class: 'help', id: helpId }, def.help, ' ', apiHint(path));
}

/** Buttons for a choice, none preselected: the person must choose (a default would be chosen silently). */
function radioGroup(def: FieldDef, path: string, helpId: string, errorId: string): HTMLElement {
  const id = `f-${idOf(path)}`;
  const choices = (def.options ?? []).map(([value, text]) =>
    h(
      'label',
      { class: 'choice' },
      h('input', { type: 'radio', name: path, value, id: `${id}-${value}`, 'aria-describedby': helpId }),
      ' ',
      text,
    ),
  );
  return h(
    'fieldset',
    { class: 'field field-radio', 'data-path': path, id },
    h('legend', {}, def.label, required(def)),
    h('div', { class: 'choices' }, ...choices),
    h('p', { class: 'error', id: errorId, hidden: true }),
    helpLine(def, path, helpId),
  );
}

/** A labelled field of the student (the terms have their own table, terms-table.ts). */
export function fieldView(def: FieldDef, path: string): HTMLElement {
  const id = `f-${idOf(path)}`;
  const helpId = `help-${idOf(path)}`;
  const errorId = `err-${idOf(path)}`;
  if (def.kind === 'radio') return radioGroup(def, path, helpId, errorId);
  const control = controlOf(def, path, id);
  control.setAttribute('aria-describedby', helpId);
  const label = h('label', { for: id }, def.label, required(def));
  const hint = def.hint ? h('span', { class: 'hint' }, ` — ${def.hint}`) : null;
  return h(
    'div',
    { class: `field field-${def.kind}`, 'data-path': path },
    def.kind === 'checkbox' ? h('div', { class: 'check' }, control, label) : h('div', {}, label, hint),
    def.kind === 'checkbox' ? null : control,
    def.legacyOnly
      ? h(
          'p',
          { class: 'applies', id: `applies-${idOf(path)}`, hidden: true },
          'Ignored for this student: it counts only for a legacy graduate or professional student (the result ' +
            'will say so).',
        )
      : null,
    def.kind === 'text' ? h('p', { class: 'bidi-note', id: `bidi-${idOf(path)}`, hidden: true }) : null,
    h('p', { class: 'error', id: errorId, hidden: true }),
    helpLine(def, path, helpId),
  );
}
