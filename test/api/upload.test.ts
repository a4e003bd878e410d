/**
 * Upload, check, then answer, on both upload doors (POST /v1/calculate/bulk and POST /v1/jobs) through the real
 * app: strict UTF-8, a file sorted by term, two file parts, malformed multipart, the spool (mode, removal on every
 * path), the concurrency limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp } from '../../src/api/app.ts';
import { bulkRouter } from '../../src/api/bulk-route.ts';
import type { AppContext } from '../../src/api/context.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import type { Config } from '../../src/config.ts';
import { HEADER, bulkConfig, generatedCsv, parseOutput, row, runToString } from '../bulk/helpers.ts';
import { EXAMPLES, examplesCsv, expectRowsMatchExample } from '../bulk/examples.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';

const spoolDir = mkdtempSync(join(tmpdir(), 'sor-upload-test-'));
const logger = pino({ level: 'silent' });
const config = bulkConfig({ BULK_THREADS: '2', BULK_SYNC_MAX_ROWS: '50', SPOOL_DIR: spoolDir });
let runtime: Runtime;
let server: Server;
let base: string;

async function listenApp(cfg: Config) {
  const ctx: AppContext = { config: cfg, logger, runners: runtime.runners, readiness: [] };
  const app = createApp(ctx, { routers: [bulkRouter(ctx)] });
  const s = await new Promise<Server>((resolve) => {
    const started = app.listen(0, '127.0.0.1', () => resolve(started));
  });
  return { server: s, base: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

async function close(s: Server): Promise<void> {
  s.closeAllConnections();
  await new Promise<void>((resolve) => s.close(() => resolve()));
}

beforeAll(async () => {
  runtime = await createRuntime(config, logger);
  const app = createApp(
    { config, logger, runners: runtime.runners, readiness: runtime.readiness },
    { routers: runtime.routers },
  );
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await close(server);
  await runtime?.close();
  rmSync(spoolDir, { recursive: true, force: true });
});

const DOORS = ['/v1/calculate/bulk', '/v1/jobs'] as const;

async function post(path: string, body: RequestInit['body'], headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: body instanceof FormData ? headers : { 'content-type': 'text/csv', ...headers },
    body,
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

function envelope(text: string): { code: string; message: string } {
  return JSON.parse(text) as { code: string; message: string };
}

function spoolFiles(): string[] {
  return readdirSync(spoolDir).filter((n) => n.startsWith('upload-'));
}

describe('strict UTF-8 (both doors)', () => {
  // Windows-1252 é (0xE9) and è (0xE8): decoded with U+FFFD they would merge into one four-term student.
  const file = Buffer.concat([
    Buffer.from(`${HEADER}\n`),
    Buffer.from(row('IDxA', 'Fall', '12').replace('IDxA', 'ID\u00e9A'), 'latin1'),
    Buffer.from('\n'),
    Buffer.from(row('IDxA', 'Spring', '12').replace('IDxA', 'ID\u00e9A'), 'latin1'),
    Buffer.from('\n'),
    Buffer.from(row('IDxA', 'Fall', '6').replace('IDxA', 'ID\u00e8A'), 'latin1'),
    Buffer.from('\n'),
    Buffer.from(row('IDxA', 'Spring', '6').replace('IDxA', 'ID\u00e8A'), 'latin1'),
    Buffer.from('\n'),
  ]);

  for (const door of DOORS) {
    it(`${door}: a Windows-1252 file is a 400 naming line 2 and suggesting UTF-8, raw and multipart`, async () => {
      for (const body of [new Blob([file]), multipartOf([file])]) {
        const res = await post(door, body);
        expect(res.status).toBe(400);
        const e = envelope(res.text);
        expect(e.code).toBe('validation_error');
        expect(e.message).toMatch(/not valid UTF-8: line 2 .*0xe9/);
        expect(e.message).toMatch(/UTF-8/);
      }
    });
  }

  it('the same ids in UTF-8 are two students with their own percentages (100% and 50%)', async () => {
    const res = await post(DOORS[0], new Blob([Buffer.from(file.toString('latin1'), 'utf8')]));
    expect(res.status).toBe(200);
    const rows = parseOutput(res.text);
    expect(rows.map((r) => [r.student_id, r.row_status, r.reduced_annual_pct])).toEqual([
      ['IDéA', 'ok', '100'],
      ['IDéA', 'ok', '100'],
      ['IDèA', 'ok', '50'],
      ['IDèA', 'ok', '50'],
    ]);
  });
});

describe('a file sorted by term', () => {
  const fsa1 = EXAMPLES.find((e) => e.id === 'FSA-1')!;
  const byStudent = examplesCsv([fsa1, { ...fsa1, id: 'FSA-1b' }]);
  const lines = byStudent.trimEnd().split('\n');
  // header, FSA-1 Fall, FSA-1 Spring, FSA-1b Fall, FSA-1b Spring → all Fall rows, then all Spring rows
  const byTerm = [lines[0], lines[1], lines[3], lines[2], lines[4]].join('\n') + '\n';

  it('sorted by student: FSA example 1 as examples.json has it (Fall $1,103 subsidized)', async () => {
    const res = await post(DOORS[0], byStudent);
    expect(res.status).toBe(200);
    const rows = parseOutput(res.text);
    expectRowsMatchExample(
      rows.filter((r) => r.student_id === 'FSA-1'),
      fsa1,
    );
    expect(rows[0]!.equal_sub).toBe('1103');
  });

  for (const door of DOORS) {
    it(`${door}: sorted by term, a 400 that says to sort by student, before any row is computed (never a one-term ok, $1,750)`, async () => {
      const res = await post(door, byTerm);
      expect(res.status).toBe(400);
      const e = envelope(res.text);
      expect(e.code).toBe('validation_error');
      expect(e.message).toMatch(
        /^The CSV file seems to be sorted by term, not by student: 2 of its 2 students have their rows in separate places \(student_id "FSA-1" is on line 2 and again on line 4\)\. Sort the file by student_id/,
      );
      expect(res.text).not.toContain('1750');
    });
  }

  it('a few misplaced students among many stay per-student error rows (the file is not refused)', async () => {
    const others = examplesCsv(EXAMPLES.filter((e) => e.id !== 'FSA-1'))
      .trimEnd()
      .split('\n')
      .slice(1);
    const misplaced = [lines[0], lines[1], ...others, lines[2]].join('\n') + '\n';
    const res = await post(DOORS[0], misplaced);
    expect(res.status).toBe(200);
    const rows = parseOutput(res.text).filter((r) => r.student_id === 'FSA-1');
    expect(rows.map((r) => [r.row_status, r.error_field])).toEqual([
      ['error', 'student_id'],
      ['error', 'student_id'],
    ]);
    expect(rows[0]!.error_message).toMatch(/not contiguous/);
  });
});

function multipartOf(parts: Buffer[], field = 'file'): FormData {
  const form = new FormData();
  parts.forEach((p, i) => form.append(field, new Blob([p], { type: 'text/csv' }), `students-${i}.csv`));
  return form;
}

/** Multipart bodies that are not acceptable, sent raw so their bytes are exactly these. */
function malformedVariants(): { name: string; contentType: string; body: string }[] {
  const csv = generatedCsv(3).csv;
  const b = 'XyZboundary';
  const part = (name: string, content: string, filename = 'a.csv') =>
    `--${b}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\n` +
    `Content-Type: text/csv\r\n\r\n${content}\r\n`;
  const good = `${part('file', csv)}--${b}--\r\n`;
  return [
    { name: 'truncated in the file', contentType: `multipart/form-data; boundary=${b}`, body: good.slice(0, 200) },
    { name: 'no closing boundary', contentType: `multipart/form-data; boundary=${b}`, body: part('file', csv) },
    { name: 'no boundary parameter', contentType: 'multipart/form-data', body: good },
    { name: 'empty boundary parameter', contentType: 'multipart/form-data; boundary=', body: good },
    { name: 'a boundary not in the body', contentType: 'multipart/form-data; boundary=other', body: good },
    { name: 'empty body', contentType: `multipart/form-data; boundary=${b}`, body: '' },
    { name: 'garbage', contentType: `multipart/form-data; boundary=${b}`, body: 'nonsense\r\n' },
    {
      name: 'no file part (a field only)',
      contentType: `multipart/form-data; boundary=${b}`,
      body: `--${b}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${b}--\r\n`,
    },
    {
      name: 'the file under another field name',
      contentType: `multipart/form-data; boundary=${b}`,
      body: `${part('upload', csv)}--${b}--\r\n`,
    },
    {
      name: 'two file parts',
      contentType: `multipart/form-data; boundary=${b}`,
      body: `${part('file', csv)}${part('file', csv, 'b.csv')}--${b}--\r\n`,
    },
    {
      name: 'part without Content-Disposition',
      contentType: `multipart/form-data; boundary=${b}`,
      body: `--${b}\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${b}--\r\n`,
    },
    {
      name: 'part headers never end',
      contentType: `multipart/form-data; boundary=${b}`,
      body: `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n${'X-Pad: y\r\n'.repeat(100)}`,
    },
  ];
}

