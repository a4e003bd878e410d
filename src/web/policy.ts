/**
 * The "School policy" section (rules.md §10): one control per option of the service's policy table
 * (service-tables.js, written from src/domain/policy.ts at build time), in the office's words (policy-words.ts) with
 * the API name as a small hint, the default marked "service default", the option's one-line summary under it and,
 * folded, when a school would choose another value and the source. One more choice is the page's own: the option
 * the school disburses by (equal or proportional), which the result highlights; it changes no figure and is not sent.
 *
 * The choices are remembered by the browser (localStorage) and apply to both tabs: the single-student form sends
 * the non-default options as `policy` (an option left at the service default is not sent, so a deployment's own
 * default, SOR_POLICY, still applies to it), the file tab as `policy.<option>` query parameters on POST /v1/jobs.
 * The section's summary line says what is in force even while it is closed.
 *
 * A link to a student carries its policy (`policy.<option>=<value>` in the fragment); reopening it shows and uses
 * that policy without overwriting what this browser remembers until the person changes a control.
 */
import { byId, fill, h } from './dom.ts';
import { POLICY_OPTIONS, type PolicyOptionTable } from './service-tables.js';
import { apiHint } from './form-controls.ts';
import { choiceWords, optionTitle, valueWords } from './policy-words.ts';
import { inWords } from './words.ts';

/** Options whose value differs from the service default: option → value. */
export type PolicyChoices = Record<string, string>;

const STORAGE_KEY = 'sor-school-policy';
const DISBURSE_KEY = 'sor-disbursement-option';
export const POLICY_PREFIX = 'policy.';

/** The option a school disburses by: the result highlights it (proportional only where it is offered). */
export type Disbursement = 'equal' | 'proportional';

const defaultOf = (option: PolicyOptionTable): string => option.values[0] ?? '';

/** `choices` reduced to the known options and values that differ from the service default. */
export function cleanChoices(choices: Record<string, unknown>): PolicyChoices {
  const out: PolicyChoices = {};
  for (const option of POLICY_OPTIONS) {
    const value = choices[option.name];
    if (typeof value === 'string' && option.values.includes(value) && value !== defaultOf(option)) {
      out[option.name] = value;
    }
  }
  return out;
}

/** `proration_fraction=decimal_rounded, remainder_placement=last_term`, in the table's order (for comparing). */
export function choicesText(choices: PolicyChoices): string {
  return POLICY_OPTIONS.filter((o) => choices[o.name] !== undefined)
    .map((o) => `${o.name}=${choices[o.name]}`)
    .join(', ');
}

/** The same in words: "Final-period fraction: 2 decimals, rounded (24 ÷ 36 → 0.67); …"; '' for the defaults. */
export function choicesWords(choices: PolicyChoices): string {
  return POLICY_OPTIONS.filter((o) => choices[o.name] !== undefined)
    .map((o) => choiceWords(o.name, choices[o.name]!))
    .join('; ');
}

/** A source as the page shows it: the regulation and guidance, without the service's own rules document. */
function sourceWords(citation: string): string {
  return citation
    .split('; ')
    .filter((part) => !part.startsWith('rules.md'))
    .join('; ');
}

/** The policy pairs of a reopen link's state (`policy.proration_fraction` → value). */
export function choicesFromState(state: readonly (readonly [string, string])[]): PolicyChoices {
  const pairs = state.filter(([name]) => name.startsWith(POLICY_PREFIX));
  return cleanChoices(Object.fromEntries(pairs.map(([name, value]) => [name.slice(POLICY_PREFIX.length), value])));
}

function readStored(): PolicyChoices {
  try {
    const text = localStorage.getItem(STORAGE_KEY);
    if (text === null) return {};
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? cleanChoices(parsed as Record<string, unknown>) : {};
  } catch {
    return {}; // storage refused (private mode) or an old, unreadable entry: the service defaults
  }
}

function readDisbursement(): Disbursement {
  try {
    return localStorage.getItem(DISBURSE_KEY) === 'proportional' ? 'proportional' : 'equal';
  } catch {
    return 'equal';
  }
}

function writeDisbursement(value: Disbursement): void {
  try {
    if (value === 'equal') localStorage.removeItem(DISBURSE_KEY);
    else localStorage.setItem(DISBURSE_KEY, value);
  } catch {
    // Storage refused: the choice holds for this page only.
  }
}

function writeStored(choices: PolicyChoices): void {
  try {
    if (Object.keys(choices).length === 0) localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, JSON.stringify(choices));
  } catch {
    // Storage refused: the choices hold for this page only.
  }
}

export class PolicySection {
  private readonly selects = new Map<string, HTMLSelectElement>();
  private readonly summaryState: HTMLElement;
  private readonly status: HTMLElement;
  private readonly listeners: (() => void)[] = [];
  private readonly disburseSelect: HTMLSelectElement;

