/**
 * What a queue worker SIGKILLed mid-file costs (bench:queue --kill-rounds): the same file through two fresh
 * worker processes twice per round, once undisturbed and once with one of them SIGKILLed when a quarter of the
 * students are written. The killed worker's chunks are recovered through the queue (its locks expire, a live
 * worker's stalled check gives them to the survivor: QUEUE_LOCK_DURATION_MS and QUEUE_STALLED_INTERVAL_MS,
 * src/queue/settings.ts), and the survivor computes the rest alone. Prints both times, the difference (the cost)
 * and checks that both outputs are the same bytes and that no chunk fell back to the local pool.
 */
import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import { runBulk } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { loadConfig } from '../../src/config.ts';
import { createQueueRunner } from '../../src/queue/queue-runner.ts';
import { randomFilePieces } from './random-file.ts';
import { uniquePrefix } from './redis.ts';
import { killWorkers, startWorker } from './workers.ts';

export interface KillOptions {
  redisUrl: string;
  signingKey: string;
  students: number;
  chunk: number;
  rounds: number;
  /** The local pool the queue runner falls back to (counted: a fallback means a chunk was not recovered). */
  pool: ChunkRunner;
  logger: Logger;
  /** Each new prefix is reported, for the caller to delete its keys. */
  onPrefix: (prefix: string) => void;
}

interface KillRun {
  seconds: number;
  sha256: string;
  fallbacks: number;
}

async function once(o: KillOptions, kill: boolean): Promise<KillRun> {
  const prefix = uniquePrefix(kill ? 'bench-kill' : 'bench-nokill');
  o.onPrefix(prefix);
  const env = { REDIS_URL: o.redisUrl, BULLMQ_PREFIX: prefix, QUEUE_SIGNING_KEY: o.signingKey };
  const workerEnv = { ...env, QUEUE_WORKER_THREADS: '0', BULK_THREADS: '1' };
  const pids = [await startWorker(workerEnv), await startWorker(workerEnv)];
  let fallbacks = 0;
  const fallback: ChunkRunner = {
    kind: 'pool',
    run: (t) => {
      fallbacks++;
      return o.pool.run(t);
    },
    close: async () => undefined,
  };
  const config = loadConfig({ ...env, BULK_CHUNK_STUDENTS: String(o.chunk), BULK_SYNC_MAX_ROWS: '0' });
  const runner = createQueueRunner({ config, logger: o.logger, fallback });
  const file = (students: number) => Readable.from(randomFilePieces({ students, seed: 42, invalidShare: 0.02 }));
  const sink = (hash?: ReturnType<typeof createHash>) =>
    new Writable({
      write(chunk: Buffer, _e, cb) {
        hash?.update(chunk);
        cb();
      },
    });
  try {
    // Both workers warmed up (JIT) before the clock starts.
    await runBulk({ input: file(4 * o.chunk), output: sink(), format: 'csv', runner, config });
    const hash = createHash('sha256');
    let killed = false;
    const started = performance.now();
    await runBulk({
      input: file(o.students),
      output: sink(hash),
      format: 'csv',
      runner,
      config,
      onProgress: (p) => {
        if (kill && !killed && p.students >= o.students / 4) {
          killed = true;
          process.kill(pids[0]!, 'SIGKILL');
        }
      },
    });
    return { seconds: (performance.now() - started) / 1000, sha256: hash.digest('hex'), fallbacks };
  } finally {
    await runner.close();
    await killWorkers();
  }
}

/** Alternating rounds: undisturbed, then with one worker SIGKILLed; prints each and the median cost. */
export async function killCost(o: KillOptions): Promise<void> {
  const tuning = loadConfig({ ...process.env, REDIS_URL: undefined });
  console.log(
    `\nA worker SIGKILLed mid-file: ${o.students.toLocaleString('en-US')} students, 2 fresh worker processes ` +
      `(computing on their own thread), one killed when a quarter of the students are written; QUEUE_LOCK_DURATION_MS ` +
      `${tuning.QUEUE_LOCK_DURATION_MS}, QUEUE_STALLED_INTERVAL_MS ${tuning.QUEUE_STALLED_INTERVAL_MS}`,
  );
  const costs: number[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    const calm = await once(o, false);
    const hit = await once(o, true);
    const same = calm.sha256 === hit.sha256 ? 'identical output' : 'OUTPUT DIFFERS';
    const fell = hit.fallbacks + calm.fallbacks === 0 ? 'no chunk ran locally' : `${hit.fallbacks} chunks ran locally!`;
    costs.push(hit.seconds - calm.seconds);
    console.log(
      `  round ${round}: undisturbed ${calm.seconds.toFixed(2)} s, one worker killed ${hit.seconds.toFixed(2)} s: ` +
        `cost ${(hit.seconds - calm.seconds).toFixed(2)} s (${same}, ${fell})`,
    );
  }
  const median = [...costs].sort((a, b) => a - b)[Math.floor(costs.length / 2)]!;
  console.log(`  median cost of the kill: ${median.toFixed(2)} s (target ≤ 5 s on a 50,000-student file)`);
}
