/**
 * A body refused before it ends (413) is still read, up to REFUSED_BODY_DRAIN_BYTES, so that a client that sends
 * everything before reading — Python urllib and requests, Java, .NET, PowerShell — receives the answer instead of
 * a broken pipe. Over the bound the connection is cut.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

/** Writes the whole request before reading anything, then returns everything the server sent. */
function halfDuplexPost(base: string, bodyBytes: number, extraHeaders = ''): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(received).toString('latin1')));
    socket.pause();
    const head =
      `POST /v1/calculate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${bodyBytes}\r\n${extraHeaders}\r\n`;
    socket.write(head);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let left = bodyBytes;
    const pump = (): void => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        if (!socket.write(part)) {
          // The socket is paused for reading: the server's answer waits in the kernel until the body is sent.
          socket.once('drain', pump);
          return;
        }
      }
      socket.resume();
    };
    pump();
  });
}

describe('a refused JSON body', () => {
  it('a client that writes 6 MB before reading receives the 413 envelope', async () => {
    const answer = await halfDuplexPost(srv.base, 6 * 1024 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"validation_error"');
  });

  it('python3 urllib posting 6 MB reads the 413, not a broken pipe', async () => {
    const script = [
      'import sys, urllib.request, urllib.error',
      "req = urllib.request.Request(sys.argv[1] + '/v1/calculate', data=b' ' * (6 * 1024 * 1024),",
      "    headers={'Content-Type': 'application/json'})",
      'try:',
      '    urllib.request.urlopen(req)',
      '    print("no error")',
      'except urllib.error.HTTPError as e:',
      '    print(e.code, e.read().decode())',
    ].join('\n');
    // Asynchronous: the server answers from this process's event loop.
    const run = await promisify(execFile)('python3', ['-c', script, srv.base], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^413 \{"code":"validation_error"/);
  });
});
