/**
 * The real error on every door, at every size: a registrar's export that fails its check — an extra column, a
 * Windows-1252 file sent as UTF-8, semicolons between cells — at 1 MB and at 20 MB, through `curl -F`, Python
 * `requests` `files=`, `curl --data-binary` and Node's fetch with FormData, on POST /v1/calculate/bulk and
 * POST /v1/jobs, is answered with the file's own problem (the same message on every door and client), never a
 * "malformed multipart" that stopping the upload caused; and the connection is left clean: the client reads the
 * answer, curl and requests reuse the connection for the next file.
 *
 * The mechanism at any size: the same refusal for a small multipart body sent in pieces (so the multipart parser
 * has not seen its end when the check fails), and the first problem wins when a later one follows it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { bulkConfig } from '../bulk/helpers.ts';
import { encode, examplesFile, type FileShape } from '../bulk/registrar-files.ts';
import { type Started, listen, stop } from '../support/listen.ts';

const DOORS = ['/v1/calculate/bulk', '/v1/jobs'] as const;
const MB = 1_000_000;

/** Each kind of export, and what its answer must say (written from the layout's rules, not read from the code). */
const KINDS = {
  extra_column: {
    shape: { extraColumn: true } as FileShape,
    charset: 'utf-8',
    says: ['column "student_name" is not a column of the bulk CSV layout v1', '?extra_columns=keep'],
  },
  windows_1252: {
    shape: {} as FileShape,
    charset: 'windows-1252',
    // Line 2 is the first data row: its student_id has "ë" (0xeb in Windows-1252, never a UTF-8 byte alone).
    says: ['The CSV file is not valid UTF-8: line 2', '(0xeb)', 'charset=windows-1252'],
  },
  semicolons: {
    shape: { delimiter: ';' } as FileShape,
    charset: 'utf-8',
    says: ['This file seems to use ";" between cells', '?delimiter=semicolon'],
  },
} as const;
type Kind = keyof typeof KINDS;

const dir = mkdtempSync(join(tmpdir(), 'sor-refused-'));

/** The worked examples as an export of at least `bytes` bytes (the students repeated under new ids). */
function exportFile(kind: Kind, bytes: number): string {
  const { shape, charset } = KINDS[kind];
  const [header, ...rows] = examplesFile(shape)
    .split('\r\n')
    .filter((l) => l !== '');
  const lines = [header!];
  let size = header!.length;
  for (let copy = 0; size < bytes; copy++) {
    for (const row of rows) {
      const line = row.replace(/^("?)FSA-/, `$1C${copy}-`);
      lines.push(line);
      size += line.length + 2;
    }
  }
  const path = join(dir, `${kind}-${bytes / MB}mb.csv`);
  writeFileSync(path, encode(`${lines.join('\r\n')}\r\n`, charset));
  return path;
}

interface Case {
  kind: Kind;
  size: number;
  path: string;
}

let cases: Case[];
let runtime: Runtime;
let service: Started;

beforeAll(async () => {
  cases = (Object.keys(KINDS) as Kind[]).flatMap((kind) =>
    [1 * MB, 20 * MB].map((size) => ({ kind, size, path: exportFile(kind, size) })),
  );
  const logger = pino({ level: 'silent' });
  const config = bulkConfig({ BULK_THREADS: '1', SPOOL_DIR: join(dir, 'spool'), JOBS_DIR: join(dir, 'jobs') });
  runtime = await createRuntime(config, logger);
  service = await listen(
    createApp({ config, logger, runners: runtime.runners, readiness: runtime.readiness }, { routers: runtime.routers }),
  );
}, 120_000);

afterAll(async () => {
  await stop(service);
  await runtime?.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}: ${err}`))));
  });
}

interface Answer {
  status: number;
  message: string;
  /** New connections the client opened for this request (curl's num_connects: 0 when it reused one). */
  connects?: number;
}

const messageOf = (text: string) => (JSON.parse(text) as { message: string }).message;

/** curl, one process for every file (each `--next` request reuses the connection when the last was left clean). */
async function curlAll(door: string, form: boolean): Promise<Answer[]> {
  const args: string[] = [];
  cases.forEach((c, i) => {
    if (i > 0) args.push('--next');
    const body = form
      ? ['-F', `file=@${c.path};type=text/csv`]
      : ['--data-binary', `@${c.path}`, '-H', 'content-type: text/csv'];
    args.push('-sS', ...body, '-o', join(dir, `answer-${i}.json`), '-w', '%{http_code} %{num_connects}\\n');
    args.push(`${service.base}${door}`);
  });
  const lines = (await run('curl', args)).trim().split('\n');
  return lines.map((line, i) => {
    const [status, connects] = line.split(' ').map(Number);
    return { status: status!, connects, message: messageOf(readFileSync(join(dir, `answer-${i}.json`), 'utf8')) };
  });
}

const PYTHON = `
import json, sys, requests
base, door = sys.argv[1], sys.argv[2]
with requests.Session() as session:
    for path in sys.argv[3:]:
        with open(path, "rb") as f:
            r = session.post(base + door, files={"file": ("export.csv", f, "text/csv")}, timeout=300)
        print(json.dumps({"status": r.status_code, "message": r.json()["message"]}))
`;

async function pythonAll(door: string): Promise<Answer[]> {
  const out = await run('python3', ['-c', PYTHON, service.base, door, ...cases.map((c) => c.path)]);
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Answer);
}

async function fetchAll(door: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const c of cases) {
    const form = new FormData();
    form.set('file', new Blob([readFileSync(c.path)], { type: 'text/csv' }), 'export.csv');
    const res = await fetch(`${service.base}${door}`, { method: 'POST', body: form });
    answers.push({ status: res.status, message: messageOf(await res.text()) });
  }
  return answers;
}

const CLIENTS: Record<string, (door: string) => Promise<Answer[]>> = {
  'curl -F': (door) => curlAll(door, true),
  'Python requests files=': pythonAll,
  'curl --data-binary': (door) => curlAll(door, false),
  'Node fetch FormData': fetchAll,
};

describe.each(DOORS)('%s: the file’s own problem, at 1 MB and 20 MB, whatever the client', (door) => {
  const seen = new Map<string, string[]>();

  it.each(Object.keys(CLIENTS))(
    '%s',
    async (client) => {
      const answers = await CLIENTS[client]!(door);
      expect(answers).toHaveLength(cases.length);
      answers.forEach((answer, i) => {
        const { kind, size } = cases[i]!;
        const where = `${client} ${kind} ${size / MB} MB`;
        expect(answer.status, where).toBe(400);
        for (const phrase of KINDS[kind].says) expect(answer.message, where).toContain(phrase);
        expect(answer.message, where).not.toMatch(/multipart/i);
        // Left clean: curl sent every file after the first on the connection of the one before.
        if (answer.connects !== undefined && i > 0) expect(answer.connects, where).toBe(0);
      });
      seen.set(
        client,
        answers.map((a) => a.message),
      );
      // Every client gets the very same message for the same file (the raw door's included).
      for (const messages of seen.values()) expect(messages).toEqual(answers.map((a) => a.message));
    },
    300_000,
  );
});

/** Sends `parts` one by one with a pause between them, and reads the answer. */
function sendInPieces(path: string, contentType: string, parts: Buffer[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${service.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'content-length': parts.reduce((n, p) => n + p.length, 0) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, message: messageOf(text) }));
    });
    req.on('error', reject);
    void (async () => {
      for (const part of parts) {
        if (req.destroyed) return;
        req.write(part);
        await new Promise((r) => setTimeout(r, 5));
      }
      req.end();
    })();
  });
}

const BOUNDARY = 'refusedBoundary42';
const filePart = (content: Buffer, name = 'file') =>
  Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="export.csv"\r\n` +
        'Content-Type: text/csv\r\n\r\n',
    ),
    content,
    Buffer.from('\r\n'),
  ]);
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

