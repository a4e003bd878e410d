/**
 * POST /v1/calculate/bulk through the real app (createApp + createRuntime): both body kinds, content
 * negotiation, every error status, runner choice, equality with the JSON endpoint, client disconnects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { pino } from 'pino';
import { createApp } from '../../src/api/app.ts';
import { bulkRouter } from '../../src/api/bulk-route.ts';
import type { AppContext } from '../../src/api/context.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { SAMPLE_CSV, bulkConfig, generatedCsv, parseNdjson, parseOutput, readText, runToString } from './helpers.ts';
import { EXAMPLES, examplesCsv, expectRowsMatchExample } from './examples.ts';
import { sisSpelledExamplesCsv } from './registrar-files.ts';
import { expectSampleCsv, expectSampleNdjson } from './sample-doors.ts';
import { type Started, listen, stop } from '../support/listen.ts';

const logs: string[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
const config = bulkConfig({
  BULK_THREADS: '2',
  BULK_SYNC_MAX_ROWS: '50',
  BULK_CHUNK_STUDENTS: '40',
  LOG_LEVEL: 'info',
});
let runtime: Runtime;
let main: Started;
let limited: Started;

beforeAll(async () => {
  runtime = await createRuntime(config, logger);
  main = await listen(
    createApp({ config, logger, runners: runtime.runners, readiness: runtime.readiness }, { routers: runtime.routers }),
  );
  // Tiny limits, same runners: 1 KiB and 5 data rows.
  const small = bulkConfig({ BULK_MAX_BYTES: '1024', BULK_MAX_ROWS: '5' });
  const ctx: AppContext = { config: small, logger, runners: runtime.runners, readiness: [] };
  limited = await listen(createApp(ctx, { routers: [bulkRouter(ctx)] }));
});

afterAll(async () => {
  await stop(main);
  await stop(limited);
  await runtime?.close();
});

async function post(
  base: string,
  body: RequestInit['body'],
  headers: Record<string, string> = { 'content-type': 'text/csv' },
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${base}/v1/calculate/bulk`, {
    method: 'POST',
    headers,
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  return { status: res.status, text: await res.text(), headers: res.headers };
}

function multipart(csv: string, field = 'file'): FormData {
  const form = new FormData();
  form.set(field, new Blob([csv], { type: 'text/csv' }), 'students.csv');
  return form;
}

/** A body sent with chunked transfer encoding (no Content-Length). */
function chunked(text: string, piece = 512): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(i, i + piece));
      i += piece;
    },
  });
}

function envelope(text: string): { code: string; message: string } {
  return JSON.parse(text) as { code: string; message: string };
}

