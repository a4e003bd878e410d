/**
 * "What if…" on a result: the officer describes up to 5 scenarios, each a few changes to the student's terms (a
 * term's credits, its final credit count, or dropping it), and the page asks POST /v1/calculate/compare for all of
 * them at once with the calculation's request as the base. The answer is shown side by side (whatif-view.ts). A
 * scenario is named after its first change until the officer names it. Nothing is kept: a new result starts over.
 */
import { apiFetch } from './api.ts';
import { h, inert } from './dom.ts';
import { normaliseNumber } from './fields.ts';
import type { Disbursement } from './policy.ts';
import type { CalculationResult } from './result-types.ts';
import { renderComparison, type CompareAnswer } from './whatif-view.ts';
import { inWords } from './words.ts';

export const COMPARE_PATH = '/v1/calculate/compare';
export const MAX_SCENARIOS = 5;

type ChangeKind = 'credits_enrolled' | 'actual_final_credits' | 'drop';
const KINDS: readonly (readonly [ChangeKind, string])[] = [
  ['credits_enrolled', 'Credits enrolled become'],
  ['actual_final_credits', 'Final credits become'],
  ['drop', 'Drop the term'],
];

export interface WhatIfBase {
  request: Record<string, unknown>;
  result: CalculationResult;
  school: Disbursement;
}

interface FieldError {
  field: string;
  message: string;
}

export class WhatIf {
  private readonly section: HTMLElement;
  private readonly button: HTMLButtonElement;
  private readonly termName: (index: number) => string;
  private base: WhatIfBase | null = null;
  private list!: HTMLElement;
  private addScenario!: HTMLButtonElement;
  private status!: HTMLElement;
  private output!: HTMLElement;

  constructor(section: HTMLElement, button: HTMLButtonElement, termName: (index: number) => string) {
    this.section = section;
    this.button = button;
    this.termName = termName;
    button.addEventListener('click', () => this.toggle(this.section.hidden));
  }

  /** A new result (or none): the panel starts over with one scenario, closed. */
  reset(base: WhatIfBase | null): void {
    this.base = base;
    this.toggle(false);
    this.section.replaceChildren();
  }

  private toggle(open: boolean): void {
    if (open && this.base !== null && this.section.childElementCount === 0) this.build();
    this.section.hidden = !open;
    this.button.setAttribute('aria-expanded', String(open));
    if (open) this.section.querySelector<HTMLElement>('h2')?.focus();
  }

  private terms(): string[] {
    return (this.base?.result.terms ?? []).map((_, i) => this.termName(i));
  }

