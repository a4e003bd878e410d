/**
 * The text fields of a multipart upload reach the caller (POST /v1/jobs reads `callback_url` from them), before
 * or after the file part, a repeated field with all its values; a raw CSV body has none.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveUpload } from '../../src/api/upload.ts';
import type { BodyKind } from '../../src/api/upload-request.ts';
import { HEADER, row } from '../bulk/helpers.ts';

const spoolDir = mkdtempSync(join(tmpdir(), 'sor-upload-fields-'));
const CSV = `${HEADER}\n${row('S1', 'Fall', '6')}\n`;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const kind: BodyKind = String(req.headers['content-type']).startsWith('multipart/') ? 'multipart' : 'csv';
    receiveUpload(req, kind, { spoolDir, maxBytes: 1 << 20, maxRows: 100, drainMaxBytes: 1 << 20 }).then(
      async (upload) => {
        await upload.remove();
        res.end(JSON.stringify(Object.fromEntries(upload.fields)));
      },
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(spoolDir, { recursive: true, force: true });
});

async function fields(body: FormData | string): Promise<unknown> {
  const headers: Record<string, string> = typeof body === 'string' ? { 'content-type': 'text/csv' } : {};
  const res = await fetch(base, { method: 'POST', headers, body });
  if (res.status !== 200) throw new Error(await res.text());
  return res.json();
}

describe('multipart text fields', () => {
  it('hands over the fields given before and after the file, each with its values in order', async () => {
    const form = new FormData();
    form.append('callback_url', 'https://hooks.example.edu/a');
    form.append('file', new Blob([CSV], { type: 'text/csv' }), 'students.csv');
    form.append('note', 'nightly');
    form.append('callback_url', 'https://hooks.example.edu/b');
    expect(await fields(form)).toEqual({
      callback_url: ['https://hooks.example.edu/a', 'https://hooks.example.edu/b'],
      note: ['nightly'],
    });
  });

  it('has none for a raw CSV body', async () => {
    expect(await fields(CSV)).toEqual({});
  });
});