  constructor(box: HTMLDetailsElement) {
    this.summaryState = byId('policy-state');
    this.status = byId('policy-status');
    const list = byId('policy-options');
    this.disburseSelect = h(
      'select',
      { id: 'disbursement-option', 'aria-describedby': 'disbursement-option-help' },
      h('option', { value: 'equal' }, 'Equal amounts each term'),
      h('option', { value: 'proportional' }, 'Proportional to credits, where offered'),
    );
    this.disburseSelect.value = readDisbursement();
    list.append(this.disbursementView());
    for (const option of POLICY_OPTIONS) list.append(this.optionView(option));
    this.show(readStored());
    byId('policy-reset').addEventListener('click', () => {
      this.show({});
      writeStored({});
      this.disburseSelect.value = 'equal';
      writeDisbursement('equal');
      this.status.textContent = 'Every option is back at the service default.';
      this.changed();
    });
    box.addEventListener('change', (event) => {
      if (!(event.target instanceof HTMLSelectElement)) return;
      if (event.target === this.disburseSelect) writeDisbursement(this.disbursement());
      else writeStored(this.choices());
      this.status.textContent = 'Saved in this browser.';
      this.changed();
    });
  }

  /** The page's own choice: which option the school disburses by (highlighted in the result; nothing is sent). */
  private disbursementView(): HTMLElement {
    return h(
      'div',
      { class: 'field policy-option', 'data-option': 'disbursement' },
      h('label', { for: 'disbursement-option' }, 'Disbursement option your school uses'),
      this.disburseSelect,
      h(
        'p',
        { class: 'help', id: 'disbursement-option-help' },
        'The result shows both options and highlights this one. Proportional is offered only to a student who is ' +
          'reduced and has two or more eligible terms; otherwise equal applies.',
      ),
    );
  }

  /** The option the school disburses by. */
  disbursement(): Disbursement {
    return this.disburseSelect.value === 'proportional' ? 'proportional' : 'equal';
  }

  private optionView(option: PolicyOptionTable): HTMLElement {
    const id = `policy-${option.name}`;
    const helpId = `${id}-help`;
    const select = h('select', { id, name: `${POLICY_PREFIX}${option.name}`, 'aria-describedby': helpId });
    option.values.forEach((value, i) => {
      const words = valueWords(option.name, value);
      select.append(h('option', { value }, i === 0 ? `${words} (service default)` : words));
    });
    this.selects.set(option.name, select);
    return h(
      'div',
      { class: 'field policy-option', 'data-option': option.name },
      h('label', { for: id }, optionTitle(option.name)),
      select,
      h('p', { class: 'help', id: helpId }, option.summary, ' ', apiHint(`${POLICY_PREFIX}${option.name}`)),
      h(
        'details',
        { class: 'why' },
        h('summary', {}, 'When a school would choose another value'),
        h('p', {}, inWords(option.choose)),
        h('p', { class: 'cite' }, 'Source: ', h('cite', {}, inWords(sourceWords(option.citation)))),
      ),
    );
  }

  /** Sets every control: the options in `choices`, the others at the service default. */
  private show(choices: PolicyChoices): void {
    for (const option of POLICY_OPTIONS) {
      const select = this.selects.get(option.name);
      if (select) select.value = choices[option.name] ?? defaultOf(option);
    }
    this.describe();
  }

  /** The summary line, visible with the section closed: what is in force. */
  private describe(): void {
    const choices = this.choices();
    const text = choicesWords(choices);
    // An option away from the service default stands out among the others.
    for (const [name, select] of this.selects) {
      select.closest('.policy-option')?.classList.toggle('changed', choices[name] !== undefined);
    }
    fill(this.summaryState, text === '' ? 'service defaults' : h('strong', {}, `in force: ${text}`));
    this.summaryState.classList.toggle('changed', text !== '');
  }

  private changed(): void {
    this.describe();
    for (const listener of this.listeners) listener();
  }

  /** Called after the person (or a reset) changes the policy. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The options the controls set away from the service default. */
  choices(): PolicyChoices {
    const out: PolicyChoices = {};
    for (const [name, select] of this.selects) out[name] = select.value;
    return cleanChoices(out);
  }

  /** The `policy.<option>=<value>` pairs of the non-default options (a reopen link, a file's query). */
  pairs(): [string, string][] {
    return Object.entries(this.choices()).map(([name, value]) => [`${POLICY_PREFIX}${name}`, value]);
  }

  /**
   * Shows the policy a reopen link carries (absent options at the service default) and uses it, without saving it
   * over this browser's choices; says so when it differs from them.
   */
  useLinkPolicy(choices: PolicyChoices): void {
    const stored = readStored();
    this.show(choices);
    const before = choicesWords(stored);
    const now = choicesWords(choices);
    this.status.textContent =
      before === now
        ? ''
        : `This link’s policy is shown (${now || 'service defaults'}); this browser’s saved choices ` +
          `(${before || 'service defaults'}) return on a page opened without a link, unless you change an option here.`;
  }
}
