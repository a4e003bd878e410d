/**
 * The single-student tab: submit the form to POST /v1/calculate, show the result or the errors in words, then the
 * worksheet, the print and PDF buttons, "What if…" and the link that reopens the same student. The student travels
 * in the URL fragment only (`#dependency_status=dependent&terms[0].label=Fall…`): a fragment is never sent to a
 * server, so it never reaches a request log. The student's name and ID never travel in it: they go with the
 * worksheet requests only. The school policy (policy.ts) goes with the request as `policy` and with the link as
 * `policy.<option>=<value>` pairs; changing it while a result is shown calculates again.
 */
import { apiFetch } from './api.ts';
import { byId } from './dom.ts';
import { StudentForm, type FieldError, type FormState } from './form.ts';
import { POLICY_PREFIX, choicesFromState, choicesWords, type PolicySection } from './policy.ts';
import { renderResult, type CalculationResult } from './results.ts';
import { downloadPdf, showWorksheet } from './worksheet-view.ts';
import { WhatIf } from './whatif.ts';
import { inWords } from './words.ts';

interface ErrorBody {
  code?: string;
  message?: string;
  field_errors?: FieldError[];
}

export function stateFromFragment(hash: string): FormState | null {
  const text = hash.replace(/^#/, '');
  if (!text.includes('=')) return null;
  const pairs = [...new URLSearchParams(text)];
  return pairs.length > 0 ? pairs : null;
}

export function linkFor(state: FormState): string {
  return `${location.origin}${location.pathname}#${new URLSearchParams(state).toString()}`;
}

/** What to say when the service refused the request for a reason that is not a field. */
export function refusalText(status: number, body: ErrorBody): string {
  if (status === 401) {
    return 'This service needs an access token: open “Access token” at the top of the page and paste yours.';
  }
  if (status === 403) return `${inWords(body.message ?? 'The access token was refused.')} Ask for a new token.`;
  return body.message ? inWords(body.message) : 'The calculation failed. Try again in a moment.';
}

export function startSingle(policy: PolicySection): void {
  const form = new StudentForm(byId<HTMLFormElement>('student-form'));
  const output = byId('result');
  const sheet = byId('worksheet');
  const actions = byId('result-actions');
  const link = byId<HTMLAnchorElement>('reopen-link');
  const status = byId('single-status');
  const pdfButton = byId<HTMLButtonElement>('pdf-button');
  const whatIf = new WhatIf(byId('whatif'), byId<HTMLButtonElement>('whatif-button'), (i) => form.termName(i));
  let lastRequest: Record<string, unknown> | null = null;
  // Each calculation's number: an answer that arrives after a newer calculation started is dropped.
  let latest = 0;

  const clear = () => {
    output.replaceChildren();
    sheet.replaceChildren();
    actions.hidden = true;
    whatIf.reset(null);
    lastRequest = null;
  };

  /** Calculates what the form holds; `focus` moves to the result (not when a policy change recalculates). */
  async function calculate(focus = true): Promise<void> {
    const mine = ++latest;
    const missing = form.missingChoices();
    const request = form.request();
    const choices = policy.choices();
    if (Object.keys(choices).length > 0) request['policy'] = choices;
    const state: FormState = [...form.state(), ...policy.pairs()];
    status.textContent = 'Calculating…';
    let res: Response;
    try {
      res = await apiFetch('/v1/calculate', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(request),
      });
    } catch {
      status.textContent = 'The service could not be reached. Check the connection and try again.';
      return;
    }
    const body = (await res.json().catch(() => ({}))) as CalculationResult & ErrorBody;
    if (mine !== latest) return;
    if (missing.length > 0 || !res.ok) {
      status.textContent = '';
      clear();
      // A choice the page asks for was left empty: the service's own errors are added, except those the missing
      // choice explains (a grade level is asked once the degree level is chosen).
      const asked = new Set(missing.map((m) => m.field));
      const fieldErrors = (res.ok ? [] : (body.field_errors ?? [])).filter(
        (e) => !asked.has(e.field) && !(e.field === 'grade_level' && asked.has('degree_level')),
      );
      const errors = [...missing, ...fieldErrors];
      form.showErrors(errors, errors.length === 0 ? refusalText(res.status, body) : undefined);
      // A policy the service refuses (an older page against a newer service): show its controls.
      if (fieldErrors.some((e) => e.field === 'policy' || e.field.startsWith(POLICY_PREFIX))) {
        byId<HTMLDetailsElement>('policy').open = true;
      }
      return;
    }
    form.clearErrors();
    lastRequest = request;
    renderResult(output, body, res.headers.get('X-Rule-Set'), choicesWords(choices), policy.disbursement());
    link.href = linkFor(state);
    history.replaceState(null, '', link.href);
    actions.hidden = false;
    status.textContent = 'Calculated.';
    whatIf.reset({ request, result: body, school: policy.disbursement() });
    if (focus) byId('result-heading').focus();
    pdfButton.disabled = !(await showWorksheet(sheet, request, form.identity(), policy.disbursement()));
  }

  form.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void calculate();
  });
  // The name and ID are printed on the worksheet: a change shows on the worksheet at once.
  for (const id of ['student-name', 'student-id']) {
    byId(id).addEventListener('change', () => {
      if (lastRequest === null) return;
      void showWorksheet(sheet, lastRequest, form.identity(), policy.disbursement()).then((ok) => {
        pdfButton.disabled = !ok;
      });
    });
  }
  byId('print-button').addEventListener('click', () => window.print());
  pdfButton.addEventListener('click', () => {
    if (lastRequest === null) return;
    void downloadPdf(lastRequest, form.identity()).then((problem) => {
      status.textContent = problem ?? 'The PDF was downloaded.';
    });
  });
  byId('copy-link').addEventListener('click', () => {
    // The clipboard exists only in a secure context (https or localhost).
    if (!navigator.clipboard) {
      status.textContent = 'Copy the link from the address bar.';
      return;
    }
    void navigator.clipboard.writeText(link.href).then(
      () => (status.textContent = 'The link was copied.'),
      () => (status.textContent = 'Copy the link from the address bar.'),
    );
  });

  const reopen = () => {
    const state = stateFromFragment(location.hash);
    if (state === null) return;
    policy.useLinkPolicy(choicesFromState(state));
    form.fill(state.filter(([name]) => !name.startsWith(POLICY_PREFIX)));
    void calculate();
  };
  // A new policy changes the figures: a result on the screen is calculated again under it.
  policy.onChange(() => {
    if (!actions.hidden) void calculate(false);
  });
  window.addEventListener('hashchange', reopen);
  reopen();
}
