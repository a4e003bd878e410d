/**
 * A full spool disk: when writing an upload to SPOOL_DIR fails with ENOSPC or EDQUOT, the
 * bulk endpoint and the job endpoint answer 507 `insufficient_storage` (not 500/503 internal_error), the request
 * log's line carries the real cause (the errno), and no spool file is left. The failure is injected into the
 * spool file's writes (src/jobs/spool.ts createSpoolFile), the one place every upload's bytes go through.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/api/app.ts';
import type * as SpoolModule from '../../src/jobs/spool.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { serializeError } from '../../src/redact.ts';
import { testConfig } from '../queue/helpers.ts';
import { makeCsv } from '../queue/csv-gen.ts';

/** The errno code the next spool writes fail with (undefined: writes succeed). */
const fault: { code: 'ENOSPC' | 'EDQUOT' | undefined } = { code: undefined };

vi.mock('../../src/jobs/spool.ts', async (importOriginal) => {
  const real = await importOriginal<typeof SpoolModule>();
  return {
    ...real,
    async createSpoolFile(dir: string) {
      const file = await real.createSpoolFile(dir);
      const write = file.handle.write.bind(file.handle) as (...args: unknown[]) => Promise<unknown>;
      (file.handle as unknown as { write: (...args: unknown[]) => Promise<unknown> }).write = (...args) => {
        if (fault.code === undefined) return write(...args);
        const err = Object.assign(new Error(`${fault.code}: no space left on device, write`), {
          code: fault.code,
          errno: fault.code === 'ENOSPC' ? -28 : -122,
          syscall: 'write',
        });
        return Promise.reject(err);
      };
      return file;
    },
  };
});

const root = mkdtempSync(join(tmpdir(), 'sor-disk-full-'));
const spoolDir = join(root, 'spool');
const lines: string[] = [];
let runtime: Runtime;
let server: Server;
let base: string;

beforeAll(async () => {
  const config = testConfig({ SPOOL_DIR: spoolDir, JOBS_DIR: join(root, 'results') });
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  const logger = pino({ level: 'info', serializers: { err: serializeError } }, sink);
  runtime = await createRuntime(config, logger);
  const app = createApp(
    { config, logger, runners: runtime.runners, readiness: runtime.readiness },
    { routers: runtime.routers, openApiPaths: runtime.openApiPaths },
  );
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await runtime?.close();
  rmSync(root, { recursive: true, force: true });
});

const csv = makeCsv(50, 7);

async function post(path: string, code: 'ENOSPC' | 'EDQUOT') {
  fault.code = code;
  try {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: csv });
    return { status: res.status, body: (await res.json()) as { code: string; message: string } };
  } finally {
    fault.code = undefined;
  }
}

/** The request log's line for the last request to `path`, once written. */
async function logLineOf(path: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const line = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => JSON.stringify(l).includes(path) && (l.res as { statusCode?: number } | undefined)?.statusCode)
      .pop();
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no log line for ${path}`);
}

describe('a full spool disk', () => {
  for (const [path, code] of [
    ['/v1/calculate/bulk', 'ENOSPC'],
    ['/v1/jobs', 'EDQUOT'],
  ] as const) {
    it(`answers ${path} 507 insufficient_storage (${code}), logs the cause and leaves no spool file`, async () => {
      lines.length = 0;
      const { status, body } = await post(path, code);
      expect(status).toBe(507);
      expect(body.code).toBe('insufficient_storage');
      expect(body.message).toMatch(/no disk space left/);
      const line = await logLineOf(path);
      expect((line.res as { statusCode: number }).statusCode).toBe(507);
      expect(JSON.stringify(line.err)).toContain(code); // the errno, not "[object Object]"
      expect(readdirSync(spoolDir)).toEqual([]);

      // The disk has room again: the same request goes through.
      const ok = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: csv });
      expect([200, 202]).toContain(ok.status);
      await ok.arrayBuffer();
    });
  }
});
