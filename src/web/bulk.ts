/**
 * The file tab: a CSV dropped or picked is read in the browser first (file-sniff.ts: charset, delimiter, columns the
 * layout does not have), what was found is said in notices with the settings beside them to change, then the file is
 * submitted as ONE job (POST /v1/jobs with ?charset=&delimiter=&extra_columns= and the school policy's
 * ?policy.<option>=) and followed with a clear status until it ends (it can be stopped). The results come from the
 * job itself (bulk-summary.ts): counts, the summary, grouped errors, the shadow check and the downloads. The file is
 * sent as it is, as text/csv; the page never rewrites it.
 */
import { apiFetch, saveAs } from './api.ts';
import { byId, formatNumber, h, inert, type Child } from './dom.ts';
import { SNIFF_BYTES, readFile, type Charset, type Delimiter, type FileReading } from './file-sniff.ts';
import { showBidiControls } from './inert.ts';
import { FINAL, type Job } from './job-types.ts';
import { renderJobResults } from './bulk-summary.ts';
import type { PolicySection } from './policy.ts';
import { inWords } from './words.ts';

const POLL_MS = 500;

/** The service refused the file or could not finish it: its message, and its problems column by column. */
class FileProblem extends Error {
  readonly columns: readonly { field: string; message: string }[];
  constructor(message: string, columns: readonly { field: string; message: string }[] = []) {
    super(message);
    this.columns = columns;
  }
}

/** A refusal in the registrar's terms: each problem with the column as the file names it. */
function problemView(err: unknown): HTMLElement[] {
  if (!(err instanceof FileProblem) || err.columns.length === 0) {
    const text = err instanceof Error ? err.message : String(err);
    return [h('p', {}, inert(inWords(text)))];
  }
  return [
    h('p', {}, h('strong', {}, 'The file was not calculated: its header row has to be corrected.')),
    h(
      'ul',
      {},
      ...err.columns.map((c) =>
        h(
          'li',
          {},
          'Column ',
          h('code', { class: 'column' }, inert(showBidiControls(c.field))),
          ' ',
          inert(showBidiControls(c.message.replace('the bulk CSV layout v1', 'the layout'))),
          '.',
        ),
      ),
    ),
  ];
}

const CHARSET_WORDS: Readonly<Record<Charset, string>> = {
  'utf-8': 'UTF-8',
  'windows-1252': 'Windows-1252',
  'utf-16le': 'UTF-16',
  'utf-16be': 'UTF-16',
};
const DELIMITER_WORDS: Readonly<Record<Delimiter, string>> = { comma: 'commas', semicolon: 'semicolons', tab: 'tabs' };

/** The notices about how the file is read: what the page found, in words, and what it means. */
export function readingNotices(reading: FileReading, chosen: { charset: boolean; delimiter: boolean }): Child[][] {
  const notes: Child[][] = [];
  const charset = CHARSET_WORDS[reading.charset];
  if (chosen.charset) notes.push([`Characters: read as ${charset}, as chosen below.`]);
  else if (reading.charsetBy === 'fallback') {
    notes.push([
      'The file is not UTF-8: it is read as Windows-1252, the encoding Excel uses on Windows. If names with ' +
        'accents look wrong in the results, choose another setting below.',
    ]);
  } else if (reading.charsetBy === 'bom') notes.push([`Characters: ${charset}, as the file itself says.`]);
  if (chosen.delimiter)
    notes.push([`Columns are separated by ${DELIMITER_WORDS[reading.delimiter]}, as chosen below.`]);
  else if (reading.delimiter !== 'comma') {
    notes.push([`Columns are separated by ${DELIMITER_WORDS[reading.delimiter]} (found in the header row).`]);
  }
  if (reading.extra.length > 0) {
    const n = reading.extra.length;
    notes.push([
      `${n === 1 ? '1 column is' : `${n} columns are`} not part of the layout: `,
      ...reading.extra.flatMap((c, i) => [i ? ', ' : '', h('code', { class: 'column' }, inert(c))]),
      '. They are kept in the results as they are, unless you choose to refuse the file below.',
    ]);
  }
  return notes;
}

