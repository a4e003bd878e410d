/**
 * `sor bulk --sort`: puts each student's rows together before a local file is computed, so a file exported
 * sorted by term (all Fall rows, then all Spring rows) can be run as it is.
 *
 * The order: students in the order of their first row, each student's rows in their order in the file (stable).
 * A file already grouped by student comes out unchanged. Each record is moved as the text it has in the file
 * (quoted cells, several physical lines, a broken record: as they are), so the pipeline reads exactly the
 * records it would have read; the sorted copy is UTF-8 with the file's delimiter, and `lineOf` maps its line
 * numbers back to the file's, so every message names the line of the user's own file.
 *
 * Memory is bounded for a large file: an external merge sort. Records are read in runs of at most `runChars`
 * characters (16 Mi by default), each run sorted in memory and written to a temporary file in SPOOL_DIR (mode
 * 0600), then the runs are merged, reading each through a 1 MiB buffer. What grows with the file is the set of
 * student ids (20 to 50 bytes per student, src/bulk/group-students.ts) and the line map (4 bytes per line of the
 * file): about 70 MB for a million students on 2.5 million lines, besides the runs. The temporary files are
 * removed at the end, also on failure.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { createBulkDecoder, createBulkReader } from '../bulk/bulk-reader.ts';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import { readHeader, type CsvLayout } from '../bulk/csv-layout.ts';
import { recordCell, recordCells, type CsvRecord } from '../bulk/csv-record.ts';
import { StudentIdSet } from '../bulk/group-students.ts';
import { shapeRecord } from '../bulk/record-shape.ts';
import { createSpoolFile, ensureSpoolDir, removeSpoolFile } from '../jobs/spool.ts';

/** Characters of records held in memory before a run is written out. */
export const SORT_RUN_CHARS = 16 * 1024 * 1024;
const READ_BYTES = 1024 * 1024;

export interface SortProgress {
  phase: 'read' | 'merge';
  /** Bytes of the file read (phase read). */
  bytes: number;
  totalBytes: number;
  /** Rows read (read) or written in order (merge). */
  rows: number;
}

export interface SortOptions {
  path: string;
  dialect: CsvDialect;
  spoolDir: string;
  /** The pipeline's reader limits (BULK_MAX_ROW_CHARS, BULK_MAX_CELL_CHARS), so the records are the pipeline's. */
  maxRowChars: number;
  maxCellChars: number;
  runChars?: number;
  onProgress?: (p: SortProgress) => void;
}

export interface SortedFile {
  /** The sorted copy (UTF-8, the file's delimiter), in SPOOL_DIR. */
  path: string;
  /** The file's dialect for the copy: UTF-8. */
  dialect: CsvDialect;
  /** The line of the file where the record starting on `line` of the copy is. */
  lineOf(line: number): number;
  rows: number;
  /** Runs written to temporary files (0: the file was sorted in memory). */
  runs: number;
  /** Removes the copy. */
  remove(): Promise<void>;
}

/** One record: its sort key (the line of its student's first row), its own line, its text with a final LF. */
interface Entry {
  key: number;
  line: number;
  text: string;
}

const byKey = (a: Entry, b: Entry) => a.key - b.key || a.line - b.line;

/** Line of the copy → line of the file, for the first line of each record (a growing Uint32Array). */
class LineMap {
  private map = new Uint32Array(1024);

  set(at: number, line: number): void {
    if (at >= this.map.length) {
      let size = this.map.length * 2;
      while (size <= at) size *= 2;
      const next = new Uint32Array(size);
      next.set(this.map);
      this.map = next;
    }
    this.map[at] = line;
  }

  get(at: number): number {
    return (at < this.map.length ? this.map[at] : 0) || at;
  }
}

function newlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Writes a sorted run: per entry its key, its line and its UTF-8 length (uint32 LE), then the bytes. */
async function writeRun(spoolDir: string, entries: Entry[]): Promise<string> {
  entries.sort(byKey);
  const file = await createSpoolFile(spoolDir);
  try {
    let buf = Buffer.allocUnsafe(READ_BYTES);
    let used = 0;
    for (const e of entries) {
      const need = 12 + e.text.length * 3;
      if (used + need > buf.length) {
        await file.handle.write(buf, 0, used);
        used = 0;
        if (need > buf.length) buf = Buffer.allocUnsafe(need);
      }
      const length = buf.write(e.text, used + 12, 'utf8');
      buf.writeUInt32LE(e.key, used);
      buf.writeUInt32LE(e.line, used + 4);
      buf.writeUInt32LE(length, used + 8);
      used += 12 + length;
    }
    await file.handle.write(buf, 0, used);
  } finally {
    await file.handle.close();
  }
  return file.path;
}

