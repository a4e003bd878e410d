/**
 * One pass over an upload for the job service: its sha256 (scopes the Idempotency-Key), its size (reserves room
 * for the result) and its student count (the progress total), fed chunk by chunk while it is spooled or read.
 */
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { CsvRecordReader } from '../bulk/csv-reader.ts';
import type { CsvRecord } from '../bulk/csv-record.ts';

export interface UploadFacts {
  /** sha256 over the result format and the bytes. */
  sha256: string;
  bytes: number;
  /** Students (runs of equal student_id); null when the file has no student_id column or cannot be read. */
  students: number | null;
}

export class UploadDigest {
  readonly #hash: Hash;
  readonly #decoder = new StringDecoder('utf8');
  readonly #reader = new CsvRecordReader();
  readonly #records: CsvRecord[] = [];
  #bytes = 0;
  #idColumn = -1;
  #headerSeen = false;
  #previous: string | undefined;
  #students = 0;
  #unreadable = false;

  constructor(format: string) {
    this.#hash = createHash('sha256').update(`${format}\n`);
  }

  update(chunk: Buffer): void {
    this.#bytes += chunk.length;
    this.#hash.update(chunk);
    if (this.#unreadable) return;
    try {
      this.#reader.push(this.#decoder.write(chunk), this.#records);
      this.#consume();
    } catch {
      this.#unreadable = true; // counting is best effort: the pipeline reports what is wrong with the file
    }
  }

  #consume(): void {
    for (const r of this.#records) {
      if (!this.#headerSeen) {
        this.#headerSeen = true;
        this.#idColumn = r.cells.findIndex((c) => c.trim().toLowerCase() === 'student_id');
        continue;
      }
      const id = this.#idColumn >= 0 ? (r.cells[this.#idColumn] ?? '') : '';
      if (id !== this.#previous || r.error !== undefined) this.#students++;
      this.#previous = id;
    }
    this.#records.length = 0;
  }

  finish(): UploadFacts {
    if (!this.#unreadable) {
      try {
        this.#reader.push(this.#decoder.end(), this.#records);
        this.#reader.end(this.#records);
        this.#consume();
      } catch {
        this.#unreadable = true;
      }
    }
    return {
      sha256: this.#hash.digest('hex'),
      bytes: this.#bytes,
      students: this.#unreadable || this.#idColumn < 0 ? null : this.#students,
    };
  }
}
