/**
 * Bytes → text for a bulk file in its declared charset: one stream stage in front of the CSV reader, used by the
 * prescan and the pipeline alike (through src/bulk/bulk-reader.ts), so both read the same text.
 *
 * UTF-8 is decoded by the platform's TextDecoder (the prescan checks it strictly itself, src/bulk/prescan.ts).
 * The other charsets are decoded by iconv-lite, and a byte that is not valid in the charset is marked in the
 * text so `firstInvalidChar` finds it: windows-1252 leaves five bytes undefined (0x81, 0x8d, 0x8f, 0x90, 0x9d),
 * which iconv-lite turns into U+FFFD; UTF-16 can hold a lone surrogate or an odd last byte (marked with a lone
 * surrogate). ISO-8859-1 has no invalid byte. A byte order mark is dropped.
 */
import iconv from 'iconv-lite';
import type { CsvCharset } from './csv-dialect.ts';

export interface BulkTextDecoder {
  write(chunk: Uint8Array): string;
  end(): string;
}

/** A lone low surrogate: what an odd last byte of a UTF-16 file becomes, so that it is found as invalid. */
const ODD_BYTE_MARK = '\udfff';

function isUtf16(charset: CsvCharset): boolean {
  return charset === 'utf-16' || charset === 'utf-16le' || charset === 'utf-16be';
}

class IconvTextDecoder implements BulkTextDecoder {
  private readonly inner: iconv.DecoderStream;
  private readonly utf16: boolean;
  private bytes = 0;
  /** A high surrogate at the end of the last text, held until the next text says whether it is paired. */
  private held = '';

  constructor(charset: CsvCharset) {
    this.inner = iconv.getDecoder(charset);
    this.utf16 = isUtf16(charset);
  }

  write(chunk: Uint8Array): string {
    this.bytes += chunk.length;
    const text = this.held + this.inner.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.held = '';
    if (this.utf16 && text.length > 0) {
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        this.held = text.slice(-1);
        return text.slice(0, -1);
      }
    }
    return text;
  }

  end(): string {
    const text = this.held + (this.inner.end() ?? '');
    this.held = '';
    return this.utf16 && this.bytes % 2 === 1 ? text + ODD_BYTE_MARK : text;
  }
}

class Utf8TextDecoder implements BulkTextDecoder {
  private readonly inner = new TextDecoder('utf-8');

  write(chunk: Uint8Array): string {
    return this.inner.decode(chunk, { stream: true });
  }

  end(): string {
    return this.inner.decode();
  }
}

export function createTextDecoder(charset: CsvCharset): BulkTextDecoder {
  return charset === 'utf-8' ? new Utf8TextDecoder() : new IconvTextDecoder(charset);
}

/**
 * Index of the first character of `text` that stands for bytes that are not valid in `charset` (see above), -1
 * when there is none. Not used for UTF-8, which the prescan checks on the bytes.
 */
export function firstInvalidChar(text: string, charset: CsvCharset): number {
  if (charset === 'iso-8859-1' || charset === 'utf-8') return -1;
  if (!isUtf16(charset)) return text.indexOf('\ufffd');
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : -1;
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}
