/**
 * The CLI's progress display on stderr, local and remote alike: it counts STUDENTS finished (calculated and their
 * rows written, or counted done by the service's job), against the students the file holds (the upload check
 * counts them as the pipeline does, src/bulk/student-runs.ts). So the bar reaches 100% when the last student is
 * done, never when the last byte is read: a file is read ahead of its calculation, and a bar of bytes stood at
 * 100% for most of a run. The ETA comes from the students' rate.
 *
 * A terminal gets a redrawn bar; anything else a plain line every `everyMs` (5 s), so logs stay readable.
 */
import type { Writable } from 'node:stream';

/** The stream progress is drawn on (stderr): a terminal gets a redrawn bar. */
export type ProgressStream = Writable & { isTTY?: boolean };

/** A count for people: rounded, with thousands separators. */
export function formatInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const mm = String(m % 60).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${m}:${ss}`;
}

/** Whole percent done: 100 only when every one is done (99 for 99.9%). */
export function percentDone(done: number, total: number): number {
  if (total <= 0) return done > 0 ? 100 : 0;
  return done >= total ? 100 : Math.min(99, Math.floor((100 * done) / total));
}

/** What a progress update says: students finished, out of how many, and the rows so far. */
export interface StudentsDone {
  students: number;
  /** Students in the file, when known (a service's job may not know yet). */
  total?: number | null;
  rows?: number;
  errorRows?: number;
  /** A word before the count, e.g. the job's status ("queued"). */
  status?: string;
}

const BAR_WIDTH = 24;

/** Progress on stderr: a redrawn line on a terminal, a plain line every `everyMs` otherwise. */
export class ProgressReporter {
  private readonly out: ProgressStream;
  private readonly tty: boolean;
  private readonly everyMs: number;
  private started = performance.now();
  private last = Number.NEGATIVE_INFINITY;
  private drawn = false;
  private readonly total: number | undefined;

  /** `total`: the students of the file, when known before the run (the upload check's count). */
  constructor(out: ProgressStream, total?: number, everyMs?: number) {
    this.out = out;
    this.total = total;
    this.tty = out.isTTY === true;
    this.everyMs = everyMs ?? (this.tty ? 100 : 5000);
  }

  /** Restarts the clock (the students' rate counts from the start of the calculation). */
  restart(): void {
    this.started = performance.now();
  }

  /** A line about another phase (reading, sorting), with the fraction done when known. */
  phase(text: string, fraction?: number): void {
    const now = performance.now();
    if (now - this.last < this.everyMs) return;
    this.last = now;
    this.show(text, fraction);
  }

  /** Students finished so far. */
  update(p: StudentsDone): void {
    const now = performance.now();
    if (now - this.last < this.everyMs) return;
    this.last = now;
    const { text, fraction } = this.describe(p, now);
    this.show(text, fraction);
  }

  private describe(p: StudentsDone, now: number): { text: string; fraction: number | undefined } {
    const total = p.total ?? this.total;
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? p.students / seconds : 0;
    const known = total !== undefined && total !== null;
    let text = `${formatInt(p.students)}${known ? ` / ${formatInt(total)}` : ''} students, ${formatInt(rate)} students/s`;
    if (p.rows !== undefined) text = `${text}, ${formatInt(p.rows)} rows`;
    if ((p.errorRows ?? 0) > 0) text += `, ${formatInt(p.errorRows!)} error rows`;
    const status = p.status === undefined ? '' : `${p.status}: `;
    if (!known) return { text: `${status}${text}`, fraction: undefined };
    const pct = percentDone(p.students, total);
    const eta = pct === 100 ? 0 : rate > 0 ? (total - p.students) / rate : Number.NaN;
    return { text: `${status}${pct}% ${text}, ETA ${formatDuration(eta)}`, fraction: pct / 100 };
  }

  private show(text: string, fraction: number | undefined): void {
    if (!this.tty) {
      this.out.write(`sor: ${text}\n`);
      return;
    }
    const filled = fraction === undefined ? 0 : Math.floor(fraction * BAR_WIDTH);
    const bar = fraction === undefined ? '' : `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] `;
    this.out.write(`\r\x1b[K${bar}${text}`);
    this.drawn = true;
  }

  /** Clears the bar (terminal) before the summary line. */
  finish(): void {
    if (this.drawn) this.out.write('\r\x1b[K');
    this.drawn = false;
  }
}
