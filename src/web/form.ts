/**
 * The single-student form: the required choices first (none preselected), the amounts, the terms table, the other
 * details behind "More details", and the student's name and ID for the worksheet. It makes the request (amounts
 * typed as people type them are sent as plain numbers), its state as name/value pairs (the reopen link: never the
 * name or ID) and shows errors beside their fields in words (field-errors.ts) and in a list at the top.
 */
import { byId, h, idOf, inert } from './dom.ts';
import { hasBidiControls, showBidiControls } from './inert.ts';
import { STUDENT_FIELDS, TERM_FIELDS, fieldOf, normaliseNumber, termPath, type FieldDef } from './fields.ts';
import { fieldView, type Control } from './form-controls.ts';
import { TermsTable } from './terms-table.ts';
import { chooseSentence, errorSentence, type FieldError } from './field-errors.ts';

export type FormState = [name: string, value: string][];
export type { FieldError } from './field-errors.ts';

/** The student's name and ID: printed on the worksheet only, never in the link, the calculation or the browser. */
export interface StudentIdentity {
  name?: string;
  id?: string;
}

const DEFS = new Map<string, FieldDef>(STUDENT_FIELDS.map((d) => [d.key, d]));

export class StudentForm {
  readonly form: HTMLFormElement;
  private readonly terms: TermsTable;
  private readonly more: HTMLDetailsElement;

  constructor(form: HTMLFormElement) {
    this.form = form;
    const main = byId('student-main');
    const more = byId('student-more');
    for (const def of STUDENT_FIELDS) (def.more ? more : main).append(fieldView(def, def.key));
    this.more = byId<HTMLDetailsElement>('more-details');
    const add = byId<HTMLButtonElement>('add-term');
    this.terms = new TermsTable(byId<HTMLTableElement>('terms-table'), add, (i) => this.removeTerm(i));
    add.addEventListener('click', () => {
      this.terms.setCount(this.terms.count + 1);
      this.control(termPath(this.terms.count - 1, 'label'))?.focus();
    });
    this.terms.setCount(2);
    this.form.addEventListener('change', () => this.updateApplicability());
    this.form.addEventListener('input', (event) => {
      if (event.target instanceof HTMLInputElement && event.target.type === 'text') this.showControls(event.target);
    });
    this.updateApplicability();
  }

  private value(name: string): string {
    const checked = this.form.querySelector<HTMLInputElement>(`input[type="radio"][name="${name}"]:checked`);
    if (checked) return checked.value;
    const control = this.control(name);
    return control && !(control instanceof HTMLInputElement && control.type === 'radio') ? control.value : '';
  }