describe('POST /v1/calculate/bulk: success paths', () => {
  const sample = readText(SAMPLE_CSV);

  it('text/csv in, the golden CSV out (inline for a small file)', async () => {
    const res = await post(main.base, sample);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('x-bulk-runner')).toBe('inline');
    expectSampleCsv(res.text);
  });

  it('a registrar’s file with SIS spellings (Dependent, Y, grade level 2) gets the figures of examples.json', async () => {
    const res = await post(main.base, sisSpelledExamplesCsv());
    expect(res.status).toBe(200);
    const rows = parseOutput(res.text);
    for (const ex of EXAMPLES)
      expectRowsMatchExample(
        rows.filter((r) => r.student_id === ex.id),
        ex,
      );
  });

  it('multipart/form-data with the field "file" gives the same bytes, CSV and NDJSON', async () => {
    const raw = await post(main.base, sample);
    const csv = await post(main.base, multipart(sample), {});
    expect([csv.status, csv.text]).toEqual([200, raw.text]);
    expectSampleCsv(csv.text);
    const nd = await post(main.base, multipart(sample), { accept: 'application/x-ndjson' });
    expect(nd.status).toBe(200);
    expect(nd.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expectSampleNdjson(nd.text);
  });

  it('a file over BULK_SYNC_MAX_ROWS runs on the pool, byte-identical to inline, chunked upload or not', async () => {
    const { csv } = generatedCsv(300);
    const expected = (await runToString(csv, createInlineRunner(), { config })).text;
    const a = await post(main.base, csv);
    expect([a.status, a.headers.get('x-bulk-runner')]).toEqual([200, 'pool']);
    expect(a.text).toBe(expected);
    const b = await post(main.base, chunked(csv, 1000));
    expect(b.text).toBe(expected);
    const c = await post(main.base, multipart(csv), {});
    expect(c.text).toBe(expected);
  });

  it('negotiates CSV by default and NDJSON when asked', async () => {
    const csv = 'text/csv; charset=utf-8';
    const nd = 'application/x-ndjson; charset=utf-8';
    const cases: [string | undefined, string][] = [
      [undefined, csv],
      ['*/*', csv],
      ['text/*', csv],
      ['text/csv', csv],
      ['application/x-ndjson', nd],
      ['application/x-ndjson, text/csv;q=0.5', nd],
      ['application/json, text/csv;q=0.1', csv],
    ];
    for (const [accept, type] of cases) {
      const headers: Record<string, string> = { 'content-type': 'text/csv; charset=UTF-8' };
      if (accept !== undefined) headers.accept = accept;
      const res = await post(main.base, sample, headers);
      expect([accept, res.status, res.headers.get('content-type')]).toEqual([accept, 200, type]);
    }
  });

  it('every examples.json student: the bulk NDJSON result is exactly the JSON endpoint result', async () => {
    const nd = parseNdjson(
      (await post(main.base, examplesCsv(), { 'content-type': 'text/csv', accept: 'application/x-ndjson' })).text,
    );
    expect(nd.length).toBe(EXAMPLES.length);
    for (const [i, ex] of EXAMPLES.entries()) {
      const res = await fetch(`${main.base}/v1/calculate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ex.request),
      });
      expect(res.status).toBe(200);
      expect(nd[i]!.student_id).toBe(ex.id);
      expect(nd[i]!.result).toEqual(await res.json());
    }
  });
});

describe('POST /v1/calculate/bulk: error statuses', () => {
  const sample = readText(SAMPLE_CSV);

  it('415 for a body that is not text/csv (in a supported charset) or multipart', async () => {
    for (const headers of [
      { 'content-type': 'application/json' },
      { 'content-type': 'text/plain' },
      { 'content-type': 'text/csv; charset=ebcdic' },
      { 'content-type': 'text/csv', 'content-encoding': 'br' },
      {},
    ] as Record<string, string>[]) {
      const res = await post(main.base, headers['content-type'] === undefined ? new Blob([sample]) : sample, headers);
      expect(res.status, JSON.stringify(headers)).toBe(415);
      expect(envelope(res.text).code).toBe('unsupported_media_type');
    }
  });

  it('406 when Accept allows neither CSV nor NDJSON', async () => {
    for (const accept of ['application/json', 'text/html', 'application/x-ndjson;q=0']) {
      const res = await post(main.base, sample, { 'content-type': 'text/csv', accept });
      expect(res.status, accept).toBe(406);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(envelope(res.text)).toEqual({
        code: 'unsupported_media_type',
        message: 'Accept must allow text/csv or application/x-ndjson.',
      });
    }
  });

  it('400 for an empty file, a bad header, a multipart body without the file field', async () => {
    const empty = await post(main.base, '');
    expect([empty.status, envelope(empty.text).code]).toEqual([400, 'validation_error']);
    const header = await post(main.base, 'student_id,term_label,credits,dependency_status\n');
    expect(header.status).toBe(400);
    expect(JSON.parse(header.text)).toMatchObject({
      code: 'validation_error',
      field_errors: expect.arrayContaining([
        { field: 'credits', message: 'is not a column of the bulk CSV layout v1' },
      ]),
    });
    const noFile = await post(main.base, multipart(sample, 'upload'), {});
    expect([noFile.status, envelope(noFile.text).code]).toEqual([400, 'validation_error']);
    const fieldOnly = new FormData();
    fieldOnly.set('note', 'hello');
    const none = await post(main.base, fieldOnly, {});
    expect(none.status).toBe(400);
    const malformed = await post(main.base, '--x\r\nnonsense', { 'content-type': 'multipart/form-data; boundary=x' });
    expect(malformed.status).toBe(400);
  });

  it('413 before any output: Content-Length, bytes while probing (chunked), multipart, rows', async () => {
    const { csv } = generatedCsv(20); // about 4 KB, 50 rows
    for (const body of [csv, chunked(csv, 256), multipart(csv)]) {
      const res = await post(limited.base, body, body instanceof FormData ? {} : { 'content-type': 'text/csv' });
      expect(res.status).toBe(413);
      expect(envelope(res.text).code).toBe('validation_error');
    }
    const rows = await post(limited.base, generatedCsv(3).csv); // 6 rows > 5, 0.6 KB
    expect(rows.status).toBe(413);
    expect(envelope(rows.text).message).toMatch(/more than 5 data rows/);
  });

  it('a chunked upload that passes the byte limit after BULK_SYNC_MAX_ROWS rows is still a 413: the status waits for the whole upload', async () => {
    const early = bulkConfig({ BULK_MAX_BYTES: '4096', BULK_SYNC_MAX_ROWS: '0', BULK_CHUNK_STUDENTS: '5' });
    const ctx: AppContext = { config: early, logger, runners: runtime.runners, readiness: [] };
    const s = await listen(createApp(ctx, { routers: [bulkRouter(ctx)] }));
    try {
      const res = await fetch(`${s.base}/v1/calculate/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: chunked(generatedCsv(100).csv, 1024),
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(envelope(await res.text()).message).toMatch(/larger than 4096 bytes/);
    } finally {
      await stop(s);
    }
  });

  it('405 for other methods', async () => {
    const res = await fetch(`${main.base}/v1/calculate/bulk`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
  });
});

describe('POST /v1/calculate/bulk: a client that disconnects', () => {
  it('aborts the pipeline and leaves the service and the pool healthy', async () => {
    const { csv } = generatedCsv(4000);
    const url = new URL(`${main.base}/v1/calculate/bulk`);
    await new Promise<void>((resolve) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'text/csv' },
        },
        (res) => {
          res.once('data', () => {
            res.destroy();
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', () => resolve());
      req.end(csv); // the answer starts once the whole upload is in; the client leaves at its first bytes
    });
    await expect
      .poll(() => logs.some((l) => l.includes('bulk: stopped, the client went away')), { timeout: 10_000 })
      .toBe(true);
    const after = await post(main.base, generatedCsv(100).csv);
    expect([after.status, after.headers.get('x-bulk-runner')]).toEqual([200, 'pool']);
    const ready = await fetch(`${main.base}/readyz`);
    expect(ready.status).toBe(200);
  });
});
