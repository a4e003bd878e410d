/**
 * The terms of the loan period as a compact table: one row per term (1 to 4, in order), one column per term field
 * of the request-field table, a Remove button per row and "Add a term" under it. Each row has an error row under it
 * where the service's errors about that term are said in words. On a phone the rows become cards, each cell with
 * its own visible label (page.css). What each column means is folded under the table, with its API name.
 */
import { append, byId, h, idOf } from './dom.ts';
import { MAX_TERMS, TERM_FIELDS, termPath } from './fields.ts';
import { apiHint, controlOf } from './form-controls.ts';

export class TermsTable {
  private readonly body: HTMLElement;
  private readonly addButton: HTMLButtonElement;
  private readonly onRemove: (index: number) => void;
  count = 0;

  constructor(table: HTMLTableElement, addButton: HTMLButtonElement, onRemove: (index: number) => void) {
    this.addButton = addButton;
    this.onRemove = onRemove;
    const head = h(
      'tr',
      {},
      ...TERM_FIELDS.map((def) =>
        h('th', { scope: 'col' }, def.label, def.hint ? h('span', { class: 'hint' }, ` (${def.hint})`) : null),
      ),
      h('th', { scope: 'col' }, h('span', { class: 'vh' }, 'Remove a term')),
    );
    this.body = h('tbody', { id: 'terms' });
    table.append(h('thead', {}, head), this.body);
    byId('terms-help').append(
      h(
        'dl',
        {},
        ...TERM_FIELDS.flatMap((def) => [
          h('dt', {}, def.label),
          h('dd', {}, def.help, ' ', apiHint(termPath(0, def.key).replace('[0]', '[]'))),
        ]),
      ),
    );
  }

  /** A term's row and the row under it for its errors. */
  private rows(index: number): [HTMLTableRowElement, HTMLTableRowElement] {
    const cells = TERM_FIELDS.map((def) => {
      const path = termPath(index, def.key);
      const id = `f-${idOf(path)}`;
      const control = controlOf(def, path, id);
      return h(
        'td',
        { class: `cell cell-${def.kind}`, 'data-path': path },
        h('label', { for: id, class: 'cell-label' }, h('span', { class: 'vh' }, `Term ${index + 1}: `), def.label),
        control,
        def.kind === 'text' ? h('p', { class: 'bidi-note', id: `bidi-${idOf(path)}`, hidden: true }) : null,
      );
    });
    const remove = h(
      'button',
      { type: 'button', class: 'secondary remove-term', id: `remove-term-${index + 1}` },
      'Remove',
      h('span', { class: 'vh' }, ` term ${index + 1}`),
    );
    remove.addEventListener('click', () => this.onRemove(index));
    const row = h('tr', { class: 'term', 'data-term': index }, ...cells, h('td', { class: 'cell-remove' }, remove));
    const errors = h(
      'tr',
      { class: 'term-errors', 'data-term': index, hidden: true },
      h(
        'td',
        { colspan: TERM_FIELDS.length + 1 },
        ...TERM_FIELDS.map((def) =>
          h('p', { class: 'error', id: `err-${idOf(termPath(index, def.key))}`, hidden: true }),
        ),
      ),
    );
    return [row, errors];
  }

  /** Shows `count` terms (1–4): rows are added or removed at the end, what was typed in the others stays. */
  setCount(count: number): void {
    const next = Math.max(1, Math.min(MAX_TERMS, count));
    while (this.count < next) append(this.body, ...this.rows(this.count++));
    while (this.count > next) {
      this.body.lastElementChild?.remove();
      this.body.lastElementChild?.remove();
      this.count--;
    }
    this.addButton.disabled = this.count >= MAX_TERMS;
    for (const button of this.body.querySelectorAll<HTMLButtonElement>('.remove-term')) {
      button.disabled = this.count <= 1;
    }
  }

  /** Shows or hides each term's error row by whether it holds an error. */
  showErrorRows(): void {
    for (const row of this.body.querySelectorAll<HTMLElement>('tr.term-errors')) {
      row.hidden = row.querySelector('p.error:not([hidden])') === null;
    }
  }
}
