/**
 * The files registrars really export, through the real HTTP service (createRuntime + createApp, real
 * sockets): charsets, delimiters, Excel's trailing empty columns, extra columns, application/octet-stream, gzip
 * in and out, the template, CORS. Each file is made here from the spec's worked examples and must come back right
 * (figures from examples.json) or get a clear 400 that says what to change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync, gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { createApp } from '../../src/api/app.ts';
import type { AppContext } from '../../src/api/context.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { bulkConfig, parseOutput } from '../bulk/helpers.ts';
import { EXAMPLES, expectRowsMatchExample } from '../bulk/examples.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import {
  accentedId,
  encode,
  examplesFile,
  expectExamplesOutput,
  rawRequest,
  type RawResponse,
} from '../bulk/registrar-files.ts';
import { type Started, listen, stop } from '../support/listen.ts';

const logger = pino({ level: 'silent' });
const SIS = 'https://sis.example.edu';
const config = bulkConfig({ BULK_THREADS: '1', CORS_ORIGINS: `${SIS}, https://other.example.edu` });
const LIMIT = 64 * 1024;
let runtime: Runtime;
let smallRuntime: Runtime;
let main: Started;
let small: Started;

beforeAll(async () => {
  runtime = await createRuntime(config, logger);
  main = await listen(
    createApp({ config, logger, runners: runtime.runners, readiness: runtime.readiness }, { routers: runtime.routers }),
  );
  // Both doors (bulk and jobs) with a 64 KiB limit.
  const tiny = bulkConfig({ BULK_MAX_BYTES: String(LIMIT), BULK_THREADS: '1' });
  smallRuntime = await createRuntime(tiny, logger);
  const ctx: AppContext = { config: tiny, logger, runners: smallRuntime.runners, readiness: [] };
  small = await listen(createApp(ctx, { routers: smallRuntime.routers }));
});

afterAll(async () => {
  await stop(main);
  await stop(small);
  await runtime?.close();
  await smallRuntime?.close();
});

function bulk(
  query: string,
  body: Buffer | string,
  headers: Record<string, string>,
  base: string = main.base,
): Promise<RawResponse> {
  return rawRequest(`${base}/v1/calculate/bulk${query}`, { method: 'POST', headers, body });
}

function envelope(res: RawResponse): {
  code: string;
  message: string;
  field_errors?: { field: string; message: string }[];
} {
  return JSON.parse(res.text) as { code: string; message: string };
}

/** The "Done when" file: Windows-1252, semicolons, an extra column, two trailing empty columns, gzipped. */
const DONE_WHEN = gzipSync(
  encode(examplesFile({ delimiter: ';', extraColumn: true, trailingEmpty: 2 }), 'windows-1252'),
);