export function startBulk(policy: PolicySection): void {
  const input = byId<HTMLInputElement>('bulk-file');
  const drop = byId('drop-zone');
  const chosenText = byId('bulk-chosen');
  const button = byId<HTMLButtonElement>('bulk-submit');
  const cancel = byId<HTMLButtonElement>('bulk-cancel');
  const bar = byId<HTMLProgressElement>('bulk-progress');
  const progressText = byId('bulk-progress-text');
  const summary = byId('bulk-summary');
  const problem = byId('bulk-error');
  const readingBox = byId('file-reading');
  const charsetSelect = byId<HTMLSelectElement>('file-charset');
  const delimiterSelect = byId<HTMLSelectElement>('file-delimiter');
  const extraSelect = byId<HTMLSelectElement>('file-extra');
  let file: File | null = null;
  let sample = new Uint8Array();
  let chosen = { charset: false, delimiter: false };
  let running: Job | null = null;

  /** Reads the sample again with the settings shown (the officer's, where changed) and says what it found. */
  const describe = () => {
    const reading = readFile(sample, {
      ...(chosen.charset ? { charset: charsetSelect.value as Charset } : {}),
      ...(chosen.delimiter ? { delimiter: delimiterSelect.value as Delimiter } : {}),
    });
    charsetSelect.value = reading.charset;
    delimiterSelect.value = reading.delimiter;
    const notes = readingNotices(reading, chosen);
    byId('file-notices').replaceChildren(
      ...(notes.length ? notes : [['A plain UTF-8 file with commas and the layout’s columns.']]).map((n) =>
        h('li', {}, ...n),
      ),
    );
    const named = reading.header.filter((c) => c !== '');
    const shown = named.slice(0, 12).flatMap((c, i) => [i ? ' ' : '', h('code', { class: 'column' }, inert(c))]);
    byId('file-columns').replaceChildren(
      `Header row as read: ${formatNumber(named.length)} columns — `,
      ...shown,
      named.length > 12 ? ' …' : '',
    );
    readingBox.hidden = false;
  };

  const choose = async (f: File | null | undefined) => {
    file = f ?? null;
    chosenText.textContent = file ? `${file.name} (${formatNumber(file.size)} bytes)` : 'No file chosen.';
    button.disabled = file === null;
    chosen = { charset: false, delimiter: false };
    extraSelect.value = 'keep';
    if (file === null) {
      readingBox.hidden = true;
      return;
    }
    sample = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
    describe();
  };
  input.addEventListener('change', () => void choose(input.files?.[0]));
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    void choose(e.dataTransfer?.files[0]);
  });
  charsetSelect.addEventListener('change', () => {
    chosen.charset = true;
    describe();
  });
  delimiterSelect.addEventListener('change', () => {
    chosen.delimiter = true;
    describe();
  });

  /** The status line and the bar: what the job is doing now, in words. */
  const show = (job: Job) => {
    const { students_done, students_total } = job.progress;
    bar.max = students_total && students_total > 0 ? students_total : 1;
    if (job.status === 'completed') bar.value = bar.max;
    else if (students_total) bar.value = Math.min(students_done, bar.max);
    else bar.removeAttribute('value');
    const of = students_total ? ` of ${formatNumber(students_total)}` : '';
    const pct = students_total ? ` (${Math.floor((100 * students_done) / students_total)}%)` : '';
    const words: Record<Job['status'], string> = {
      queued: 'Waiting to start…',
      running: `Calculating: ${formatNumber(students_done)}${of} students${pct}…`,
      completed: `Done: ${formatNumber(students_done)} students calculated.`,
      failed: 'The file could not be calculated.',
      cancelled: 'Stopped: the file was not calculated to the end.',
    };
    progressText.textContent = words[job.status];
  };

  /** Submits the file as one job and follows it to its end. */
  async function run(f: File): Promise<void> {
    problem.hidden = true;
    summary.replaceChildren();
    byId('check-summary').hidden = true;
    bar.hidden = false;
    bar.removeAttribute('value');
    progressText.textContent = 'Sending the file…';
    const query = new URLSearchParams([
      ['charset', charsetSelect.value],
      ['delimiter', delimiterSelect.value],
      ['extra_columns', extraSelect.value],
      ...policy.pairs(),
    ]);
    const res = await apiFetch(`/v1/jobs?${query.toString()}`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', accept: 'text/csv' },
      body: f,
    });
    const accepted = (await res.json().catch(() => ({}))) as Job & {
      message?: string;
      field_errors?: { field: string; message: string }[];
    };
    if (!res.ok) {
      throw new FileProblem(accepted.message ?? 'The file was refused. Try again in a moment.', accepted.field_errors);
    }
    let job = accepted;
    running = job;
    cancel.hidden = false;
    show(job);
    while (!FINAL.has(job.status)) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      const next = await apiFetch(`/v1/jobs/${encodeURIComponent(job.id)}`, {
        headers: { accept: 'application/json' },
      });
      const body = (await next.json().catch(() => ({}))) as Job & { message?: string };
      if (!next.ok) throw new Error(body.message ?? 'The file’s progress could not be read.');
      job = body;
      show(job);
    }
    running = null;
    cancel.hidden = true;
    if (job.status === 'failed') throw new Error(job.error?.message ?? 'The file could not be calculated.');
    if (job.status === 'cancelled') return;
    renderJobResults(summary, byId('check-summary'), job, f.name, (url, name) => download(url, name));
    byId('bulk-summary-heading').focus();
  }

  /** Saves a download of the job (with the page's access token), saying how it went. */
  function download(url: string, fileName: string): void {
    void saveAs(url, {}, fileName).then((trouble) => {
      progressText.textContent = trouble ?? `${fileName} was downloaded.`;
    });
  }

  cancel.addEventListener('click', () => {
    if (running === null) return;
    cancel.disabled = true;
    void apiFetch(`/v1/jobs/${encodeURIComponent(running.id)}`, { method: 'DELETE' }).finally(() => {
      cancel.disabled = false;
    });
  });

  // The service's own template: every column of the layout, with a worked example.
  byId('template-button').addEventListener('click', () => {
    void saveAs('/v1/calculate/bulk/template.csv', {}, 'sor-bulk-template.csv').then((trouble) => {
      progressText.textContent = trouble ?? 'The template was downloaded.';
    });
  });

  byId<HTMLFormElement>('bulk-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (file === null) return;
    button.disabled = true;
    run(file)
      .catch((err: unknown) => {
        bar.hidden = true;
        cancel.hidden = true;
        running = null;
        progressText.textContent = '';
        problem.replaceChildren(...problemView(err));
        problem.hidden = false;
        problem.focus();
      })
      .finally(() => (button.disabled = file === null));
  });
}
