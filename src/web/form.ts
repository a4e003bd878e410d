/**
 * The single-student form: built from the field table (fields.ts) with the OpenAPI help texts, 1–4 terms, the
 * request it makes, its state as name/value pairs (the reopen link), and the API's field errors shown beside
 * their fields (aria-invalid + aria-describedby) and in a summary at the top.
 */
import { append, byId, h, idOf, inert } from './dom.ts';
import { hasBidiControls, showBidiControls } from './inert.ts';
import { MAX_TERMS, STUDENT_FIELDS, TERM_FIELDS, termPath, type FieldDef } from './fields.ts';
import type { FieldHelp } from './openapi-help.ts';

type Control = HTMLInputElement | HTMLSelectElement;
export type FormState = [name: string, value: string][];
export interface FieldError {
  field: string;
  message: string;
}

export class StudentForm {
  readonly form: HTMLFormElement;
  private readonly help: FieldHelp;
  private readonly termsBox: HTMLElement;
  private readonly addButton: HTMLButtonElement;
  private termCount = 0;

  constructor(form: HTMLFormElement, help: FieldHelp) {
    this.form = form;
    this.help = help;
    const student = byId('student-fields');
    for (const def of STUDENT_FIELDS) append(student, this.field(def, def.key));
    this.termsBox = byId('terms');
    this.addButton = byId<HTMLButtonElement>('add-term');
    this.addButton.addEventListener('click', () => {
      this.setTermCount(this.termCount + 1);
      this.control(termPath(this.termCount - 1, 'label'))?.focus();
    });
    this.setTermCount(2);
    this.form.addEventListener('change', () => this.updateApplicability());
    this.form.addEventListener('input', (event) => {
      if (event.target instanceof HTMLInputElement && event.target.type === 'text') this.showControls(event.target);
    });
    this.updateApplicability();
  }

  /**
   * The health professions fields count only for a legacy graduate or professional student: for anyone else
   * they are dimmed and, when they hold a value, a note says the service will ignore it (with a warning). The
   * value is kept and sent, never cleared.
   */
  updateApplicability(): void {
    const legacy = this.control('is_legacy_borrower');
    const level = this.control('degree_level')?.value ?? '';
    const applies =
      legacy instanceof HTMLInputElement && legacy.checked && (level === 'graduate' || level === 'professional');
    for (const def of STUDENT_FIELDS) {
      if (!def.legacyOnly) continue;
      const wrap = this.form.querySelector<HTMLElement>(`.field[data-path="${def.key}"]`);
      const note = document.getElementById(`applies-${idOf(def.key)}`);
      if (wrap === null || note === null) continue;
      wrap.classList.toggle('not-applicable', !applies);
      note.hidden = applies || (this.control(def.key)?.value ?? '') === '';
    }
  }

  /** Under a text input holding bidirectional controls, the text as it is, with the controls made visible. */
  private showControls(input: HTMLInputElement): void {
    const note = document.getElementById(`bidi-${idOf(input.name)}`);
    if (note === null) return;
    const found = hasBidiControls(input.value);
    note.hidden = !found;
    note.replaceChildren(...(found ? ['Holds invisible direction controls: ', inert(input.value)] : []));
  }

  /** One labelled field: label, control, help text (from the OpenAPI document) and a place for its error. */
  private field(def: FieldDef, path: string): HTMLElement {
    const id = `f-${idOf(path)}`;
    const helpText = this.help.describe(path);
    const helpId = `help-${idOf(path)}`;
    const errorId = `err-${idOf(path)}`;
    const control = this.control_(def, path, id);
    if (helpText) control.setAttribute('aria-describedby', helpId);
    const label = h('label', { for: id }, def.label, def.required ? h('span', { class: 'req' }, ' (required)') : null);
    const hint = def.hint ? h('span', { class: 'hint' }, ` — ${def.hint}`) : null;
    const wrap = h(
      'div',
      { class: `field field-${def.kind}`, 'data-path': path },
      def.kind === 'checkbox' ? h('div', { class: 'check' }, control, label) : h('div', {}, label, hint),
      def.kind === 'checkbox' ? null : control,
      def.legacyOnly
        ? h(
            'p',
            { class: 'applies', id: `applies-${idOf(path)}`, hidden: true },
            'Ignored for this student: it counts only for a legacy graduate or professional student (the answer ' +
              'will say so in a warning).',
          )
        : null,
      def.kind === 'text' ? h('p', { class: 'bidi-note', id: `bidi-${idOf(path)}`, hidden: true }) : null,
      h('p', { class: 'error', id: errorId, hidden: true }),
      helpText ? h('p', { class: 'help', id: helpId }, helpText) : null,
    );
    return wrap;
  }