describe('the "Done when" file: Windows-1252, semicolons, an extra column, trailing empty columns, gzipped', () => {
  it('comes back right with the right parameters (and gzipped when asked)', async () => {
    const res = await bulk('?delimiter=semicolon&extra_columns=keep', DONE_WHEN, {
      'content-type': 'text/csv; charset=windows-1252',
      'content-encoding': 'gzip',
      'accept-encoding': 'gzip',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(res.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    // Semicolons in, semicolons out (the file's own delimiter, so the Excel that wrote it opens the answer).
    const rows = expectExamplesOutput(res.text, true, ';');
    // The extra column is echoed at its place, named as written; the unnamed columns are not in the output.
    expect(res.text.split('\n')[0]!.startsWith('student_id;student_name;term_label;')).toBe(true);
    expect(Object.keys(rows[0]!)).not.toContain('');
  });

  it('without ?delimiter: a 400 saying the file seems to use ";"', async () => {
    const res = await bulk('', DONE_WHEN, {
      'content-type': 'text/csv; charset=windows-1252',
      'content-encoding': 'gzip',
    });
    expect(res.status).toBe(400);
    expect(envelope(res).message).toContain('This file seems to use ";" between cells');
    expect(envelope(res).message).toContain('?delimiter=semicolon');
  });

  it('without the charset: a 400 naming the line and suggesting the charset parameter', async () => {
    const res = await bulk('?delimiter=semicolon&extra_columns=keep', DONE_WHEN, {
      'content-type': 'text/csv',
      'content-encoding': 'gzip',
    });
    expect(res.status).toBe(400);
    const { message } = envelope(res);
    // Line 2 is the first data row: its student_id has "ë" (0xeb in Windows-1252, not UTF-8).
    expect(message).toMatch(/^The CSV file is not valid UTF-8: line 2 \(student_id "FSA-1-ZoëÑ|line 2/);
    expect(message).toContain('(0xeb)');
    expect(message).toContain('charset=windows-1252');
  });

  it('without extra_columns=keep: a 400 naming the column and how to keep it', async () => {
    const res = await bulk('?delimiter=semicolon', DONE_WHEN, {
      'content-type': 'text/csv; charset=windows-1252',
      'content-encoding': 'gzip',
    });
    expect(res.status).toBe(400);
    const body = envelope(res);
    expect(body.message).toContain('column "student_name" is not a column of the bulk CSV layout v1');
    expect(body.message).toContain('?extra_columns=keep');
    expect(body.field_errors?.map((f) => f.field)).toEqual(['student_name']);
  });
});

describe('charsets', () => {
  const plain = examplesFile();

  it.each([
    ['windows-1252', 'windows-1252'],
    ['cp1252 (alias)', 'windows-1252'],
    ['iso-8859-1', 'iso-8859-1'],
    ['latin1 (alias)', 'iso-8859-1'],
  ])('charset=%s', async (declared, encoding) => {
    const res = await bulk('', encode(plain, encoding), {
      'content-type': `text/csv; charset=${declared.split(' ')[0]}`,
    });
    expect(res.status, res.text).toBe(200);
    expectExamplesOutput(res.text);
  });

  it('UTF-16LE with a BOM (Excel "Unicode text"), declared utf-16 or utf-16le', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), encode(plain, 'utf-16le')]);
    for (const charset of ['utf-16', 'utf-16le']) {
      const res = await bulk('', bytes, { 'content-type': `text/csv; charset=${charset}` });
      expect(res.status, res.text).toBe(200);
      expectExamplesOutput(res.text);
    }
  });

  it('UTF-16BE with a BOM, declared utf-16; tab-delimited as Excel writes Unicode text', async () => {
    const text = examplesFile({ delimiter: '\t' });
    const bytes = Buffer.concat([Buffer.from([0xfe, 0xff]), encode(text, 'utf-16be')]);
    const res = await bulk('?delimiter=tab', bytes, { 'content-type': 'text/csv; charset=utf-16' });
    expect(res.status, res.text).toBe(200);
    expectExamplesOutput(res.text, false, '\t');
  });

  it('?charset= works for a multipart upload (and for a raw one)', async () => {
    const form = new FormData();
    form.set('file', new Blob([encode(plain, 'windows-1252')], { type: 'text/csv' }), 'students.csv');
    const res = await fetch(`${main.base}/v1/calculate/bulk?charset=windows-1252`, { method: 'POST', body: form });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expectExamplesOutput(text);
  });

  it('a multipart file part declares its charset in its own Content-Type', async () => {
    const boundary = 'partcharset7';
    const body = (partType: string) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nname="file" is not here\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.csv"\r\n` +
            `Content-Type: ${partType}\r\n\r\n`,
        ),
        encode(plain, 'windows-1252'),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    const ok = await bulk('', body('text/csv; charset=windows-1252'), headers);
    expect(ok.status, ok.text).toBe(200);
    expectExamplesOutput(ok.text);
    const unknown = await bulk('', body('text/csv; charset=klingon'), headers);
    expect(unknown.status).toBe(415);
    const conflict = await bulk('?charset=utf-16', body('text/csv; charset=windows-1252'), headers);
    expect(conflict.status).toBe(400);
    expect(envelope(conflict).message).toContain('the file part and ?charset= disagree');
    const undeclared = await bulk('', body('text/csv'), headers);
    expect(undeclared.status).toBe(400);
    expect(envelope(undeclared).message).toMatch(/^The CSV file is not valid UTF-8: line 2/);
  });

  it('a byte that is not Windows-1252 is a 400 naming the line and the charset parameter', async () => {
    const lines = plain.split('\r\n');
    const bytes = Buffer.concat([
      encode(`${lines.slice(0, 3).join('\r\n')}\r\n`, 'windows-1252'),
      Buffer.from([0x81]), // undefined in Windows-1252
      encode(`${lines.slice(3).join('\r\n')}`, 'windows-1252'),
    ]);
    const res = await bulk('', bytes, { 'content-type': 'text/csv; charset=windows-1252' });
    expect(res.status).toBe(400);
    const { message } = envelope(res);
    expect(message).toContain('not valid windows-1252: line 4');
    expect(message).toContain('charset');
    expect(message).toContain('supported: utf-8, windows-1252, iso-8859-1, utf-16');
  });

  it('a UTF-16 file sent as UTF-8 gets a 400 saying to declare utf-16 (and tab)', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), encode(examplesFile({ delimiter: '\t' }), 'utf-16le')]);
    const res = await bulk('', bytes, { 'content-type': 'text/csv' });
    expect(res.status).toBe(400);
    expect(envelope(res).message).toContain('it starts with a UTF-16 byte order mark');
    expect(envelope(res).message).toContain('charset=utf-16');
    const ok = await bulk('?charset=utf-16&delimiter=tab', bytes, { 'content-type': 'text/csv' });
    expect(ok.status, ok.text).toBe(200);
    expectExamplesOutput(ok.text, false, '\t');
  });

  it('UTF-16 with an odd number of bytes is a 400 naming the last line', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), encode(plain, 'utf-16le'), Buffer.from([0x41])]);
    const res = await bulk('', bytes, { 'content-type': 'text/csv; charset=utf-16' });
    expect(res.status).toBe(400);
    const lines = plain.split('\n').length; // the text ends with a line end: the odd byte starts a new line
    expect(envelope(res).message).toContain(`not valid utf-16: line ${lines}`);
  });

  it('an unknown charset is a 415 listing the supported ones', async () => {
    const res = await bulk('', plain, { 'content-type': 'text/csv; charset=ebcdic' });
    expect(res.status).toBe(415);
    expect(envelope(res)).toEqual({
      code: 'unsupported_media_type',
      message:
        'The charset "ebcdic" is not supported for CSV files; supported: utf-8, windows-1252, iso-8859-1, utf-16, utf-16le, utf-16be.',
    });
  });

  it('?bom=true puts a UTF-8 byte order mark before the CSV output (Excel), and only then', async () => {
    const withBom = await bulk('?bom=true', plain, { 'content-type': 'text/csv' });
    expect(withBom.status).toBe(200);
    expect(withBom.body.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expectExamplesOutput(withBom.text.slice(1));
    const without = await bulk('', plain, { 'content-type': 'text/csv' });
    expect(without.body.subarray(0, 10).toString()).toBe('student_id');
  });
});

