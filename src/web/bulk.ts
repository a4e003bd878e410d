/**
 * The bulk tab: a CSV dropped or picked is submitted twice through POST /v1/jobs — once for a CSV result, once
 * for NDJSON — so both downloads are the service's own output. A progress bar follows the jobs' progress; at
 * the end the page shows rows ok / error rows (from the CSV job's counts), the error rows' line, column and
 * message (from the NDJSON result, whose field errors read `line N: …`), the download links and, when the job
 * status has one, the shadow check's summary. The school policy (policy.ts) goes with both submissions as
 * `policy.<option>=<value>` query parameters, and the summary names the policy the jobs ran under. Student ids,
 * columns and messages from the file are shown inert (dom.ts `inert`).
 */
import { byId, formatNumber, h, inert } from './dom.ts';
import { showBidiControls } from './inert.ts';
import { choicesText, cleanChoices, type PolicySection } from './policy.ts';
import { renderCheckSummary } from './check-chart.ts';
import { apiFetch, saveAs } from './api.ts';

interface Job {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  progress: { students_done: number; students_total: number | null; rows_done: number; error_rows: number };
  error: { code: string; message: string } | null;
  result_url: string;
  check_summary?: unknown;
  /** The school policy the job ran with (every option), when the service reports it. */
  policy?: unknown;
}
interface ErrorRow {
  line: number | null;
  student: string;
  column: string;
  message: string;
}

const POLL_MS = 400;
const FORMATS = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;

async function submit(file: File, accept: string, policyPairs: [string, string][]): Promise<Job> {
  const body = new FormData();
  body.append('file', file, file.name);
  const query = new URLSearchParams(policyPairs).toString();
  const res = await apiFetch(`/v1/jobs${query ? `?${query}` : ''}`, { method: 'POST', headers: { accept }, body });
  const json = (await res.json().catch(() => ({}))) as Job & { message?: string };
  if (!res.ok) throw new Error(json.message ?? `The file was refused (${res.status}).`);
  return json;
}

async function status(job: Job): Promise<Job> {
  const res = await apiFetch(`/v1/jobs/${encodeURIComponent(job.id)}`, { headers: { accept: 'application/json' } });
  const json = (await res.json().catch(() => ({}))) as Job & { message?: string };
  if (!res.ok) throw new Error(json.message ?? `The job's status could not be read (${res.status}).`);
  return json;
}

/** The error rows of an NDJSON result: one per field error, its line read from `line N: …`. */
export function errorRows(ndjson: string): ErrorRow[] {
  const rows: ErrorRow[] = [];
  for (const text of ndjson.split('\n')) {
    if (text.trim() === '') continue;
    const entry = JSON.parse(text) as {
      student_id: string;
      error: { message: string; field_errors?: { field: string; message: string }[] } | null;
    };
    if (entry.error === null) continue;
    const fields = entry.error.field_errors ?? [];
    if (fields.length === 0)
      rows.push({ line: null, student: entry.student_id, column: '', message: entry.error.message });
    for (const f of fields) {
      const m = /^line (\d+): ([\s\S]*)$/.exec(f.message);
      rows.push({
        line: m ? Number(m[1]) : null,
        student: entry.student_id,
        column: f.field,
        message: m ? m[2]! : f.message,
      });
    }
  }
  return rows.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
}

