/** The CLI's progress display on stderr for a local bulk run: rows, students/s, ETA. */
import type { BulkProgress } from '../bulk/pipeline.ts';
import type { Writable } from 'node:stream';

/** The stream progress is drawn on (stderr): a terminal gets a redrawn bar. */
export type ProgressStream = Writable & { isTTY?: boolean };

/** A count for people: rounded, with thousands separators. */
export function formatInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const mm = String(m % 60).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${m}:${ss}`;
}

/** Progress on stderr: a redrawn bar on a terminal, a plain line every `everyMs` otherwise. */
export class ProgressReporter {
  private readonly out: ProgressStream;
  private readonly totalBytes: number | undefined;
  private readonly tty: boolean;
  private readonly everyMs: number;
  private readonly started = performance.now();
  private last = 0;
  private drawn = false;
  private latest: BulkProgress = { bytes: 0, rows: 0, errorRows: 0, students: 0, chunks: 0 };

  constructor(out: ProgressStream, totalBytes: number | undefined, everyMs?: number) {
    this.out = out;
    this.totalBytes = totalBytes;
    this.tty = out.isTTY === true;
    this.everyMs = everyMs ?? (this.tty ? 100 : 5000);
  }

  update(p: BulkProgress): void {
    this.latest = p;
    const now = performance.now();
    if (now - this.last < this.everyMs) return;
    this.last = now;
    this.draw(now);
  }

  private describe(now: number): { text: string; fraction: number | undefined } {
    const p = this.latest;
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? p.students / seconds : 0;
    const fraction =
      this.totalBytes !== undefined && this.totalBytes > 0 ? Math.min(1, p.bytes / this.totalBytes) : undefined;
    let text = `${formatInt(p.rows)} rows, ${formatInt(p.students)} students, ${formatInt(rate)} students/s`;
    if (p.errorRows > 0) text += `, ${formatInt(p.errorRows)} error rows`;
    if (fraction !== undefined) {
      const byteRate = seconds > 0 ? p.bytes / seconds : 0;
      const eta = byteRate > 0 ? (this.totalBytes! - p.bytes) / byteRate : Number.NaN;
      text = `${Math.floor(fraction * 100)}% ${text}, ETA ${formatDuration(eta)}`;
    }
    return { text, fraction };
  }

  private draw(now: number): void {
    const { text, fraction } = this.describe(now);
    if (!this.tty) {
      this.out.write(`sor: ${text}\n`);
      return;
    }
    const width = 24;
    const bar =
      fraction === undefined
        ? ''
        : `[${'#'.repeat(Math.round(fraction * width))}${'-'.repeat(width - Math.round(fraction * width))}] `;
    this.out.write(`\r\x1b[K${bar}${text}`);
    this.drawn = true;
  }

  /** Clears the bar (terminal) before the summary line. */
  finish(): void {
    if (this.drawn) this.out.write('\r\x1b[K');
    this.drawn = false;
  }
}
