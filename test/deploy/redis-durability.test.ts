/**
 * The Redis of docker-compose.yml keeps what the docs say it keeps across a restart: a redis-server of this test,
 * started with the persistence arguments read from docker-compose.yml (AOF, fsync every second), is killed
 * with SIGKILL (a crash, no clean shutdown) and started again on the same port and directory. A completed async
 * job and its result, and a chunk waiting in the queue, are still there; the service (in-process, as server.ts
 * assembles it) reconnects and answers the job as it did before. Expected figures come from examples.json.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ChunkSigner } from '../../src/queue/chunk-signing.ts';
import { QUEUE_NAME } from '../../src/queue/settings.ts';
import { EXAMPLES, examplesCsv, expectRowsMatchExample } from '../bulk/examples.ts';
import { parseOutput } from '../bulk/helpers.ts';
import { startService, testConfig } from '../queue/helpers.ts';
import { REPO_ROOT, TEST_SIGNING_KEY } from '../support/processes.ts';
import { type OwnedRedis, startRedisBinary, uniquePrefix } from '../support/redis.ts';

const dir = mkdtempSync(join(tmpdir(), 'sor-aof-'));
let redis: OwnedRedis | undefined;

afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** docker-compose.yml's redis command without the program name and its --dir (the test's own directory). */
function composeRedisArgs(): string[] {
  const compose = parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: { redis: { command: string[] } };
  };
  const args = compose.services.redis.command.slice(1);
  const at = args.indexOf('--dir');
  if (at >= 0) args.splice(at, 2);
  return [...args, '--dir', dir];
}

async function startOwnRedis(port?: number): Promise<OwnedRedis> {
  const r = await startRedisBinary(port, { args: composeRedisArgs() });
  if (!r) throw new Error('this test needs a redis-server binary (apt-get install redis-server)');
  return r;
}

async function eventually<T>(fn: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function expectExampleFigures(csv: string): void {
  const rows = parseOutput(csv);
  for (const ex of EXAMPLES) {
    expectRowsMatchExample(
      rows.filter((r) => r.student_id === ex.id),
      ex,
    );
  }
}

describe("docker-compose.yml's Redis across a crash", () => {
  it('keeps a completed job with its result and a waiting chunk', async () => {
    redis = await startOwnRedis();
    const prefix = uniquePrefix('durable');
    const service = await startService(
      // Small files run inline: the job completes without a worker.
      testConfig({ REDIS_URL: redis.url, REDIS_PREFIX: prefix, BULK_THREADS: '1' }),
    );
    const queue = new Queue(QUEUE_NAME, { connection: { url: redis.url }, prefix });
    queue.on('error', () => undefined);
    try {
      const submitted = await fetch(`${service.base}/v1/jobs`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv' },
        body: examplesCsv(),
      });
      expect(submitted.status).toBe(202);
      const id = ((await submitted.json()) as { id: string }).id;
      await eventually(async () => {
        const s = (await (await fetch(`${service.base}/v1/jobs/${id}`)).json()) as { status: string };
        return s.status === 'completed' ? true : undefined;
      }, 'the job to complete');
      const before = await (await fetch(`${service.base}/v1/jobs/${id}/result`)).text();
      expectExampleFigures(before);
      const chunkId = 'rfeedfacefeedfacefeedface.c0';
      await queue.add('chunk', new ChunkSigner(TEST_SIGNING_KEY).signPayload(chunkId, '{"v":1}'), { jobId: chunkId });

      // appendfsync everysec: what was written more than a second ago is on disk. Then a crash.
      await new Promise((r) => setTimeout(r, 2000));
      const port = redis.port;
      await redis.stop();
      redis = await startOwnRedis(port);

      const status = await eventually(async () => {
        const res = await fetch(`${service.base}/v1/jobs/${id}`);
        return res.status === 200 ? ((await res.json()) as { status: string }) : undefined;
      }, 'the service to read the job again');
      expect(status.status).toBe('completed');
      const after = await fetch(`${service.base}/v1/jobs/${id}/result`);
      expect(after.status).toBe(200);
      expect(await after.text()).toBe(before);
      expect((await queue.getJob(chunkId))?.id).toBe(chunkId);
      expect(await queue.getWaitingCount()).toBe(1);
    } finally {
      await queue.close().catch(() => undefined);
      await service.close();
    }
  });
});
