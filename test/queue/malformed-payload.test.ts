import { afterAll, describe, expect, it } from 'vitest';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { isMalformed } from '../../src/queue/chunk-worker.ts';

/**
 * The queue worker fails a chunk at once (no retries) when its payload is bad. It must tell that by the error's
 * class, not its text, and the class must survive the piscina thread's structured clone.
 */
const pool = createPoolRunner({ threads: 1 });
afterAll(() => pool.close());

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('a malformed chunk payload', () => {
  const bad = [
    'not json',
    '{"v":1,"f":"csv","h":["a"],"s":[{"l":[],"c":[]}]}',
    // A header no pipeline sends (it checks the header first), with a well-formed student.
    '{"v":1,"f":"csv","h":["a"],"s":[{"l":[2],"c":["x"]}]}',
    '{"v":2}',
    'null',
  ];

  it.each(bad)('is recognised as malformed inline and across a worker thread: %s', async (payload) => {
    for (const runner of [createInlineRunner(), pool]) {
      const err = await rejection(runner.run({ index: 0, payload }));
      expect(isMalformed(err)).toBe(true);
    }
  });

  it('a machinery failure, whatever its message says, is not', () => {
    expect(isMalformed(new Error('malformed chunk payload'))).toBe(false);
    expect(isMalformed(new TypeError('x'))).toBe(false);
    expect(isMalformed('malformed chunk payload')).toBe(false);
  });
});
