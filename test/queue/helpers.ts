/** Shared helpers of the queue tests: configs, a silent logger and a transparent local runner. */
import pino from 'pino';
import type { Logger } from 'pino';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../../src/bulk/runner.ts';
import { loadConfig } from '../../src/config.ts';
import type { Config } from '../../src/config.ts';

export const silentLogger: Logger = pino({ level: 'silent' });

export function testConfig(env: Record<string, string>): Config {
  return loadConfig({ LOG_LEVEL: 'silent', ...env });
}

/**
 * A runner that transforms a payload in a fixed, checkable way (every line reversed), counting its calls. It
 * tests the transport (queue, fallback, order), not the calculation.
 */
export function reversingRunner(kind: ChunkRunner['kind'] = 'pool'): ChunkRunner & { calls: number[] } {
  const calls: number[] = [];
  return {
    kind,
    calls,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      calls.push(task.index);
      if (task.payload.startsWith('!malformed')) throw new Error('malformed chunk payload');
      const lines = task.payload.split('\n');
      const text = lines.map((l) => [...l].reverse().join('') + '\n').join('');
      return { index: task.index, text, rows: lines.length, errorRows: 0, students: lines.length };
    },
    async close() {},
  };
}

export function expectedReversed(payload: string): string {
  return payload
    .split('\n')
    .map((l) => [...l].reverse().join('') + '\n')
    .join('');
}
