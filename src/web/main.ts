/**
 * The page's entry: the two tabs (one student, a file of students), then each tab's controller. `#bulk` opens the
 * file tab; any other fragment with fields reopens a student.
 */
import { byId } from './dom.ts';
import { RULE_SET } from './service-tables.js';
import { startSingle } from './single.ts';
import { startBulk } from './bulk.ts';
import { startTokenField } from './api.ts';
import { PolicySection } from './policy.ts';

function startTabs(): void {
  const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
  const select = (tab: HTMLButtonElement, focus: boolean) => {
    for (const t of tabs) {
      const selected = t === tab;
      t.setAttribute('aria-selected', String(selected));
      t.tabIndex = selected ? 0 : -1;
      byId(t.getAttribute('aria-controls') ?? '').hidden = !selected;
    }
    if (focus) tab.focus();
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener('click', () => select(tab, false));
    tab.addEventListener('keydown', (e) => {
      const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
      if (step === 0) return;
      e.preventDefault();
      select(tabs[(i + step + tabs.length) % tabs.length]!, true);
    });
  });
  const bulk = tabs.find((t) => t.id === 'tab-bulk');
  if (location.hash === '#bulk' && bulk) select(bulk, false);
}

function main(): void {
  startTabs();
  startTokenField(byId<HTMLInputElement>('access-token'));
  byId('rule-set').textContent = RULE_SET;
  const policy = new PolicySection(byId<HTMLDetailsElement>('policy'));
  startSingle(policy);
  startBulk(policy);
  document.body.dataset['ready'] = 'true';
}

main();
