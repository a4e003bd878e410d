/**
 * How a registrar's file is written, found in the browser from its first bytes, so that an Excel "CSV" export
 * just works: the charset (a byte order mark; else valid UTF-8; else Windows-1252, Excel's usual encoding on
 * Windows), the delimiter (comma, semicolon or tab: the one the header line uses most, outside quotes) and the
 * columns the layout does not have (kept in the results). The page shows what it found and lets the officer change
 * it; the service is told with ?charset=, ?delimiter= and ?extra_columns= and checks the whole file itself.
 */
import { INPUT_COLUMNS } from './service-tables.js';

export type Charset = 'utf-8' | 'windows-1252' | 'utf-16le' | 'utf-16be';
export type Delimiter = 'comma' | 'semicolon' | 'tab';

export const DELIMITERS: Readonly<Record<Delimiter, string>> = { comma: ',', semicolon: ';', tab: '\t' };

export interface FileReading {
  charset: Charset;
  /** How the charset was found: a byte order mark, valid UTF-8, or neither (Windows-1252). */
  charsetBy: 'bom' | 'utf-8' | 'fallback';
  delimiter: Delimiter;
  /** The header's cells as read with that charset and delimiter (surrounding spaces trimmed). */
  header: string[];
  /** Header cells that are not columns of the layout (named ones only: Excel's trailing empty columns are not). */
  extra: string[];
}

/** How many bytes of the file are read to find how it is written (the header line is within them). */
export const SNIFF_BYTES = 64 * 1024;

const KNOWN = new Set(INPUT_COLUMNS.map((c) => c.toLowerCase()));

/** The charset of the bytes: a byte order mark, else UTF-8 when every byte sequence is valid, else Windows-1252. */
export function sniffCharset(bytes: Uint8Array): Pick<FileReading, 'charset' | 'charsetBy'> {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: 'utf-8', charsetBy: 'bom' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { charset: 'utf-16le', charsetBy: 'bom' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { charset: 'utf-16be', charsetBy: 'bom' };
  try {
    // `stream`: a character cut at the end of the sample is not a fault of the file.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return { charset: 'utf-8', charsetBy: 'utf-8' };
  } catch {
    return { charset: 'windows-1252', charsetBy: 'fallback' };
  }
}

/** The first line of `text` (a line break inside quotes belongs to the line). */
export function headerLine(text: string): string {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) return text.slice(0, i);
  }
  return text;
}

/** The delimiter the header line uses most, outside quotes; a comma when none is found (or on a tie). */
export function sniffDelimiter(line: string): Delimiter {
  const counts: Record<Delimiter, number> = { comma: 0, semicolon: 0, tab: 0 };
  let quoted = false;
  for (const c of line) {
    if (c === '"') quoted = !quoted;
    else if (!quoted) {
      if (c === ',') counts.comma++;
      else if (c === ';') counts.semicolon++;
      else if (c === '\t') counts.tab++;
    }
  }
  return (['comma', 'semicolon', 'tab'] as const).reduce((best, d) => (counts[d] > counts[best] ? d : best));
}

/** The cells of one CSV line split by `delimiter`, quotes removed, surrounding spaces trimmed. */
export function splitLine(line: string, delimiter: Delimiter): string[] {
  const sep = DELIMITERS[delimiter];
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === sep) {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

/** The text of the sample in `charset`, without a byte order mark. */
export function decodeSample(bytes: Uint8Array, charset: Charset): string {
  return new TextDecoder(charset).decode(bytes, { stream: true }).replace(/^\uFEFF/, '');
}

/**
 * How the file is written, from its first bytes. `chosen` overrides what was found (the officer's choice in the
 * page): the header is read again with it, so the columns listed are those the service will see.
 */
export function readFile(bytes: Uint8Array, chosen: { charset?: Charset; delimiter?: Delimiter } = {}): FileReading {
  const found = sniffCharset(bytes);
  const charset = chosen.charset ?? found.charset;
  const line = headerLine(decodeSample(bytes, charset));
  const delimiter = chosen.delimiter ?? sniffDelimiter(line);
  const header = splitLine(line, delimiter);
  const extra = header.filter((name) => name !== '' && !KNOWN.has(name.toLowerCase()));
  return { charset, charsetBy: found.charsetBy, delimiter, header, extra };
}