describe('whatever the size and however it is sent', () => {
  const small = () => encode(examplesFile({ extraColumn: true }), 'utf-8');

  it.each(DOORS)('%s: a small export sent in 512-byte pieces gets its own problem', async (door) => {
    const body = Buffer.concat([filePart(small()), Buffer.from(`--${BOUNDARY}--\r\n`)]);
    const pieces = Array.from({ length: Math.ceil(body.length / 512) }, (_, i) =>
      body.subarray(i * 512, i * 512 + 512),
    );
    const answer = await sendInPieces(door, MULTIPART, pieces);
    expect(answer.status).toBe(400);
    for (const phrase of KINDS.extra_column.says) expect(answer.message).toContain(phrase);
  });

  it.each(DOORS)('%s: a gzip-compressed multipart body of the 20 MB Windows-1252 export', async (door) => {
    const file = readFileSync(cases.find((c) => c.kind === 'windows_1252' && c.size === 20 * MB)!.path);
    const body = gzipSync(Buffer.concat([filePart(file), Buffer.from(`--${BOUNDARY}--\r\n`)]));
    const res = await fetch(`${service.base}${door}`, {
      method: 'POST',
      headers: { 'content-type': MULTIPART, 'content-encoding': 'gzip' },
      body,
    });
    expect(res.status).toBe(400);
    const message = messageOf(await res.text());
    for (const phrase of KINDS.windows_1252.says) expect(message).toContain(phrase);
  });

  it.each(DOORS)('%s: the first problem wins — a bad file, then a second file part', async (door) => {
    const body = Buffer.concat([filePart(small()), filePart(small()), Buffer.from(`--${BOUNDARY}--\r\n`)]);
    const answer = await sendInPieces(door, MULTIPART, [body.subarray(0, 700), body.subarray(700)]);
    expect(answer.status).toBe(400);
    expect(answer.message).toContain(KINDS.extra_column.says[0]);
  });

  it.each(DOORS)('%s: a body cut short in a good file is still a malformed multipart body', async (door) => {
    const good = encode(examplesFile(), 'utf-8');
    const body = filePart(good).subarray(0, 900);
    const answer = await sendInPieces(door, MULTIPART, [body]);
    expect(answer.status).toBe(400);
    expect(answer.message).toBe('The multipart body is malformed (Unexpected end of form).');
  });
});