describe('malformed multipart: 400 with the envelope on both doors, never 5xx', () => {
  for (const door of DOORS) {
    it(`${door}: 12 variants`, async () => {
      const answers: [string, number, string][] = [];
      for (const v of malformedVariants()) {
        const res = await post(door, v.body, { 'content-type': v.contentType });
        answers.push([v.name, res.status, res.status === 400 ? envelope(res.text).code : res.text]);
      }
      expect(answers).toEqual(malformedVariants().map((v) => [v.name, 400, 'validation_error']));
      expect(spoolFiles()).toEqual([]);
    });
  }

  it('two file parts name the rule (exactly one file, in the field "file") on both doors', async () => {
    const csv = Buffer.from(generatedCsv(3).csv);
    for (const door of DOORS) {
      const res = await post(door, multipartOf([csv, csv]));
      expect([res.status, envelope(res.text).message]).toEqual([400, expect.stringMatching(/exactly one file/)]);
    }
  });
});

describe('the spool', () => {
  it('is a 0700 folder; an upload in progress is a 0600 file there, removed after success', async () => {
    expect(statSync(spoolDir).mode & 0o777).toBe(0o700);
    const { csv } = generatedCsv(200);
    const url = new URL(`${base}/v1/calculate/bulk`);
    let mode = -1;
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'text/csv' },
        },
        (res) => {
          let out = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (out += d));
          res.on('end', () => resolve(out));
        },
      );
      req.on('error', reject);
      req.write(csv.slice(0, 5000));
      const poll = setInterval(() => {
        const files = spoolFiles();
        if (files.length === 0) return;
        clearInterval(poll);
        mode = statSync(join(spoolDir, files[0]!)).mode & 0o777;
        req.end(csv.slice(5000));
      }, 5);
    });
    expect(mode).toBe(0o600);
    expect(parseOutput(text)).toHaveLength(generatedCsv(200).rows);
    await expect.poll(() => spoolFiles()).toEqual([]);
  });

  it('is removed after an error answer and after a client that leaves mid-upload or mid-response', async () => {
    expect((await post(DOORS[0], 'not,a,header\n1,2,3\n')).status).toBe(400);
    expect(spoolFiles()).toEqual([]);
    const { csv } = generatedCsv(3000);
    const url = new URL(`${base}/v1/calculate/bulk`);
    for (const when of ['upload', 'response'] as const) {
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
        if (when === 'response') {
          req.end(csv);
          return;
        }
        req.write(csv.slice(0, csv.length / 2));
        const poll = setInterval(() => {
          if (spoolFiles().length === 0) return;
          clearInterval(poll);
          req.destroy();
          resolve();
        }, 5);
      });
      await expect.poll(() => spoolFiles(), { timeout: 10_000 }).toEqual([]);
    }
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });
});

