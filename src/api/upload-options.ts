/**
 * What an upload request says about its file besides the bytes: the charset (Content-Type's `charset`, or
 * `?charset=` — the only way for a multipart part, whose own parameters the multipart parser does not report),
 * `?delimiter=comma|semicolon|tab`, `?extra_columns=strict|keep`, `?bom=true|false` (CSV output for Excel), and
 * `Content-Encoding: gzip`. Bad values are answered before the body is read: an unknown charset 415 with the
 * supported list, an unknown parameter value 400.
 */
import type { Request } from 'express';
import { appError } from '../errors.ts';
import {
  CSV_CHARSETS,
  CSV_DELIMITERS,
  DEFAULT_DIALECT,
  parseCharset,
  parseDelimiter,
  type CsvCharset,
  type CsvDialect,
} from '../bulk/csv-dialect.ts';

/** One query parameter as a single string (undefined when absent); a repeated parameter is a 400. */
function queryValue(req: Request, name: string, allowed: string): string | undefined {
  const value: unknown = (req.query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw appError('UPLOAD_PARAMETER', { name, allowed });
  return value;
}

function charsetOf(name: string): CsvCharset {
  const charset = parseCharset(name);
  if (charset === undefined) {
    throw appError('UPLOAD_CHARSET', {
      charset: JSON.stringify(name.slice(0, 40)),
      supported: CSV_CHARSETS.join(', '),
    });
  }
  return charset;
}

/** The file's dialect from the request; `declared` are the charsets of the Content-Type header. */
export function uploadDialect(req: Request, declared: readonly string[]): CsvDialect {
  const query = queryValue(req, 'charset', CSV_CHARSETS.join(', '));
  const names = [...declared, ...(query === undefined ? [] : [query])];
  const charsets = [...new Set(names.map(charsetOf))];
  if (charsets.length > 1) {
    throw appError('UPLOAD_PARAMETER', {
      name: 'charset',
      allowed: 'one charset (the Content-Type and ?charset= disagree)',
    });
  }
  const delimiterAllowed = Object.keys(CSV_DELIMITERS).join(', ');
  const delimiterText = queryValue(req, 'delimiter', delimiterAllowed);
  const delimiter = delimiterText === undefined ? DEFAULT_DIALECT.delimiter : parseDelimiter(delimiterText);
  if (delimiter === undefined) throw appError('UPLOAD_PARAMETER', { name: 'delimiter', allowed: delimiterAllowed });
  const extra = queryValue(req, 'extra_columns', 'strict, keep')?.toLowerCase();
  if (extra !== undefined && extra !== 'strict' && extra !== 'keep') {
    throw appError('UPLOAD_PARAMETER', { name: 'extra_columns', allowed: 'strict, keep' });
  }
  const bom = queryValue(req, 'bom', 'true, false')?.toLowerCase();
  if (bom !== undefined && bom !== 'true' && bom !== 'false') {
    throw appError('UPLOAD_PARAMETER', { name: 'bom', allowed: 'true, false' });
  }
  return {
    charset: charsets[0] ?? DEFAULT_DIALECT.charset,
    delimiter,
    extraColumns: extra ?? DEFAULT_DIALECT.extraColumns,
    bom: bom === 'true',
  };
}

/** `Content-Encoding` of an upload: none/identity, or gzip (x-gzip); undefined for anything else (415). */
export function uploadEncoding(header: string | undefined): 'identity' | 'gzip' | undefined {
  if (header === undefined) return 'identity';
  const value = header.trim().toLowerCase();
  if (value === '' || value === 'identity') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  return undefined;
}
