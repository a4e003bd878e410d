/**
 * The service logger's line batch (src/logger.ts): lines are held in memory and handed to the asynchronous
 * destination in batches, yet a line logged on a quiet process still reaches the file on its own (the periodic
 * hand-over), a burst keeps every line whole and in order, and the synchronous exits (flushSync, pino's `fatal`)
 * write everything held before they return. The end-to-end exits (SIGTERM, an uncaught exception) are
 * test/api/log-flush.test.ts.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
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
});
