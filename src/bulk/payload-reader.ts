/**
 * Reads a chunk payload (chunk-payload.ts) one student at a time: the payload's bytes are scanned once for the
 * students' boundaries, then each student is decoded and checked only when it is computed.
 *
 * Why not `JSON.parse` of the whole payload: that makes one string of the whole chunk (up to MAX_CHUNK_CHARS of
 * cells, 8 MB of two-byte characters) and then every student's objects at once, all alive until the chunk ends.
 * A thread's heap then had to hold the whole chunk, and the large string is one allocation that either fits or
 * aborts the process: V8 ends a worker thread at its heap limit only on a best-effort basis, and an allocation
 * that does not fit (ours, or the optimizing compiler's on its own thread) is a fatal error of the whole process.
 * Read student by student, a chunk needs the heap of its largest student (BULK_MAX_STUDENT_CHARS) and the
 * students' objects die young instead of being promoted with the chunk.
 *
 * The checks are decodePayload's (checkPayloadHead, checkPayloadStudent): a payload this reader refuses is one that
 * decodePayload refuses, with the same SyntaxError, and a student's problem is found when it is reached (before
 * any output leaves the chunk: a malformed payload is still a failed chunk as a whole).
 */
import {
  checkPayloadHead,
  checkPayloadStudent,
  malformedPayload,
  splitRows,
  type ChunkPayload,
  type PayloadStudent,
} from './chunk-payload.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A payload opened for reading: its fields but the students (`head.s` is empty), and each student on demand. */
export interface PayloadReader {
  readonly head: ChunkPayload;
  /** Students in the payload. */
  readonly count: number;
  /** Payload bytes (the size of the chunk, for the output's size estimate). */
  readonly size: number;
  /** Student `k` (0-based), decoded, checked and split into cells (splitRows); throws if it is malformed. */
  student(k: number): PayloadStudent;
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Scans JSON text structure in UTF-8 bytes: quotes and brackets are ASCII, never part of a multi-byte character. */
class Scanner {
  pos = 0;
  readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  skipSpace(): void {
    const b = this.bytes;
    while (this.pos < b.length && isSpace(b[this.pos]!)) this.pos++;
  }

  /** The next non-space byte, consumed only if it is `code`. */
  eat(code: number): boolean {
    this.skipSpace();
    if (this.bytes[this.pos] !== code) return false;
    this.pos++;
    return true;
  }

  expect(code: number): void {
    if (!this.eat(code)) throw malformedPayload();
  }

  /** Past the string whose opening quote is at `pos`. */
  skipString(): void {
    const b = this.bytes;
    let from = this.pos + 1;
    for (;;) {
      const q = b.indexOf(QUOTE, from);
      if (q < 0) throw malformedPayload();
      let k = q - 1;
      while (b[k] === BACKSLASH) k--;
      // An even number of backslashes before the quote: it is not escaped.
      if ((q - 1 - k) % 2 === 0) {
        this.pos = q + 1;
        return;
      }
      from = q + 1;
    }
  }

  /** Past the value starting at `pos` (its syntax inside is left to JSON.parse). */
  skipValue(): void {
    this.skipSpace();
    const b = this.bytes;
    const first = b[this.pos];
    if (first === QUOTE) return this.skipString();
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
      // A number or a literal: up to the next separator.
      const start = this.pos;
      while (this.pos < b.length) {
        const c = b[this.pos]!;
        if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
        this.pos++;
      }
      if (this.pos === start) throw malformedPayload();
      return;
    }
    let depth = 0;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (c === QUOTE) {
        this.skipString();
        continue;
      }
      this.pos++;
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return;
    }
    throw malformedPayload();
  }
}

/** The byte ranges of the top-level `s` array's elements, and where the array opens and closes. */
function scanStudents(scan: Scanner): { open: number; close: number; ranges: number[] } {
  const b = scan.bytes;
  let students: { open: number; close: number; ranges: number[] } | undefined;
  scan.expect(OPEN_BRACE);
  if (!scan.eat(CLOSE_BRACE)) {
    do {
      scan.skipSpace();
      if (b[scan.pos] !== QUOTE) throw malformedPayload();
      const keyStart = scan.pos;
      scan.skipString();
      const isStudents = scan.pos - keyStart === 3 && b[keyStart + 1] === 0x73; // "s"
      scan.expect(COLON);
      if (!isStudents) {
        scan.skipValue();
        continue;
      }
      if (students !== undefined) throw malformedPayload(); // "s" twice
      scan.expect(OPEN_BRACKET);
      const open = scan.pos - 1;
      const ranges: number[] = [];
      if (!scan.eat(CLOSE_BRACKET)) {
        do {
          scan.skipSpace();
          const start = scan.pos;
          scan.skipValue();
          ranges.push(start, scan.pos);
        } while (scan.eat(COMMA));
        scan.expect(CLOSE_BRACKET);
      }
      students = { open, close: scan.pos - 1, ranges };
    } while (scan.eat(COMMA));
    scan.expect(CLOSE_BRACE);
  }
  scan.skipSpace();
  if (scan.pos !== b.length || students === undefined) throw malformedPayload();
  return students;
}

/** Opens a payload (its UTF-8 bytes, or its string) for reading student by student; throws if it is malformed. */
export function openPayload(payload: string | Uint8Array): PayloadReader {
  const bytes =
    typeof payload === 'string'
      ? Buffer.from(payload, 'utf8')
      : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const { open, close, ranges } = scanStudents(new Scanner(bytes));
  // The payload without its students: `{...,"s":[` and `]...}`.
  const head = checkPayloadHead(
    JSON.parse(bytes.toString('utf8', 0, open + 1) + bytes.toString('utf8', close, bytes.length)),
  );
  return {
    head,
    count: ranges.length / 2,
    size: bytes.length,
    student(k: number): PayloadStudent {
      const json = bytes.toString('utf8', ranges[2 * k]!, ranges[2 * k + 1]!);
      return splitRows(checkPayloadStudent(JSON.parse(json), true));
    },
  };
}
