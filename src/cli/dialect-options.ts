/**
 * The `sor bulk` options that say how the input file is written and how the CSV output starts — the same
 * choices the HTTP doors take as parameters (src/api/upload-options.ts):
 *
 *   --encoding CHARSET      utf-8 (default), windows-1252, iso-8859-1, utf-16 (with BOM), utf-16le, utf-16be
 *   --delimiter NAME        comma (default), semicolon, tab
 *   --keep-extra-columns    columns outside the layout are echoed, not refused
 *   --bom                   the CSV output starts with a UTF-8 byte order mark (Excel)
 *   --output-delimiter NAME the CSV output's delimiter (default: the input's)
 */
import {
  CSV_CHARSETS,
  CSV_DELIMITERS,
  DEFAULT_DIALECT,
  delimiterName,
  isDefaultDialect,
  parseCharset,
  parseDelimiter,
  withOutputDelimiter,
  type CsvDialect,
} from '../bulk/csv-dialect.ts';
import { UsageError } from './io.ts';

/** parseArgs option declarations of the dialect options. */
export const DIALECT_OPTIONS = {
  encoding: { type: 'string' },
  delimiter: { type: 'string' },
  'keep-extra-columns': { type: 'boolean' },
  bom: { type: 'boolean' },
  'output-delimiter': { type: 'string' },
} as const;

export function dialectFromArgs(values: {
  encoding?: string;
  delimiter?: string;
  'keep-extra-columns'?: boolean;
  bom?: boolean;
  'output-delimiter'?: string;
}): CsvDialect {
  const charset = values.encoding === undefined ? DEFAULT_DIALECT.charset : parseCharset(values.encoding);
  if (charset === undefined) throw new UsageError(`--encoding must be one of: ${CSV_CHARSETS.join(', ')}`);
  const delimiter = values.delimiter === undefined ? DEFAULT_DIALECT.delimiter : parseDelimiter(values.delimiter);
  if (delimiter === undefined) {
    throw new UsageError(`--delimiter must be one of: ${Object.keys(CSV_DELIMITERS).join(', ')}`);
  }
  const named = values['output-delimiter'];
  const output = named === undefined ? undefined : parseDelimiter(named);
  if (named !== undefined && output === undefined) {
    throw new UsageError(`--output-delimiter must be one of: ${Object.keys(CSV_DELIMITERS).join(', ')}`);
  }
  const read: CsvDialect = {
    charset,
    delimiter,
    extraColumns: values['keep-extra-columns'] === true ? 'keep' : 'strict',
    bom: values.bom === true,
  };
  return withOutputDelimiter(read, output);
}

/** The query string that asks a service for the same dialect ('' for the default). */
export function dialectQuery(d: CsvDialect): string {
  if (isDefaultDialect(d)) return '';
  const params = new URLSearchParams();
  if (d.charset !== DEFAULT_DIALECT.charset) params.set('charset', d.charset);
  if (d.delimiter !== DEFAULT_DIALECT.delimiter) params.set('delimiter', delimiterName(d.delimiter) ?? 'comma');
  if (d.extraColumns !== DEFAULT_DIALECT.extraColumns) params.set('extra_columns', d.extraColumns);
  if (d.bom) params.set('bom', 'true');
  if (d.outputDelimiter !== undefined) params.set('output_delimiter', delimiterName(d.outputDelimiter) ?? 'comma');
  return `?${params.toString()}`;
}