  private control_(def: FieldDef, path: string, id: string): Control {
    if (def.kind === 'select') {
      const select = h('select', { id, name: path });
      const options = [...(def.options ?? [])];
      if (def.enumFromApi) for (const v of this.help.values(path)) options.push([v, v]);
      for (const [value, text] of options) select.append(h('option', { value }, text));
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

  private termFieldset(index: number): HTMLFieldSetElement {
    const remove = h(
      'button',
      { type: 'button', class: 'secondary remove-term', id: `remove-term-${index + 1}` },
      `Remove term ${index + 1}`,
    );
    remove.addEventListener('click', () => this.removeTerm(index));
    const box = h('fieldset', { class: 'term', 'data-term': index }, h('legend', {}, `Term ${index + 1}`));
    const grid = h('div', { class: 'grid' });
    for (const def of TERM_FIELDS) append(grid, this.field(def, termPath(index, def.key)));
    append(box, grid, remove);
    return box;
  }

  /** Shows `count` terms (1–4), keeping what was typed in the terms that stay. */
  setTermCount(count: number): void {
    const next = Math.max(1, Math.min(MAX_TERMS, count));
    while (this.termCount < next) this.termsBox.append(this.termFieldset(this.termCount++));
    while (this.termCount > next) {
      this.termsBox.lastElementChild?.remove();
      this.termCount--;
    }
    this.addButton.disabled = this.termCount >= MAX_TERMS;
    for (const button of this.termsBox.querySelectorAll<HTMLButtonElement>('.remove-term')) {
      button.disabled = this.termCount <= 1;
    }
  }

  private removeTerm(index: number): void {
    const state = this.state().filter(([name]) => !name.startsWith(`terms[${index}].`));
    const renumbered: FormState = state.map(([name, value]) => {
      const m = /^terms\[(\d+)\]\.(.+)$/.exec(name);
      if (!m || Number(m[1]) < index) return [name, value];
      return [termPath(Number(m[1]) - 1, m[2]!), value];
    });
    this.fill(renumbered, this.termCount - 1);
    this.control(termPath(Math.max(0, index - 1), 'label'))?.focus();
  }

  control(name: string): Control | null {
    return this.form.querySelector<Control>(`[name="${CSS.escape(name)}"]`);
  }

  private controls(): Control[] {
    return [...this.form.querySelectorAll<Control>('input[name], select[name]')];
  }

  /** What is filled in, as [field path, text] pairs: the reopen link's content. */
  state(): FormState {
    const pairs: FormState = [];
    for (const c of this.controls()) {
      if (c instanceof HTMLInputElement && c.type === 'checkbox') {
        if (c.checked) pairs.push([c.name, 'true']);
      } else if (c.value.trim() !== '') {
        pairs.push([c.name, c.value.trim()]);
      }
    }
    return pairs;
  }

  /** Replaces the form's content with `state` (unknown names are ignored). */
  fill(state: FormState, termCount?: number): void {
    const terms = state
      .map(([name]) => /^terms\[(\d+)\]\./.exec(name))
      .reduce((n, m) => (m ? Math.max(n, Number(m[1]) + 1) : n), 0);
    this.setTermCount(termCount ?? Math.max(1, terms));
    const values = new Map(state);
    for (const c of this.controls()) {
      const value = values.get(c.name);
      if (c instanceof HTMLInputElement && c.type === 'checkbox') c.checked = value === 'true';
      else if (c instanceof HTMLSelectElement) c.value = value ?? c.options[0]?.value ?? '';
      else c.value = value ?? '';
      if (c instanceof HTMLInputElement && c.type === 'text') this.showControls(c);
    }
    this.updateApplicability();
  }

  /** The CalculationRequest: empty fields are left out, decimals are sent as typed (exact decimal strings). */
  request(): Record<string, unknown> {
    const values = new Map(this.state());
    const pick = (def: FieldDef, path: string): unknown => {
      const text = values.get(path);
      if (text === undefined) return undefined;
      if (def.kind === 'checkbox') return true;
      if (def.integer && /^\d+$/.test(text)) return Number(text);
      return text;
    };
    const body: Record<string, unknown> = {};
    for (const def of STUDENT_FIELDS) {
      const value = pick(def, def.key);
      if (value !== undefined) body[def.key] = value;
    }
    const terms: Record<string, unknown>[] = [];
    for (let i = 0; i < this.termCount; i++) {
      const term: Record<string, unknown> = {};
      for (const def of TERM_FIELDS) {
        const value = pick(def, termPath(i, def.key));
        if (value !== undefined) term[def.key] = value;
      }
      terms.push(term);
    }
    body['terms'] = terms;
    return body;
  }

  clearErrors(): void {
    for (const el of this.form.querySelectorAll<HTMLElement>('p.error')) {
      el.hidden = true;
      el.textContent = '';
    }
    for (const c of this.form.querySelectorAll('[aria-invalid]')) {
      c.removeAttribute('aria-invalid');
      const ids = (c.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => !id.startsWith('err-'));
      if (ids.length > 0) c.setAttribute('aria-describedby', ids.join(' '));
      else c.removeAttribute('aria-describedby');
    }
    const summary = byId('form-errors');
    summary.hidden = true;
    summary.replaceChildren();
  }

  /** Shows each field error beside its field; errors without a field of the form go to the summary only. */
  showErrors(message: string, errors: readonly FieldError[]): void {
    this.clearErrors();
    const items: HTMLElement[] = [];
    let first: HTMLElement | null = null;
    for (const { field, message: text } of errors) {
      const control = this.control(field);
      const target = control ?? (field === 'terms' ? this.termsBox : null);
      const errorEl = control ? document.getElementById(`err-${idOf(field)}`) : byId('err-terms');
      if (errorEl) {
        errorEl.hidden = false;
        errorEl.classList.add('inert');
        const shown = showBidiControls(text);
        errorEl.textContent = errorEl.textContent ? `${errorEl.textContent} ${shown}` : shown;
      }
      if (control) {
        control.setAttribute('aria-invalid', 'true');
        const ids = (control.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
        control.setAttribute('aria-describedby', [`err-${idOf(field)}`, ...ids].join(' '));
      }
      const link = control ? h('a', { href: `#${control.id}` }, field) : h('strong', {}, field || 'request');
      if (control) link.addEventListener('click', (e) => (e.preventDefault(), control.focus()));
      items.push(h('li', {}, link, ': ', inert(text)));
      first ??= target === this.termsBox ? this.addButton : control;
    }
    const summary = byId('form-errors');
    summary.replaceChildren(h('p', {}, inert(message)), h('ul', {}, ...items));
    summary.hidden = false;
    (first ?? summary).focus();
  }
}