describe('delimiters', () => {
  it.each([
    ['semicolon', ';', '";"'],
    ['tab', '\t', 'tabs'],
  ] as const)(
    '?delimiter=%s reads the file and answers in it; without it a 400 with the hint',
    async (name, delimiter, shown) => {
      const text = examplesFile({ delimiter });
      const ok = await bulk(`?delimiter=${name}`, text, { 'content-type': 'text/csv' });
      expect(ok.status, ok.text).toBe(200);
      expectExamplesOutput(ok.text, false, delimiter);
      // ?output_delimiter= asks for another: the same rows in commas, byte for byte the comma file's answer.
      const comma = await bulk(`?delimiter=${name}&output_delimiter=comma`, text, { 'content-type': 'text/csv' });
      expect(comma.status, comma.text).toBe(200);
      expect(comma.text).toBe((await bulk('', examplesFile(), { 'content-type': 'text/csv' })).text);
      const hint = await bulk('', text, { 'content-type': 'text/csv' });
      expect(hint.status).toBe(400);
      expect(envelope(hint).message).toContain(`This file seems to use ${shown} between cells`);
      expect(envelope(hint).message).toContain(`?delimiter=${name}`);
    },
  );

  it('an unknown delimiter is a 400 listing the names', async () => {
    const res = await bulk('?delimiter=pipe', examplesFile(), { 'content-type': 'text/csv' });
    expect(res.status).toBe(400);
    expect(envelope(res).message).toBe('The parameter delimiter must be one of: comma, semicolon, tab.');
  });
});