  /**
   * What depends on other answers: the grade level is asked for an undergraduate only (and not sent otherwise);
   * the health professions fields count only for a legacy graduate or professional student — for anyone else a
   * note says the service will ignore a value they hold, which is kept and sent.
   */
  updateApplicability(): void {
    const degree = this.value('degree_level');
    const grade = this.form.querySelector<HTMLFieldSetElement>('fieldset[data-path="grade_level"]');
    if (grade) {
      grade.hidden = degree !== 'undergraduate';
      grade.disabled = grade.hidden;
    }
    const legacy = this.control('is_legacy_borrower');
    const applies =
      legacy instanceof HTMLInputElement && legacy.checked && (degree === 'graduate' || degree === 'professional');
    for (const def of STUDENT_FIELDS) {
      if (!def.legacyOnly) continue;
      const wrap = this.form.querySelector<HTMLElement>(`.field[data-path="${def.key}"]`);
      const note = document.getElementById(`applies-${idOf(def.key)}`);
      if (wrap === null || note === null) continue;
      wrap.classList.toggle('not-applicable', !applies);
      note.hidden = applies || this.value(def.key) === '';
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

  /** What the form calls term `index`: its name as typed, else "Term 2". */
  termName(index: number): string {
    const typed = this.control(termPath(index, 'label'))?.value.trim() ?? '';
    return typed === '' ? `Term ${index + 1}` : showBidiControls(typed);
  }

  private removeTerm(index: number): void {
    const state = this.state().filter(([name]) => !name.startsWith(`terms[${index}].`));
    const renumbered: FormState = state.map(([name, value]) => {
      const m = /^terms\[(\d+)\]\.(.+)$/.exec(name);
      if (!m || Number(m[1]) < index) return [name, value];
      return [termPath(Number(m[1]) - 1, m[2]!), value];
    });
    this.fill(renumbered, this.terms.count - 1);
    this.control(termPath(Math.max(0, index - 1), 'label'))?.focus();
  }

  /** The control named `name` (the first button of a choice). */
  control(name: string): Control | null {
    return this.form.querySelector<Control>(`[name="${CSS.escape(name)}"]`);
  }

  /** The controls of the request: the student's name and ID (data-private) and fields not asked are left out. */
  private controls(): Control[] {
    return [...this.form.querySelectorAll<Control>('input[name], select[name]')].filter(
      (c) => !c.matches('[data-private], fieldset:disabled *'),
    );
  }

  /** What is filled in, as [field path, text] pairs (numbers as they are sent): the reopen link's content. */
  state(): FormState {
    const pairs: FormState = [];
    for (const c of this.controls()) {
      if (c instanceof HTMLInputElement && (c.type === 'checkbox' || c.type === 'radio')) {
        if (c.checked) pairs.push([c.name, c.value]);
        continue;
      }
      const decimal = fieldOf(c.name)?.def.kind === 'decimal';
      const value = decimal ? normaliseNumber(c.value) : c.value.trim();
      if (value !== '') pairs.push([c.name, value]);
    }
    return pairs;
  }

  /** Replaces the form's content with `state` (unknown names are ignored); opens More details when it holds any. */
  fill(state: FormState, termCount?: number): void {
    const terms = state
      .map(([name]) => /^terms\[(\d+)\]\./.exec(name))
      .reduce((n, m) => (m ? Math.max(n, Number(m[1]) + 1) : n), 0);
    this.terms.setCount(termCount ?? Math.max(1, terms));
    const values = new Map(state);
    for (const c of this.form.querySelectorAll<Control>('input[name], select[name]')) {
      if (c.matches('[data-private]')) continue;
      const value = values.get(c.name);
      if (c instanceof HTMLInputElement && c.type === 'checkbox') c.checked = value === 'true';
      else if (c instanceof HTMLInputElement && c.type === 'radio') c.checked = value === c.value;
      else if (c instanceof HTMLSelectElement) c.value = value ?? c.options[0]?.value ?? '';
      else c.value = value ?? '';
      if (c instanceof HTMLInputElement && c.type === 'text') this.showControls(c);
    }
    if (state.some(([name]) => DEFS.get(name)?.more)) this.more.open = true;
    this.updateApplicability();
  }

  /** The CalculationRequest: empty fields are left out, numbers are sent as exact decimal strings. */
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
    for (let i = 0; i < this.terms.count; i++) {
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

  /** The student's name and ID as typed (trimmed; empty ones left out), for the worksheet request only. */
  identity(): StudentIdentity {
    const out: StudentIdentity = {};
    const name = byId<HTMLInputElement>('student-name').value.trim();
    const id = byId<HTMLInputElement>('student-id').value.trim();
    if (name !== '') out.name = name;
    if (id !== '') out.id = id;
    return out;
  }

  /**
   * The choices the page asks for that are still empty: the dependency status, the degree level, and the grade
   * level once the degree level is undergraduate (before that it is not asked).
   */
  missingChoices(): FieldError[] {
    const asked = STUDENT_FIELDS.filter((d) => d.kind === 'radio' && (d.required || d.choose));
    const shown = asked.filter((d) => !this.form.querySelector(`fieldset[data-path="${d.key}"]:disabled`));
    return shown.filter((d) => this.value(d.key) === '').map((d) => ({ field: d.key, message: '' }));
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
    this.terms.showErrorRows();
    const summary = byId('form-errors');
    summary.hidden = true;
    summary.replaceChildren();
  }

  /** The sentence of an error: a choice left empty (message '') or the service's field error in words. */
  private sentence(error: FieldError): string {
    const def = DEFS.get(error.field);
    if (error.message === '' && def) return chooseSentence(def);
    const typed = (path: string) => showBidiControls(this.control(path)?.value.trim() ?? '');
    return errorSentence(error, (i) => this.termName(i), typed);
  }

  /**
   * Shows each error beside its field, in words, and all of them in a list at the top (each a link to its field);
   * `message` heads the list when the service's answer was not about fields. Focus goes to the first field.
   */
  showErrors(errors: readonly FieldError[], message?: string): void {
    this.clearErrors();
    const items: HTMLElement[] = [];
    let first: HTMLElement | null = null;
    for (const error of errors) {
      const text = showBidiControls(this.sentence(error));
      const control = this.control(error.field);
      const errorEl = document.getElementById(
        control ? `err-${idOf(error.field)}` : error.field === 'terms' ? 'err-terms' : '',
      );
      if (errorEl) {
        errorEl.hidden = false;
        errorEl.classList.add('inert');
        errorEl.textContent = errorEl.textContent ? `${errorEl.textContent} ${text}` : text;
      }
      if (control) {
        const group = this.form.querySelectorAll<Control>(`[name="${CSS.escape(error.field)}"]`);
        for (const c of group) {
          c.setAttribute('aria-invalid', 'true');
          const ids = (c.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
          c.setAttribute('aria-describedby', [`err-${idOf(error.field)}`, ...ids].join(' '));
        }
        if (DEFS.get(error.field)?.more) this.more.open = true;
      }
      const target = control ?? (error.field === 'terms' ? byId('add-term') : null);
      const item = target ? h('a', { href: `#${target.id}` }, inert(text)) : inert(text);
      if (target) item.addEventListener('click', (e) => (e.preventDefault(), target.focus()));
      items.push(h('li', {}, item));
      first ??= target;
    }
    this.terms.showErrorRows();
    const summary = byId('form-errors');
    const heading = message ?? (errors.length === 1 ? 'One thing to correct:' : `${errors.length} things to correct:`);
    summary.replaceChildren(h('p', {}, h('strong', {}, inert(heading))), items.length ? h('ul', {}, ...items) : '');
    summary.hidden = false;
    (first ?? summary).focus();
  }
}