export function startBulk(policy: PolicySection): void {
  const input = byId<HTMLInputElement>('bulk-file');
  const drop = byId('drop-zone');
  const chosen = byId('bulk-chosen');
  const button = byId<HTMLButtonElement>('bulk-submit');
  const bar = byId<HTMLProgressElement>('bulk-progress');
  const progressText = byId('bulk-progress-text');
  const summary = byId('bulk-summary');
  const problem = byId('bulk-error');
  let file: File | null = null;

  const choose = (f: File | null | undefined) => {
    file = f ?? null;
    chosen.textContent = file ? `${file.name} (${formatNumber(file.size)} bytes)` : 'No file chosen.';
    button.disabled = file === null;
  };
  input.addEventListener('change', () => choose(input.files?.[0]));
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    choose(e.dataTransfer?.files[0]);
  });

  const show = (jobs: Job[]) => {
    const done = jobs.reduce((n, j) => n + j.progress.students_done, 0);
    const totals = jobs.map((j) => j.progress.students_total);
    const total = totals.every((t) => t !== null) ? totals.reduce<number>((n, t) => n + (t ?? 0), 0) : null;
    const finished = jobs.every((j) => j.status === 'completed');
    bar.max = total && total > 0 ? total : 1;
    bar.value = finished ? bar.max : Math.min(done, bar.max);
    const students =
      total === null ? '' : ` — ${formatNumber(done / jobs.length)} of ${formatNumber(total / jobs.length)} students`;
    progressText.textContent = `${finished ? 'Done' : jobs.map((j) => j.status).join(' / ')}${students}`;
  };

  async function run(f: File): Promise<void> {
    problem.hidden = true;
    summary.replaceChildren();
    bar.hidden = false;
    bar.removeAttribute('value');
    progressText.textContent = 'Uploading…';
    // The submission answers {id, status, status_url, result_url}; the progress comes with the status.
    const pairs = policy.pairs();
    const sent = choicesText(policy.choices());
    const accepted = await Promise.all([submit(f, FORMATS.csv, pairs), submit(f, FORMATS.ndjson, pairs)]);
    let jobs: Job[] = await Promise.all(accepted.map(status));
    show(jobs);
    while (!jobs.every((j) => j.status === 'completed' || j.status === 'failed')) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      jobs = await Promise.all(jobs.map(status));
      show(jobs);
    }
    const failed = jobs.find((j) => j.status === 'failed');
    if (failed) throw new Error(failed.error?.message ?? 'The job failed.');
    const csvJob = jobs[0]!;
    const ndjsonJob = jobs[1]!;
    const res = await apiFetch(ndjsonJob.result_url);
    if (!res.ok) throw new Error(`The result could not be read (${res.status}).`);
    renderSummary(csvJob, ndjsonJob, errorRows(await res.text()), f.name, sent);
  }

  /** A download button: the result is fetched with the page's credentials and saved under `fileName`. */
  function download(url: string, fileName: string, label: string): HTMLButtonElement {
    const button = h('button', { type: 'button' }, label);
    button.addEventListener('click', () => {
      void saveAs(url, {}, fileName).then((problem) => {
        progressText.textContent = problem ?? `${fileName} was downloaded.`;
      });
    });
    return button;
  }

  /** The policy the jobs ran under: the job status's own record when it has one, else what was sent. */
  function policyLine(job: Job, sent: string): HTMLElement {
    const recorded =
      job.policy !== null && typeof job.policy === 'object' ? (job.policy as Record<string, unknown>) : undefined;
    const used = recorded !== undefined ? choicesText(cleanChoices(recorded)) : sent;
    return used === ''
      ? h('p', { class: 'policy-used', 'data-field': 'policy' }, 'School policy: service defaults.')
      : h(
          'p',
          { class: 'policy-notice', 'data-field': 'policy' },
          h('strong', {}, 'School policy: '),
          `${used}. These figures follow the school’s choices, not the service’s default reading.`,
        );
  }

  function renderSummary(csvJob: Job, ndjsonJob: Job, rows: ErrorRow[], name: string, sent: string): void {
    const { rows_done, error_rows } = csvJob.progress;
    const base = name.replace(/\.[^.]*$/, '') || 'results';
    const table = rows.length
      ? h(
          'div',
          { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Error rows' },
          h(
            'table',
            { class: 'errors' },
            h(
              'caption',
              {},
              'Error rows: each problem with its line (the other rows of such a student are not calculated)',
            ),
            h(
              'thead',
              {},
              h('tr', {}, ...['Line', 'Student', 'Column', 'Message'].map((t) => h('th', { scope: 'col' }, t))),
            ),
            h(
              'tbody',
              {},
              ...rows.map((r) =>
                h(
                  'tr',
                  {},
                  h('td', { class: 'num' }, r.line ?? '—'),
                  h('td', {}, inert(r.student)),
                  h('td', {}, inert(r.column)),
                  h('td', {}, inert(r.message)),
                ),
              ),
            ),
          ),
        )
      : h('p', {}, 'No error rows.');
    summary.replaceChildren(
      h('h3', { id: 'bulk-summary-heading', tabindex: -1 }, 'Summary'),
      h(
        'p',
        { class: 'counts' },
        h('span', { 'data-field': 'rows_ok' }, formatNumber(rows_done - error_rows)),
        ' rows ok, ',
        h('span', { 'data-field': 'error_rows' }, formatNumber(error_rows)),
        ' error rows, ',
        h('span', { 'data-field': 'students' }, formatNumber(csvJob.progress.students_done)),
        ' students.',
      ),
      policyLine(csvJob, sent),
      table,
      h(
        'p',
        { class: 'downloads' },
        download(csvJob.result_url, `${base}.results.csv`, 'Download CSV'),
        ' ',
        download(ndjsonJob.result_url, `${base}.results.ndjson`, 'Download NDJSON'),
      ),
    );
    renderCheckSummary(byId('check-summary'), csvJob.check_summary);
    byId('bulk-summary-heading').focus();
  }

  // The service's own template: every column of the layout, with a worked example (GET /v1/calculate/bulk/template.csv).
  byId('template-button').addEventListener('click', () => {
    void saveAs('/v1/calculate/bulk/template.csv', {}, 'sor-bulk-template.csv').then((problem) => {
      progressText.textContent = problem ?? 'The template was downloaded.';
    });
  });

  byId<HTMLFormElement>('bulk-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (file === null) return;
    button.disabled = true;
    run(file)
      .catch((err: unknown) => {
        bar.hidden = true;
        progressText.textContent = '';
        problem.textContent = showBidiControls(err instanceof Error ? err.message : String(err));
        problem.hidden = false;
        problem.focus();
      })
      .finally(() => (button.disabled = file === null));
  });
}
