/**
 * The service logger's line batch (src/logger.ts): lines are held in memory and handed to the asynchronous
 * destination in batches, yet a line logged on a quiet process still reaches the file on its own (the periodic
 * hand-over), a burst keeps every line whole and in order, and the synchronous exits (flushSync, pino's `fatal`)
 * write everything held before they return, even when no asynchronous write can run (libuv's pool busy): an exit
 * right after them loses nothing. The end-to-end exits (SIGTERM, an uncaught exception) are
 * test/api/log-flush.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, open, openSync, readFileSync, rmSync, stat } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceLogger, LOG_BATCH_BYTES } from '../../src/logger.ts';

const dirs: string[] = [];
const fds: number[] = [];
afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function logFile() {
  const dir = mkdtempSync(join(tmpdir(), 'sor-log-batch-'));
  dirs.push(dir);
  const path = join(dir, 'out.log');
  const fd = openSync(path, 'w');
  fds.push(fd);
  const lines = () =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { msg: string; n?: number; level: number });
  return { fd, lines };
}

describe('the service logger batches lines without losing or delaying any for good', () => {
  it('a single line on a quiet logger reaches the file by itself, without a flush or another line', async () => {
    const file = logFile();
    const log = createServiceLogger({ level: 'info' }, file.fd);
    log.logger.info('only line');
    await expect.poll(() => file.lines().map((l) => l.msg), { timeout: 10_000 }).toEqual(['only line']);
  });

  it('a burst of lines larger than many batches: every line whole, in order', async () => {
    const file = logFile();
    const log = createServiceLogger({ level: 'info' }, file.fd);
    const n = Math.ceil((LOG_BATCH_BYTES * 40) / 60);
    for (let i = 0; i < n; i++) log.logger.info({ n: i }, 'burst');
    await log.flush();
    const lines = file.lines();
    expect(lines).toHaveLength(n);
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  it('flushSync writes every line held before it returns', () => {
    const file = logFile();
    const log = createServiceLogger({ level: 'info' }, file.fd);
    for (let i = 0; i < 10; i++) log.logger.info({ n: i }, 'held');
    log.flushSync();
    expect(file.lines().map((l) => l.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("pino's fatal writes the lines held and the fatal line before it returns", () => {
    const file = logFile();
    const log = createServiceLogger({ level: 'info' }, file.fd);
    log.logger.info('before');
    log.logger.fatal('the end');
    expect(file.lines().map((l) => [l.level, l.msg])).toEqual([
      [30, 'before'],
      [60, 'the end'],
    ]);
  });

  it("with every thread of libuv's pool busy, flushSync and fatal still write the lines before they return", async () => {
    const file = logFile();
    const log = createServiceLogger({ level: 'info' }, file.fd);
    const pool = await occupyThreadPool();
    try {
      log.logger.info('held');
      log.flushSync();
      expect(file.lines().map((l) => l.msg)).toEqual(['held']);
      log.logger.info('before the end');
      log.logger.fatal('the end');
      expect(file.lines().map((l) => [l.level, l.msg])).toEqual([
        [30, 'held'],
        [30, 'before the end'],
        [60, 'the end'],
      ]);
    } finally {
      await pool.release();
    }
    // And the asynchronous path still works once the pool is free again.
    log.logger.info('after');
    await log.flush();
    expect(file.lines().map((l) => l.msg)).toEqual(['held', 'before the end', 'the end', 'after']);
  });
});

/**
 * Blocks every thread of libuv's pool (where fs.write runs) in an open() of a FIFO that has no writer yet, and
 * proves it: one more asynchronous fs call does not complete while they wait. `release` opens the FIFO for writing,
 * which lets every open() return, and closes it all.
 */
async function occupyThreadPool(): Promise<{ release: () => Promise<void> }> {
  const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const dir = mkdtempSync(join(tmpdir(), 'sor-log-pool-'));
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const readers = Array.from(
    { length: size },
    () => new Promise<number>((resolve, reject) => open(fifo, 'r', (err, fd) => (err ? reject(err) : resolve(fd)))),
  );
  let probed = false;
  const probe = new Promise<void>((resolve) =>
    stat(dir, () => {
      probed = true;
      resolve();
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(probed, 'every thread of the pool is blocked').toBe(false);
  return {
    release: async () => {
      const writer = openSync(fifo, 'w');
      for (const fd of await Promise.all(readers)) closeSync(fd);
      closeSync(writer);
      await probe;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
