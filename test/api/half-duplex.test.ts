/**
 * Clients that send their whole body before reading anything (Python requests/urllib, Java, .NET, PowerShell):
 * with the upload spooled and checked before the answer they get every row back. Two real clients at 100k
 * students: a raw TCP socket that writes everything, then reads; and python3's urllib.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RuntimeServer, startRuntimeServer } from './helpers.ts';
import { bulkConfig, generatedCsv } from '../bulk/helpers.ts';

const STUDENTS = 100_000;
const dir = mkdtempSync(join(tmpdir(), 'sor-half-duplex-'));
const config = bulkConfig({ SPOOL_DIR: join(dir, 'spool') });
let service: RuntimeServer;
let port: number;
const { csv, rows } = generatedCsv(STUDENTS);
const body = Buffer.from(csv);
const file = join(dir, 'students.csv');

beforeAll(async () => {
  writeFileSync(file, body);
  service = await startRuntimeServer(config);
  port = service.port;
});

afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Decodes a chunked HTTP/1.1 response incrementally, counting the body's line feeds. */
class ChunkedLineCounter {
  lines = 0;
  done = false;
  private pending = Buffer.alloc(0);
  private left = -1; // bytes left in the current chunk; -1: reading a size line

  push(data: Buffer): void {
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, data]) : data;
    for (;;) {
      if (this.left === -1) {
        const eol = buf.indexOf('\r\n');
        if (eol === -1) break;
        const size = Number.parseInt(buf.subarray(0, eol).toString('latin1'), 16);
        buf = buf.subarray(eol + 2);
        if (size === 0) {
          this.done = true;
          break;
        }
        this.left = size;
      }
      const take = Math.min(this.left, buf.length);
      const piece = buf.subarray(0, take);
      for (let i = piece.indexOf(10); i !== -1; i = piece.indexOf(10, i + 1)) this.lines++;
      this.left -= take;
      buf = buf.subarray(take);
      if (this.left > 0) break;
      if (buf.length < 2) break;
      buf = buf.subarray(2); // CRLF after the chunk
      this.left = -1;
    }
    this.pending = Buffer.from(buf);
  }
}

describe(`half-duplex clients get every row of a ${STUDENTS.toLocaleString('en-US')}-student file`, () => {
  it('a raw TCP socket that writes the whole body before reading anything', async () => {
    const socket = connect(port, '127.0.0.1');
    socket.pause(); // nothing is read until the whole body has been written
    const head =
      `POST /v1/calculate/bulk HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.write(head);
      socket.write(body, (err) => (err ? reject(err) : resolve()));
    });
    const counter = new ChunkedLineCounter();
    let header = '';
    let headerDone = false;
    await new Promise<void>((resolve, reject) => {
      socket.on('data', (data: Buffer) => {
        if (!headerDone) {
          const text = Buffer.concat([Buffer.from(header, 'latin1'), data]);
          const end = text.indexOf('\r\n\r\n');
          if (end === -1) {
            header = text.toString('latin1');
            return;
          }
          header = text.subarray(0, end).toString('latin1');
          headerDone = true;
          counter.push(text.subarray(end + 4));
        } else {
          counter.push(data);
        }
      });
      socket.on('end', () => resolve());
      socket.on('error', reject);
      socket.resume();
    });
    expect(header.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(header).toMatch(/transfer-encoding: chunked/i);
    expect(counter.done).toBe(true);
    expect(counter.lines).toBe(rows + 1); // the header line and one line per input row
  });

  it("python3's urllib posting the file", async () => {
    const python = spawnSync('python3', ['--version']);
    expect(python.status, 'python3 is needed for this test').toBe(0);
    const script = [
      'import sys, os, urllib.request',
      'path, url = sys.argv[1], sys.argv[2]',
      "req = urllib.request.Request(url, data=open(path, 'rb'), method='POST',",
      "    headers={'Content-Type': 'text/csv', 'Content-Length': str(os.path.getsize(path))})",
      'lines = 0',
      'with urllib.request.urlopen(req, timeout=600) as res:',
      '    status = res.status',
      '    while True:',
      '        block = res.read(1 << 20)',
      '        if not block: break',
      "        lines += block.count(b'\\n')",
      'print(status, lines)',
    ].join('\n');
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('python3', ['-c', script, file, `http://127.0.0.1:${port}/v1/calculate/bulk`]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(out.stderr).toBe('');
    expect([out.code, out.stdout.trim()]).toEqual([0, `200 ${rows + 1}`]);
  });
});
