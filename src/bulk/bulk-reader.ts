/**
 * The one way a bulk upload is read into records — by the pipeline and by the prescan, which must see exactly the
 * same records whatever the chunking: raw lines, the header's width checked from the first record, the row and
 * cell limits of the configuration (BULK_MAX_ROW_CHARS, BULK_MAX_CELL_CHARS; their defaults when not given), and
 * the file's dialect (src/bulk/csv-dialect.ts): its charset, decoded by `createBulkDecoder` in front of the
 * reader, and its delimiter.
 */
import { loadConfig } from '../config.ts';
import { CsvRecordReader } from './csv-reader.ts';
import { DEFAULT_DIALECT, type CsvDialect } from './csv-dialect.ts';
import { createTextDecoder, type BulkTextDecoder } from './text-decoding.ts';

/** The configuration's defaults, for callers that pass no limits (tests, tools). */
export const DEFAULT_BULK_TEXT_LIMITS = loadConfig({});

export function createBulkReader(
  limits: { maxRowChars?: number; maxCellChars?: number } = {},
  dialect: Pick<CsvDialect, 'delimiter'> = DEFAULT_DIALECT,
): CsvRecordReader {
  return new CsvRecordReader(limits.maxRowChars ?? DEFAULT_BULK_TEXT_LIMITS.BULK_MAX_ROW_CHARS, {
    rawLines: true,
    header: true,
    maxCellChars: limits.maxCellChars ?? DEFAULT_BULK_TEXT_LIMITS.BULK_MAX_CELL_CHARS,
    delimiter: dialect.delimiter,
  });
}

/** The bytes → text stage in front of the reader, for the file's charset. */
export function createBulkDecoder(dialect: Pick<CsvDialect, 'charset'> = DEFAULT_DIALECT): BulkTextDecoder {
  return createTextDecoder(dialect.charset);
}