describe('columns', () => {
  it('trailing unnamed empty columns are ignored (and not echoed)', async () => {
    const res = await bulk('', examplesFile({ trailingEmpty: 3 }), { 'content-type': 'text/csv' });
    expect(res.status, res.text).toBe(200);
    const rows = expectExamplesOutput(res.text);
    expect(Object.keys(rows[0]!)).not.toContain('');
  });

  it('a value in an unnamed column makes its student error rows naming the column number', async () => {
    const text = examplesFile({ trailingEmpty: 2 }).replace(/\r\n(FSA-1-[^\r]*?),,\r\n/, '\r\n$1,,oops\r\n');
    expect(text).toContain(',oops');
    const res = await bulk('', text, { 'content-type': 'text/csv' });
    expect(res.status).toBe(200);
    const rows = parseOutput(res.text);
    const fsa1 = rows.filter((r) => r.student_id === accentedId('FSA-1'));
    expect(fsa1.map((r) => r.row_status)).toEqual(['error', 'error']);
    const columns = text.split('\r\n')[0]!.split(',').length;
    expect(fsa1.map((r) => r.error_message).join(' ')).toContain(
      `column ${columns} has no name in the header row but holds "oops"`,
    );
    // The other students are computed.
    for (const ex of EXAMPLES.filter((e) => e.id !== 'FSA-1')) {
      expectRowsMatchExample(
        rows.filter((r) => r.student_id === accentedId(ex.id)),
        ex,
      );
    }
  });

  it('an unknown column is a 400 (strict by default) with a "did you mean" for a near miss', async () => {
    const text = examplesFile().replace('credits_enrolled', 'credit_enrolled');
    const res = await bulk('', text, { 'content-type': 'text/csv' });
    expect(res.status).toBe(400);
    expect(envelope(res).message).toContain(
      'column "credit_enrolled" is not a column of the bulk CSV layout v1 (did you mean "credits_enrolled"?)',
    );
  });

  it('?extra_columns=keep echoes an extra column verbatim (CSV); NDJSON results are the same', async () => {
    const text = examplesFile({ extraColumn: true });
    const res = await bulk('?extra_columns=keep', text, { 'content-type': 'text/csv' });
    expect(res.status, res.text).toBe(200);
    expectExamplesOutput(res.text, true);
    const nd = await bulk('?extra_columns=keep', text, { 'content-type': 'text/csv', accept: 'application/x-ndjson' });
    expect(nd.status).toBe(200);
    const results = nd.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { student_id: string; error: unknown });
    expect(results.map((r) => r.student_id)).toEqual(EXAMPLES.map((e) => accentedId(e.id)));
    expect(results.every((r) => r.error === null)).toBe(true);
  });

  it('application/octet-stream is read as CSV', async () => {
    const res = await bulk('', examplesFile(), { 'content-type': 'application/octet-stream' });
    expect(res.status, res.text).toBe(200);
    expectExamplesOutput(res.text);
  });

  it('GET /v1/calculate/bulk/template.csv: the header and FSA example 1, which computes to the example', async () => {
    const template = await rawRequest(`${main.base}/v1/calculate/bulk/template.csv`);
    expect(template.status).toBe(200);
    expect(template.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = template.text.trimEnd().split('\n');
    expect(lines[0]!.split(',')).toContain('student_id');
    expect(lines).toHaveLength(3);
    const res = await bulk('', template.text, { 'content-type': 'text/csv' });
    expect(res.status).toBe(200);
    expectRowsMatchExample(
      parseOutput(res.text),
      WORKED_EXAMPLES.find((e) => e.id === 'FSA-1')!,
    );
  });
});