/** Reads a run back, one entry at a time, through a buffer. */
class RunReader {
  private buf = Buffer.allocUnsafe(READ_BYTES);
  private start = 0;
  private end = 0;
  private done = false;

  private readonly handle: FileHandle;

  private constructor(handle: FileHandle) {
    this.handle = handle;
  }

  static async open(path: string): Promise<RunReader> {
    return new RunReader(await open(path, 'r'));
  }

  /** Makes `n` bytes available from `start`; false at the end of the run. */
  private async fill(n: number): Promise<boolean> {
    while (this.end - this.start < n) {
      if (this.done) return false;
      if (this.start > 0) {
        this.buf.copy(this.buf, 0, this.start, this.end);
        this.end -= this.start;
        this.start = 0;
      }
      if (n > this.buf.length) {
        const bigger = Buffer.allocUnsafe(n);
        this.buf.copy(bigger, 0, 0, this.end);
        this.buf = bigger;
      }
      const { bytesRead } = await this.handle.read(this.buf, this.end, this.buf.length - this.end, null);
      if (bytesRead === 0) this.done = true;
      this.end += bytesRead;
    }
    return true;
  }

  async next(): Promise<Entry | undefined> {
    if (!(await this.fill(12))) return undefined;
    const key = this.buf.readUInt32LE(this.start);
    const line = this.buf.readUInt32LE(this.start + 4);
    const length = this.buf.readUInt32LE(this.start + 8);
    if (!(await this.fill(12 + length))) throw new Error('a sort run file ended early');
    const text = this.buf.toString('utf8', this.start + 12, this.start + 12 + length);
    this.start += 12 + length;
    return { key, line, text };
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** Merges the runs (a binary heap over their heads) and hands the entries in order to `emit`. */
async function mergeRuns(paths: string[], emit: (e: Entry) => Promise<void>): Promise<void> {
  const readers = await Promise.all(paths.map((p) => RunReader.open(p)));
  try {
    const heap: { e: Entry; r: RunReader }[] = [];
    const less = (i: number, j: number) => byKey(heap[i]!.e, heap[j]!.e) < 0;
    const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j]!, heap[i]!]);
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        const m = l + 1 < heap.length && less(l + 1, l) ? l + 1 : l;
        if (l >= heap.length || !less(m, i)) return;
        swap(i, m);
        i = m;
      }
    };
    for (const r of readers) {
      const e = await r.next();
      if (e !== undefined) heap.push({ e, r });
    }
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
    while (heap.length > 0) {
      const top = heap[0]!;
      await emit(top.e);
      const e = await top.r.next();
      if (e === undefined) {
        heap[0] = heap[heap.length - 1]!;
        heap.pop();
      } else {
        top.e = e;
      }
      if (heap.length > 0) down(0);
    }
  } finally {
    await Promise.all(readers.map((r) => r.close()));
  }
}