  private build(): void {
    this.list = h('div', { class: 'scenarios' });
    this.addScenario = h('button', { type: 'button', class: 'secondary' }, 'Add a scenario');
    this.addScenario.addEventListener('click', () => this.add());
    this.status = h('p', { class: 'status', role: 'status' });
    this.output = h('div', { class: 'comparison', 'aria-live': 'polite' });
    const form = h(
      'form',
      { novalidate: true, id: 'whatif-form' },
      this.list,
      h(
        'p',
        { class: 'whatif-actions' },
        this.addScenario,
        ' ',
        h('button', { type: 'submit', id: 'compare-button' }, 'Compare'),
      ),
      this.status,
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.compare();
    });
    this.section.append(
      h('h2', { tabindex: -1, id: 'whatif-heading' }, 'What if…'),
      h(
        'p',
        { class: 'note' },
        'Describe up to 5 scenarios: what the student’s terms would become. The result above is the base; the ' +
          'scenarios are compared with it side by side. Nothing is saved.',
      ),
      form,
      this.output,
    );
    this.add();
  }

  /** A scenario: its name and its changes, with buttons to add a change and to remove the scenario. */
  private add(): void {
    const n = this.list.childElementCount;
    if (n >= MAX_SCENARIOS) return;
    const name = h('input', { type: 'text', class: 'scenario-name', maxlength: 60, autocomplete: 'off' });
    name.addEventListener('input', () => (name.dataset['named'] = 'true'));
    const changes = h('ol', { class: 'changes' });
    const addChange = h('button', { type: 'button', class: 'secondary' }, 'Add a change');
    const remove = h('button', { type: 'button', class: 'secondary remove-scenario' }, 'Remove this scenario');
    const box = h(
      'fieldset',
      { class: 'scenario' },
      h('legend', {}, `Scenario ${n + 1}`),
      h('label', {}, 'Name ', name),
      changes,
      h('p', { class: 'scenario-actions' }, addChange, ' ', remove),
      h('p', { class: 'error', hidden: true }),
    );
    addChange.addEventListener('click', () => this.addChange(box));
    remove.addEventListener('click', () => {
      box.remove();
      this.renumber();
    });
    this.list.append(box);
    this.addChange(box);
    this.renumber();
  }

  private addChange(box: HTMLElement): void {
    const list = box.querySelector('ol.changes')!;
    const terms = this.terms();
    const term = h('select', { class: 'change-term' }, ...terms.map((t, i) => h('option', { value: i }, t)));
    // The last term is the usual one to change: a class dropped in spring.
    term.value = String(Math.max(0, terms.length - 1));
    const kind = h('select', { class: 'change-kind' }, ...KINDS.map(([v, t]) => h('option', { value: v }, t)));
    const credits = h('input', { type: 'text', inputmode: 'decimal', class: 'change-credits', autocomplete: 'off' });
    const creditsLabel = h('label', { class: 'credits-label' }, 'Credits ', credits);
    const remove = h('button', { type: 'button', class: 'secondary remove-change' }, 'Remove');
    const item = h(
      'li',
      { class: 'change' },
      h('label', {}, 'Term ', term),
      h('label', {}, 'Change ', kind),
      creditsLabel,
      remove,
    );
    const sync = () => {
      creditsLabel.hidden = kind.value === 'drop';
      this.autoName(box);
    };
    for (const control of [term, kind, credits]) control.addEventListener('input', sync);
    kind.addEventListener('change', sync);
    remove.addEventListener('click', () => {
      item.remove();
      this.renumber();
    });
    list.append(item);
    this.renumber();
    sync();
  }

  /** Scenario legends follow their order; remove buttons are offered where something would be left. */
  private renumber(): void {
    const boxes = [...this.list.querySelectorAll<HTMLElement>('fieldset.scenario')];
    boxes.forEach((box, i) => {
      box.querySelector('legend')!.textContent = `Scenario ${i + 1}`;
      box.querySelector<HTMLButtonElement>('.remove-scenario')!.disabled = boxes.length <= 1;
      const removes = box.querySelectorAll<HTMLButtonElement>('.remove-change');
      for (const r of removes) r.disabled = removes.length <= 1;
      const labels = box.querySelectorAll('li.change');
      labels.forEach((li, j) => li.setAttribute('aria-label', `Scenario ${i + 1}, change ${j + 1}`));
      this.autoName(box);
    });
    this.addScenario.disabled = boxes.length >= MAX_SCENARIOS;
  }

  /** A scenario not named by the officer is named after its first change ("Spring at 6 credits"). */
  private autoName(box: HTMLElement): void {
    const name = box.querySelector<HTMLInputElement>('.scenario-name')!;
    if (name.dataset['named'] === 'true') return;
    const first = box.querySelector('li.change');
    const index = [...this.list.children].indexOf(box);
    let text = `Scenario ${index + 1}`;
    if (first) {
      const term = first.querySelector<HTMLSelectElement>('.change-term')!;
      const kind = first.querySelector<HTMLSelectElement>('.change-kind')!.value;
      const credits = normaliseNumber(first.querySelector<HTMLInputElement>('.change-credits')!.value);
      const who = term.selectedOptions[0]?.textContent ?? '';
      if (kind === 'drop') text = `${who} dropped`;
      else if (credits !== '') text = `${who} ${kind === 'credits_enrolled' ? 'at' : 'ending at'} ${credits} credits`;
    }
    const taken = [...this.list.querySelectorAll<HTMLInputElement>('.scenario-name')]
      .filter((other) => other !== name)
      .map((other) => other.value);
    let unique = text.slice(0, 60);
    for (let k = 2; taken.includes(unique); k++) unique = `${text.slice(0, 54)} (${k})`;
    name.value = unique;
  }

  /** The compare request: the base, and each scenario with its changes as the service takes them. */
  private body(): unknown {
    const scenarios = [...this.list.querySelectorAll<HTMLElement>('fieldset.scenario')].map((box) => ({
      name: box.querySelector<HTMLInputElement>('.scenario-name')!.value.trim(),
      changes: [...box.querySelectorAll<HTMLElement>('li.change')].map((li) => {
        const term = Number(li.querySelector<HTMLSelectElement>('.change-term')!.value);
        const kind = li.querySelector<HTMLSelectElement>('.change-kind')!.value as ChangeKind;
        if (kind === 'drop') return { term, drop: true };
        return { term, [kind]: normaliseNumber(li.querySelector<HTMLInputElement>('.change-credits')!.value) };
      }),
    }));
    return { base: this.base?.request, scenarios };
  }

  private async compare(): Promise<void> {
    if (this.base === null) return;
    const base = this.base;
    for (const p of this.section.querySelectorAll<HTMLElement>('fieldset.scenario > p.error')) p.hidden = true;
    this.status.textContent = 'Comparing…';
    let res: Response;
    try {
      res = await apiFetch(COMPARE_PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(this.body()),
      });
    } catch {
      this.status.textContent = 'The service could not be reached. Try again in a moment.';
      return;
    }
    const body = (await res.json().catch(() => ({}))) as CompareAnswer & {
      message?: string;
      field_errors?: FieldError[];
    };
    if (!res.ok) {
      this.output.replaceChildren();
      this.status.textContent = this.showErrors(body.field_errors ?? [], body.message);
      return;
    }
    this.status.textContent = 'Compared.';
    renderComparison(this.output, body, base.result, base.school, (i) => this.termName(i));
    this.output.querySelector<HTMLElement>('h3')?.focus();
  }

  /** Each error under its scenario, in words; the status line says how many. */
  private showErrors(errors: readonly FieldError[], message?: string): string {
    const boxes = [...this.list.querySelectorAll<HTMLElement>('fieldset.scenario')];
    for (const error of errors) {
      const m = /^scenarios\[(\d+)\](?:\.changes\[(\d+)\]\.(\w+))?/.exec(error.field);
      const box = m ? boxes[Number(m[1])] : undefined;
      const where = m?.[2] !== undefined ? `Change ${Number(m[2]) + 1}: ` : '';
      const what =
        m?.[3] === 'credits_enrolled' || m?.[3] === 'actual_final_credits'
          ? 'enter the credits as a number, such as 6'
          : inWords(error.message);
      const line = box?.querySelector<HTMLElement>(':scope > p.error');
      if (line) {
        line.hidden = false;
        line.replaceChildren(inert(`${line.textContent ? `${line.textContent} ` : ''}${where}${what}.`));
      }
    }
    if (errors.length === 0) return message ? inWords(message) : 'The comparison failed. Try again in a moment.';
    return errors.length === 1 ? 'One scenario needs a correction.' : 'Some scenarios need a correction.';
  }
}