describe('gzip', () => {
  it('a gzip upload of a plain file, and a gzip answer only when asked', async () => {
    const body = gzipSync(examplesFile());
    const plainAnswer = await bulk('', body, { 'content-type': 'text/csv', 'content-encoding': 'gzip' });
    expect(plainAnswer.status).toBe(200);
    expect(plainAnswer.headers['content-encoding']).toBeUndefined();
    expect(plainAnswer.headers['vary']).toMatch(/Accept-Encoding/i);
    expectExamplesOutput(plainAnswer.text);
    const gz = await bulk('', body, {
      'content-type': 'text/csv',
      'content-encoding': 'gzip',
      'accept-encoding': 'gzip, deflate',
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(plainAnswer.text);
  });

  it('a multipart body sent with Content-Encoding: gzip', async () => {
    const boundary = 'sorboundary42';
    const multipart = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.csv"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      Buffer.from(examplesFile()),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await bulk('', gzipSync(multipart), {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-encoding': 'gzip',
    });
    expect(res.status, res.text).toBe(200);
    expectExamplesOutput(res.text);
  });

  it.each(['/v1/calculate/bulk', '/v1/jobs'])(
    'a gzip bomb (small body, expands past BULK_MAX_BYTES) is refused with the 413 envelope: %s',
    async (path) => {
      const file = Buffer.concat([Buffer.from(examplesFile()), Buffer.alloc(48 * 1024 * 1024, '\n')]);
      const bomb = gzipSync(file, { level: 9 });
      expect(bomb.length).toBeLessThan(LIMIT); // the body itself is under the limit
      const started = performance.now();
      const res = await rawRequest(`${small.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'content-encoding': 'gzip' },
        body: bomb,
      });
      expect(res.status).toBe(413);
      expect(envelope(res)).toEqual({
        code: 'validation_error',
        message: `The CSV file is larger than ${LIMIT} bytes, the most one request accepts.`,
      });
      // Refused as soon as the limit is passed, not after inflating (and reading) 48 MiB.
      expect(performance.now() - started).toBeLessThan(10_000);
    },
  );

  it('the job door: a gzip upload in a dialect, the result as the stored gzip bytes', async () => {
    const submit = await rawRequest(`${main.base}/v1/jobs?delimiter=semicolon&extra_columns=keep`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv; charset=windows-1252', 'content-encoding': 'gzip' },
      body: DONE_WHEN,
    });
    expect(submit.status, submit.text).toBe(202);
    const { status_url, result_url } = JSON.parse(submit.text) as { status_url: string; result_url: string };
    for (let i = 0; i < 200; i++) {
      const status = JSON.parse((await rawRequest(`${main.base}${status_url}`)).text) as { status: string };
      if (status.status === 'completed') break;
      expect(status.status).not.toBe('failed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const gz = await rawRequest(`${main.base}${result_url}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['vary']).toMatch(/Accept-Encoding/i);
    expectExamplesOutput(gz.text, true, ';');
    const plain = await rawRequest(`${main.base}${result_url}`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString('utf8')).toBe(gz.text);
  });

  it('a body that is not gzip is a 400; another Content-Encoding a 415', async () => {
    const bad = await bulk('', examplesFile(), { 'content-type': 'text/csv', 'content-encoding': 'gzip' });
    expect(bad.status).toBe(400);
    expect(envelope(bad).message).toMatch(/^The body is sent with Content-Encoding: gzip but is not valid gzip/);
    const br = await bulk('', examplesFile(), { 'content-type': 'text/csv', 'content-encoding': 'br' });
    expect(br.status).toBe(415);
  });
});

describe('CORS (CORS_ORIGINS)', () => {
  it('answers a preflight from a listed origin with the allowed methods and headers', async () => {
    const res = await rawRequest(`${main.base}/v1/calculate/bulk`, {
      method: 'OPTIONS',
      headers: {
        origin: SIS,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, content-encoding',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(SIS);
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('content-encoding');
  });

  it('exposes the headers a client reads on an actual response; another origin gets no CORS header', async () => {
    const res = await bulk('', examplesFile(), { 'content-type': 'text/csv', origin: SIS });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(SIS);
    const exposed = String(res.headers['access-control-expose-headers']);
    for (const h of ['X-Request-Id', 'X-Rule-Set', 'Retry-After', 'Location']) expect(exposed).toContain(h);
    const other = await rawRequest(`${main.base}/healthz`, { headers: { origin: 'https://evil.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without CORS_ORIGINS, no CORS headers at all', async () => {
    const res = await rawRequest(`${small.base}/v1/calculate/bulk`, {
      method: 'OPTIONS',
      headers: { origin: SIS, 'access-control-request-method': 'POST' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