/** Sorts the file at `path` by student (see above) into a UTF-8 copy in the spool folder. */
export async function sortByStudent(options: SortOptions): Promise<SortedFile> {
  const { dialect, spoolDir, onProgress } = options;
  const runChars = options.runChars ?? SORT_RUN_CHARS;
  const keepChars = options.maxRowChars + 2; // the reader never looks further into a line (csv-reader.ts)
  await ensureSpoolDir(spoolDir);
  const totalBytes = (await stat(options.path)).size;
  const reader = createBulkReader({ maxRowChars: options.maxRowChars, maxCellChars: options.maxCellChars }, dialect);
  const decoder = createBulkDecoder(dialect);
  const seen = new StudentIdSet();
  const runs: string[] = [];
  let copy: string | undefined;
  const cleanupRuns = () => Promise.all(runs.map((r) => removeSpoolFile(r)));

  try {
    // Read: physical lines are kept until the record they belong to is known to be complete (the next record
    // starts), then the record's text joins the current run.
    let lines: string[] = [];
    let head = 0; // lines before it are taken (dropped once per read)
    let base = 1; // the line number of lines[head]
    let partial = '';
    let layout: CsvLayout | undefined;
    let header = '';
    let pending: { line: number; key: number } | undefined; // the record whose last line is not known yet
    let batch: Entry[] = [];
    let batchChars = 0;
    let rows = 0;
    let bytes = 0;
    const records: CsvRecord[] = [];

    /** The lines before `upTo` (all when undefined), as one text with a final LF. */
    const take = (upTo: number | undefined): string => {
      const count = upTo === undefined ? lines.length - head : upTo - base;
      const text = count === 1 ? `${lines[head]}\n` : `${lines.slice(head, head + count).join('\n')}\n`;
      head += count;
      base += count;
      return text;
    };
    const close = async (nextLine: number | undefined) => {
      if (pending === undefined) return; // lines before the header stay, and go with it
      const text = take(nextLine);
      if (pending.key === 0) {
        header = text;
      } else {
        batch.push({ key: pending.key, line: pending.line, text });
        batchChars += text.length;
        if (batchChars >= runChars) {
          runs.push(await writeRun(spoolDir, batch));
          batch = [];
          batchChars = 0;
        }
      }
    };
    const handle = async () => {
      for (const record of records) {
        await close(record.line);
        if (layout === undefined) {
          // The header (the prescan has checked it): key 0, its text keeps any blank lines before it.
          layout = readHeader(recordCells(record), {
            extraColumns: dialect.extraColumns,
            delimiter: dialect.delimiter,
          });
          reader.expectedCells = layout.fileWidth ?? layout.width;
          pending = { line: record.line, key: 0 };
          continue;
        }
        const id = recordCell(shapeRecord(record, layout), layout.col.student_id);
        const first = id === '' ? 0 : seen.addOrGet(id, record.line);
        pending = { line: record.line, key: first === 0 ? record.line : first };
        rows++;
      }
      records.length = 0;
      if (head > 0) {
        lines = lines.slice(head);
        head = 0;
      }
    };
    const addText = async (text: string) => {
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        lines.push((partial + text.slice(start, nl)).slice(0, keepChars));
        partial = '';
        start = nl + 1;
      }
      partial = (partial + text.slice(start)).slice(0, keepChars);
      reader.push(text, records);
      await handle();
    };

    for await (const chunk of createReadStream(options.path, { highWaterMark: READ_BYTES })) {
      bytes += (chunk as Buffer).length;
      await addText(decoder.write(chunk as Buffer));
      onProgress?.({ phase: 'read', bytes, totalBytes, rows });
    }
    await addText(decoder.end());
    reader.end(records);
    await handle();
    if (partial !== '') lines.push(partial);
    await close(undefined);

    // Write the copy: the header, then every record in order, mapping each record's line in the copy to its own.
    const file = await createSpoolFile(spoolDir);
    copy = file.path;
    await file.handle.close();
    const out = createWriteStream(copy);
    const map = new LineMap();
    let at = 1 + newlines(header);
    let written = 0;
    const emit = async (e: Entry) => {
      map.set(at, e.line);
      at += newlines(e.text);
      await write(out, e.text);
      if (++written % 10_000 === 0) onProgress?.({ phase: 'merge', bytes, totalBytes, rows: written });
    };
    await write(out, header);
    if (runs.length === 0) {
      batch.sort(byKey);
      for (const e of batch) await emit(e);
    } else {
      if (batch.length > 0) runs.push(await writeRun(spoolDir, batch));
      batch = [];
      await mergeRuns(runs, emit);
    }
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(resolve);
    });
    onProgress?.({ phase: 'merge', bytes, totalBytes, rows: written });
    const path = copy;
    return {
      path,
      dialect: { ...dialect, charset: 'utf-8' },
      lineOf: (line) => map.get(line),
      rows,
      runs: runs.length,
      remove: () => removeSpoolFile(path),
    };
  } catch (err) {
    if (copy !== undefined) await removeSpoolFile(copy);
    throw err;
  } finally {
    await cleanupRuns();
  }
}
