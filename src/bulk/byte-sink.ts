/**
 * A growing buffer of UTF-8 bytes that a chunk's output is written into piece by piece: text, single bytes, whole
 * numbers as their digits, and copies of bytes already written. A CSV row is written cell by cell straight into
 * it (output-csv.ts), instead of being built as a string of 60 joined pieces, flattened, then encoded: the pieces,
 * the joins and the row strings were most of what a chunk's thread allocated and most of its output's cost.
 *
 * Short ASCII text is copied by a loop (a call into the engine's encoder costs more than its few characters);
 * everything else goes through Buffer#write, which encodes UTF-8 as Buffer.from(text) does.
 */

/** Text up to this long is copied by a loop when it is ASCII. */
const SHORT_TEXT = 32;
/** Smallest buffer allocated. */
const MIN_BYTES = 1024;

export class ByteSink {
  /** The bytes: the first `used` of them are the output so far. */
  buf: Buffer;
  used = 0;

  /**
   * A buffer of `size` bytes (at least MIN_BYTES), or `initial` when it holds at least `reuse` bytes (default
   * `size`): a lent buffer a little smaller than the estimate is taken, and grown in the rare case it is needed.
   */
  constructor(size: number, initial?: ArrayBuffer, reuse = size) {
    const n = Math.max(MIN_BYTES, size);
    this.buf = initial !== undefined && initial.byteLength >= reuse ? Buffer.from(initial) : Buffer.allocUnsafeSlow(n);
  }

  /** Room for `n` more bytes. */
  reserve(n: number): void {
    if (this.used + n > this.buf.length) this.grow(n);
  }

  private grow(need: number): void {
    const old = this.buf;
    // A buffer of its own (allocUnsafeSlow, never the shared pool): its ArrayBuffer can be transferred.
    const next = Buffer.allocUnsafeSlow(Math.max(old.length * 2, this.used + need));
    old.copy(next, 0, 0, this.used);
    this.buf = next;
  }

  /** One byte (an ASCII character's code). */
  byte(code: number): void {
    if (this.used >= this.buf.length) this.grow(1);
    this.buf[this.used++] = code;
  }

  /** `text` as UTF-8. */
  text(text: string): void {
    const n = text.length;
    if (n === 0) return;
    this.reserve(n * 3); // UTF-8 takes at most 3 bytes per UTF-16 code unit
    if (n <= SHORT_TEXT) {
      const buf = this.buf;
      let p = this.used;
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p++] = c;
      }
      if (i === n) {
        this.used = p;
        return;
      }
    }
    this.used += this.buf.write(text, this.used, 'utf8');
  }

  /** A number as JavaScript prints it (String(value)); whole numbers below 2^31 written digit by digit. */
  number(value: number): void {
    if (!Number.isInteger(value) || value >= 2147483648 || value <= -2147483648) {
      this.text(String(value));
      return;
    }
    let v = value;
    if (v < 0) {
      this.byte(45); // '-'
      v = -v;
    }
    let digits = 1;
    for (let t = v; t >= 10; t = (t / 10) | 0) digits++;
    this.reserve(digits);
    const buf = this.buf;
    let p = this.used + digits;
    this.used = p;
    do {
      buf[--p] = 48 + (v % 10);
      v = (v / 10) | 0;
    } while (v > 0);
  }

  /** Writes again the bytes from `start` to `end` (already written). */
  repeat(start: number, end: number): void {
    const n = end - start;
    this.reserve(n);
    this.buf.copy(this.buf, this.used, start, end);
    this.used += n;
  }

  /** Writes the bytes `start` to `end` of another sink. */
  append(other: ByteSink, start = 0, end = other.used): void {
    const n = end - start;
    this.reserve(n);
    other.buf.copy(this.buf, this.used, start, end);
    this.used += n;
  }

  /** The bytes written, as a view on the buffer (its own ArrayBuffer). */
  bytes(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.used);
  }

  /** The bytes written, decoded. */
  toString(): string {
    return this.buf.toString('utf8', 0, this.used);
  }
}