/** Writes the whole request (head and body) before reading anything, then returns the status line. */
async function halfDuplexStatus(port: string, head: string, body: Buffer): Promise<string> {
  const socket = connect(Number(port), '127.0.0.1');
  socket.pause();
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.write(head);
    socket.write(body, (err) => (err ? reject(err) : resolve()));
  });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => resolve());
    socket.on('error', reject);
    socket.resume();
  });
  return Buffer.concat(chunks).toString('latin1').split('\r\n')[0]!;
}

describe('early answers are read by clients that send everything first (the body is drained)', () => {
  const body = Buffer.alloc(6 * 1024 * 1024, 'a,b,c\n');

  it('415 for a 6 MB body of the wrong type, 413 for a 6 MB body over the byte limit', async () => {
    const url = new URL(base);
    const head = (type: string) =>
      `POST /v1/calculate/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    expect(await halfDuplexStatus(url.port, head('text/plain'), body)).toBe('HTTP/1.1 415 Unsupported Media Type');
    const small = await listenApp(bulkConfig({ BULK_MAX_BYTES: '1024', SPOOL_DIR: spoolDir }));
    try {
      const port = new URL(small.base).port;
      expect(await halfDuplexStatus(port, head('text/csv'), body)).toBe('HTTP/1.1 413 Payload Too Large');
      const chunkedHead =
        'POST /v1/calculate/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n' +
        'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n';
      const chunked = Buffer.concat([
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body,
        Buffer.from('\r\n0\r\n\r\n'),
      ]);
      expect(await halfDuplexStatus(port, chunkedHead, chunked)).toBe('HTTP/1.1 413 Payload Too Large');
    } finally {
      await close(small.server);
    }
    expect(spoolFiles()).toEqual([]);
  });
});

describe('the concurrency limit (BULK_MAX_CONCURRENT)', () => {
  it('100 parallel uploads: each answer is the complete correct output or a 503 service_busy with Retry-After', async () => {
    const limited = await listenApp(bulkConfig({ BULK_MAX_CONCURRENT: '2', SPOOL_DIR: spoolDir }));
    try {
      const { csv } = generatedCsv(300);
      const expected = (await runToString(csv, createInlineRunner(), { config })).text;
      const answers = await Promise.all(
        Array.from({ length: 100 }, async () => {
          const res = await fetch(`${limited.base}/v1/calculate/bulk`, {
            method: 'POST',
            headers: { 'content-type': 'text/csv' },
            body: csv,
          });
          return { status: res.status, retry: res.headers.get('retry-after'), text: await res.text() };
        }),
      );
      const ok = answers.filter((a) => a.status === 200);
      const busy = answers.filter((a) => a.status === 503);
      expect(ok.length + busy.length).toBe(100);
      expect(ok.length).toBeGreaterThan(0);
      for (const a of ok) expect(a.text).toBe(expected);
      for (const a of busy) {
        expect(a.retry).toMatch(/^\d+$/);
        expect(envelope(a.text).code).toBe('service_busy');
      }
      // Still answering, and nothing left in the spool.
      expect(
        (
          await fetch(`${limited.base}/v1/calculate/bulk`, {
            method: 'POST',
            headers: { 'content-type': 'text/csv' },
            body: csv,
          })
        ).status,
      ).toBe(200);
      await expect.poll(() => spoolFiles()).toEqual([]);
    } finally {
      await close(limited.server);
    }
  });
});
