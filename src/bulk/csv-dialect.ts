/**
 * How an uploaded bulk file is written, as its sender declares it (Content-Type charset, query parameters, CLI
 * options): its charset, its delimiter, whether columns outside the layout are kept, and how the CSV output is
 * written: with the file's own delimiter unless another is asked for (a semicolon file from European Excel is
 * answered in semicolons, which the same Excel opens), and with a byte order mark for Excel if asked. The default
 * is the v1 layout exactly: UTF-8, commas, strict columns.
 */

/** The charsets a bulk file may be declared in (names as iconv-lite knows them). */
export const CSV_CHARSETS = ['utf-8', 'windows-1252', 'iso-8859-1', 'utf-16', 'utf-16le', 'utf-16be'] as const;
export type CsvCharset = (typeof CSV_CHARSETS)[number];

/** Other names of the supported charsets (IANA aliases and what spreadsheets and SIS exports write). */
const CHARSET_ALIASES: Readonly<Record<string, CsvCharset>> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'us-ascii': 'utf-8',
  ascii: 'utf-8',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  'x-cp1252': 'windows-1252',
  'iso-8859-1': 'iso-8859-1',
  'iso8859-1': 'iso-8859-1',
  'iso_8859-1': 'iso-8859-1',
  latin1: 'iso-8859-1',
  'latin-1': 'iso-8859-1',
  'utf-16': 'utf-16',
  utf16: 'utf-16',
  'utf-16le': 'utf-16le',
  utf16le: 'utf-16le',
  'utf-16be': 'utf-16be',
  utf16be: 'utf-16be',
};

/** The supported charset of `name` (any letter case, surrounding quotes and spaces ignored); undefined if none. */
export function parseCharset(name: string): CsvCharset | undefined {
  const key = name.trim().replace(/^"|"$/g, '').toLowerCase();
  return Object.hasOwn(CHARSET_ALIASES, key) ? CHARSET_ALIASES[key] : undefined;
}

/** The delimiters a bulk file may use, by the name a client gives (`?delimiter=semicolon`, `--delimiter tab`). */
export const CSV_DELIMITERS = { comma: ',', semicolon: ';', tab: '\t' } as const;
export type CsvDelimiterName = keyof typeof CSV_DELIMITERS;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[CsvDelimiterName];

export function parseDelimiter(name: string): CsvDelimiter | undefined {
  const key = name.trim().toLowerCase();
  return Object.hasOwn(CSV_DELIMITERS, key) ? CSV_DELIMITERS[key as CsvDelimiterName] : undefined;
}

/** The name of a delimiter (`semicolon` for `;`). */
export function delimiterName(delimiter: string): CsvDelimiterName | undefined {
  return (Object.keys(CSV_DELIMITERS) as CsvDelimiterName[]).find((k) => CSV_DELIMITERS[k] === delimiter);
}

/** Columns outside the v1 layout: `strict` rejects the file naming them, `keep` echoes them verbatim. */
export type ExtraColumns = 'strict' | 'keep';

export interface CsvDialect {
  charset: CsvCharset;
  delimiter: CsvDelimiter;
  extraColumns: ExtraColumns;
  /** CSV output starts with a UTF-8 byte order mark (Excel then reads it as UTF-8). */
  bom: boolean;
  /**
   * The CSV output's delimiter when it is not the input's (`?output_delimiter=`, `--output-delimiter`); absent:
   * the input's. Set only when it differs (withOutputDelimiter), so equal dialects have equal keys.
   */
  outputDelimiter?: CsvDelimiter;
}

export const DEFAULT_DIALECT: Readonly<CsvDialect> = Object.freeze({
  charset: 'utf-8',
  delimiter: ',',
  extraColumns: 'strict',
  bom: false,
});

/** The delimiter the CSV output is written with: the one asked for, else the input's. */
export function outputDelimiterOf(d: Pick<CsvDialect, 'delimiter' | 'outputDelimiter'>): CsvDelimiter {
  return d.outputDelimiter ?? d.delimiter;
}

/** The dialect with the output written in `output` (undefined: the input's delimiter). */
export function withOutputDelimiter(d: CsvDialect, output: CsvDelimiter | undefined): CsvDialect {
  const { outputDelimiter: _dropped, ...rest } = d;
  return output === undefined || output === d.delimiter ? rest : { ...rest, outputDelimiter: output };
}

export function isDefaultDialect(d: CsvDialect): boolean {
  return (
    d.charset === DEFAULT_DIALECT.charset &&
    d.delimiter === DEFAULT_DIALECT.delimiter &&
    d.extraColumns === DEFAULT_DIALECT.extraColumns &&
    d.bom === DEFAULT_DIALECT.bom &&
    outputDelimiterOf(d) === DEFAULT_DIALECT.delimiter
  );
}

/** A short stable text of a dialect (part of an async job's fingerprint: the same bytes read otherwise differ). */
export function dialectKey(d: CsvDialect): string {
  const out = outputDelimiterOf(d) === d.delimiter ? '' : `;out=${delimiterName(outputDelimiterOf(d)) ?? 'comma'}`;
  return `${d.charset};${delimiterName(d.delimiter) ?? 'comma'};${d.extraColumns};${d.bom ? 'bom' : ''}${out}`;
}
