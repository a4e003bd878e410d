/**
 * The what-if answer side by side: one column for the base (the result above) and one per scenario; rows for the
 * annual percentage, each annual amount, the year's totals and each term's amounts under the option the school
 * disburses by. Every scenario figure carries its difference from the base as the service computed it
 * (`differences`: {base, scenario, change} triples), written with its sign and an arrow — a rise ▲ +$90, a fall
 * ▼ −$225 — and tinted; the tint is never the only mark. A term the scenario drops reads "dropped".
 */
import { fill, formatChange, formatDollars, h, inert } from './dom.ts';
import type { Disbursement } from './policy.ts';
import { LOANS, hasGradPlus, type CalculationResult } from './result-types.ts';
import { shownOption } from './result-terms.ts';

export interface Triple {
  base: number | null;
  scenario: number | null;
  change: number | null;
}
export interface CompareScenario {
  name: string;
  result: CalculationResult;
  differences: unknown;
}
export interface CompareAnswer {
  rule_set?: string;
  base: CalculationResult;
  scenarios: CompareScenario[];
}

/** The triple at `path` of a scenario's differences (`annual.subsidized`, `terms[1].equal.subsidized`). */
export function tripleAt(differences: unknown, path: string): (Triple & { dropped?: boolean }) | undefined {
  let node: unknown = differences;
  let dropped = false;
  for (const part of path.replace(/\[(\d+)\]/g, '.$1').split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    if ((node as { dropped?: unknown }).dropped === true) dropped = true;
    node = (node as Record<string, unknown>)[part];
  }
  if (node === null || typeof node !== 'object' || !('change' in node)) return undefined;
  return { ...(node as Triple), ...(dropped ? { dropped } : {}) };
}

interface Row {
  label: string;
  path: string;
  unit: 'pct' | 'dollars';
  group?: string;
}

function rowsOf(base: CalculationResult, option: 'equal' | 'proportional', termName: (i: number) => string): Row[] {
  const loans = hasGradPlus(base) ? LOANS : LOANS.filter(([loan]) => loan !== 'grad_plus');
  const rows: Row[] = [{ label: 'Annual percentage', path: 'reduced_annual_pct', unit: 'pct', group: 'The year' }];
  for (const [loan, name] of loans)
    rows.push({ label: `${name} for the year`, path: `annual.${loan}`, unit: 'dollars' });
  const optionName = option === 'equal' ? 'equal' : 'proportional';
  loans.forEach(([loan, name], j) => {
    rows.push({
      label: `${name}, total scheduled`,
      path: `totals.${option}.${loan}`,
      unit: 'dollars',
      group: j === 0 ? `Scheduled for the year by the ${optionName} option` : undefined,
    });
  });
  base.terms.forEach((_, i) => {
    loans.forEach(([loan, name], j) => {
      rows.push({
        label: `${name}`,
        path: `terms[${i}].${option}.${loan}`,
        unit: 'dollars',
        group: j === 0 ? termName(i) : undefined,
      });
    });
  });
  return rows;
}

const shown = (value: number | null, unit: Row['unit']) =>
  value === null ? 'not offered' : unit === 'pct' ? `${value}%` : formatDollars(value);

/** A difference with its sign and an arrow, in words too: "▲ +$90", "▼ −13 points", "no change". */
function changeView(t: Triple, unit: Row['unit']): HTMLElement {
  const change = t.change ?? 0;
  const text =
    unit === 'pct'
      ? change === 0
        ? 'no change'
        : `${change > 0 ? '+' : '−'}${Math.abs(change)} points`
      : formatChange(change);
  const direction = change > 0 ? 'up' : change < 0 ? 'down' : 'same';
  return h(
    'span',
    { class: `diff ${direction}` },
    change > 0 ? '▲ ' : change < 0 ? '▼ ' : '',
    h('span', { class: 'diff-text' }, text),
  );
}

function cell(t: (Triple & { dropped?: boolean }) | undefined, row: Row, s: number): HTMLTableCellElement {
  if (t === undefined) return h('td', { 'data-field': `scenarios[${s}].${row.path}` }, '—');
  if (t.dropped) {
    return h('td', { class: 'dropped', 'data-field': `scenarios[${s}].${row.path}` }, 'dropped');
  }
  return h(
    'td',
    { class: 'num', 'data-field': `scenarios[${s}].${row.path}` },
    h('span', { class: 'value' }, shown(t.scenario, row.unit)),
    ' ',
    changeView(t, row.unit),
  );
}

export function renderComparison(
  target: HTMLElement,
  answer: CompareAnswer,
  base: CalculationResult,
  school: Disbursement,
  termName: (index: number) => string,
): void {
  const option = shownOption(base, school);
  const rows = rowsOf(answer.base ?? base, option, termName);
  const span = answer.scenarios.length + 2;
  const body: HTMLTableRowElement[] = [];
  for (const row of rows) {
    if (row.group)
      body.push(
        h(
          'tr',
          { class: 'group' },
          h('th', { scope: 'colgroup', colspan: span }, h('span', { class: 'pinned' }, inert(row.group))),
        ),
      );
    const first = tripleAt(answer.scenarios[0]?.differences, row.path);
    body.push(
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, row.label),
        h('td', { class: 'num', 'data-field': `base.${row.path}` }, shown(first?.base ?? null, row.unit)),
        ...answer.scenarios.map((s, i) => cell(tripleAt(s.differences, row.path), row, i)),
      ),
    );
  }
  fill(
    target,
    h('h3', { tabindex: -1, id: 'comparison-heading' }, 'Side by side'),
    h(
      'p',
      { class: 'note' },
      `Differences from now are written with their sign: ▲ more, ▼ less. Terms are shown under the ${option} option.`,
    ),
    h(
      'div',
      { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Scenarios side by side' },
      h(
        'table',
        { class: 'comparison-table' },
        h('caption', { class: 'vh' }, 'The base and each scenario side by side'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('td', {}),
            h('th', { scope: 'col' }, 'Now'),
            ...answer.scenarios.map((s) => h('th', { scope: 'col' }, inert(s.name))),
          ),
        ),
        h('tbody', {}, ...body),
      ),
    ),
  );
}
