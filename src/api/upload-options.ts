/**
 * What an upload request says about its file besides the bytes: the charset (Content-Type's `charset`, or
 * `?charset=`; for multipart, the `file` part's own Content-Type, read from the body's start by `partCharset`
 * since the multipart parser does not report it), `?delimiter=comma|semicolon|tab`, `?extra_columns=strict|keep`,
 * `?bom=true|false` and `?output_delimiter=comma|semicolon|tab` (the CSV output: by default in the file's own
 * delimiter), and `Content-Encoding: gzip`. Bad values are answered before the body
 * is read (a part's charset once its headers are): an unknown charset 415 with the supported list, an unknown
 * parameter value 400.
 */
import type { Request } from 'express';
import { parseMediaType } from './media-type.ts';
import { appError } from '../errors.ts';
import { queryPolicyChoices } from './policy-query.ts';
import {
  CSV_CHARSETS,
  CSV_DELIMITERS,
  DEFAULT_DIALECT,
  parseCharset,
  parseDelimiter,
  withOutputDelimiter,
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
  const outputText = queryValue(req, 'output_delimiter', delimiterAllowed);
  const outputDelimiter = outputText === undefined ? undefined : parseDelimiter(outputText);
  if (outputText !== undefined && outputDelimiter === undefined) {
    throw appError('UPLOAD_PARAMETER', { name: 'output_delimiter', allowed: delimiterAllowed });
  }
  const extra = queryValue(req, 'extra_columns', 'strict, keep')?.toLowerCase();
  if (extra !== undefined && extra !== 'strict' && extra !== 'keep') {
    throw appError('UPLOAD_PARAMETER', { name: 'extra_columns', allowed: 'strict, keep' });
  }
  const bom = queryValue(req, 'bom', 'true, false')?.toLowerCase();
  if (bom !== undefined && bom !== 'true' && bom !== 'false') {
    throw appError('UPLOAD_PARAMETER', { name: 'bom', allowed: 'true, false' });
  }
  queryPolicyChoices(req); // ?policy.<option>=<value>: checked here, before any row (src/api/policy-query.ts)
  const read: CsvDialect = {
    charset: charsets[0] ?? DEFAULT_DIALECT.charset,
    delimiter,
    extraColumns: extra ?? DEFAULT_DIALECT.extraColumns,
    bom: bom === 'true',
  };
  return withOutputDelimiter(read, outputDelimiter); // absent: the output keeps the file's delimiter
}

/** `Content-Encoding` of an upload: none/identity, or gzip (x-gzip); undefined for anything else (415). */
export function uploadEncoding(header: string | undefined): 'identity' | 'gzip' | undefined {
  if (header === undefined) return 'identity';
  const value = header.trim().toLowerCase();
  if (value === '' || value === 'identity') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  return undefined;
}

/** How much of a multipart body is kept to read the file part's headers from (they come before its content). */
export const PART_HEAD_CHARS = 64 * 1024;

/**
 * The charset the `file` part of a multipart body declares in its own Content-Type (`text/csv; charset=…`),
 * read from the start of the body (`head`, as Latin-1 text) since the multipart parser does not report it.
 */
export function partCharset(head: string): string | undefined {
  const disposition = /\r?\ncontent-disposition:[^\r\n]*;\s*name="?file"?(?:[;\s\r]|$)/i.exec(`\n${head}`);
  if (disposition === null) return undefined;
  const at = Math.max(0, disposition.index - 1);
  const end = head.indexOf('\r\n\r\n', at);
  const start = head.lastIndexOf('\n--', at);
  const block = head.slice(start === -1 ? 0 : start, end === -1 ? head.length : end);
  const type = /\ncontent-type:([^\r\n]*)/i.exec(block);
  return type === null ? undefined : parseMediaType(type[1])?.charsets[0];
}

/**
 * The dialect of a multipart file part: the request's, with the charset the part declares, if any. A part
 * charset that is not supported is a 415; one that contradicts a non-UTF-8 ?charset= a 400.
 */
export function partDialect(dialect: CsvDialect | undefined, head: string): CsvDialect {
  const base = dialect ?? DEFAULT_DIALECT;
  const declared = partCharset(head);
  if (declared === undefined) return base;
  const charset = charsetOf(declared);
  if (charset === base.charset) return base;
  if (base.charset !== DEFAULT_DIALECT.charset) {
    throw appError('UPLOAD_PARAMETER', {
      name: 'charset',
      allowed: 'one charset (the file part and ?charset= disagree)',
    });
  }
  return { ...base, charset };
}
