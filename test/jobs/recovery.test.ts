/**
 * The recovery of orphaned jobs (src/jobs/job-recovery.ts), in one process, on the local store:
 *  - a job of a process of this host that is gone is resumed at once from its upload (no wait for its lease);
 *  - a job of another host is left alone while its lease lasts, and resumed once it ran out;
 *  - an orphaned job whose upload is gone is failed at once ("submit the file again") and announced;
 *  - an upload without a job is deleted once STRAY_UPLOAD_MS old, a younger one kept (its job may be on its way).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunBulkOptions } from '../../src/bulk/pipeline.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { AsyncJobs } from '../../src/jobs/async-jobs.ts';
import { JobFiles } from '../../src/jobs/job-files.ts';
import { newJobId } from '../../src/jobs/job-id.ts';
import type { JobRecord } from '../../src/jobs/job-store.ts';
import { STRAY_UPLOAD_MS } from '../../src/jobs/job-recovery.ts';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { silentLogger, testConfig } from '../queue/helpers.ts';
import { runningJob } from './job-records.ts';

const root = mkdtempSync(join(tmpdir(), 'sor-recovery-'));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout);
}

let n = 0;
function setup() {
  const dir = join(root, `jobs-${++n}`);
  const store = new LocalJobStore({ dir, ttlSeconds: 3600, maxBytes: 1 << 26 });
  closers.push(() => store.close());
  return { dir, store, files: new JobFiles(join(dir, 'uploads')) };
}

/** A job as another process wrote it: queued, with `instance` and `lease`, and (unless `noUpload`) its upload. */
async function orphan(
  ctx: ReturnType<typeof setup>,
  instance: string,
  leaseUntil: number,
  noUpload = false,
): Promise<JobRecord> {
  const record = runningJob(instance, leaseUntil, { students_done: 7, students_total: 10, rows_done: 7 });
  if (!noUpload) {
    const spooled = join(ctx.dir, `spooled-${++n}.csv`);
    writeFileSync(spooled, 'student_id\nS1\n');
    await ctx.files.adopt(spooled, record.id, {});
  }
  await ctx.store.create(record, undefined, 1024);
  return record;
}

function jobs(ctx: ReturnType<typeof setup>, ended: JobRecord[] = []) {
  const ran: string[] = [];
  const service = new AsyncJobs({
    config: testConfig({}),
    logger: silentLogger,
    store: ctx.store,
    jobsDir: ctx.dir,
    runners: createInlineRunner(),
    recoverEveryMs: 100,
    onJobEnded: (r) => {
      ended.push(r);
    },
    runBulk: async (o: RunBulkOptions) => {
      ran.push(String((o.input as { path?: string }).path));
      o.output.end('done\n');
      return { bytes: 1, rows: 1, errorRows: 0, students: 1, chunks: 1, runner: 'inline' };
    },
  });
  closers.push(() => service.close());
  return { service, ran };
}

async function until(probe: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the recovery of orphaned jobs', () => {
  it('resumes at once a job whose process on this host is gone, from its upload', async () => {
    const ctx = setup();
    const record = await orphan(ctx, `${hostname()}:${deadPid()}:abc`, Date.now() + 60_000);
    const { ran } = jobs(ctx);
    await until(async () => (await ctx.store.get(record.id))?.status === 'completed');
    expect(ran).toEqual([ctx.files.path(record.id)]);
  });

  it("leaves another host's job alone while its lease lasts, and resumes it once it ran out", async () => {
    const ctx = setup();
    const live = await orphan(ctx, 'other-host:1:abc', Date.now() + 60_000);
    const lapsed = await orphan(ctx, 'other-host:2:abc', Date.now() - 1);
    jobs(ctx);
    await until(async () => (await ctx.store.get(lapsed.id))?.status === 'completed');
    expect(await ctx.store.get(live.id)).toMatchObject({ status: 'running', instance: 'other-host:1:abc' });
  });

  it('fails at once, and announces, an orphaned job whose upload is gone', async () => {
    const ctx = setup();
    const record = await orphan(ctx, 'other-host:3:abc', Date.now() - 1, true);
    const ended: JobRecord[] = [];
    jobs(ctx, ended);
    await until(() => ended.length === 1);
    expect(ended[0]).toMatchObject({ id: record.id, status: 'failed' });
    expect(ended[0]!.error?.message).toMatch(/stopped before it finished. Submit the file again/);
  });

  it('deletes an upload without a job once it is old enough, and keeps a younger one', async () => {
    const ctx = setup();
    const write = async (ageMs: number) => {
      const spooled = join(ctx.dir, `stray-${++n}.csv`);
      writeFileSync(spooled, 'x');
      const id = newJobId();
      const path = await ctx.files.adopt(spooled, id, {});
      const then = new Date(Date.now() - ageMs);
      utimesSync(path, then, then);
      return id;
    };
    const old = await write(STRAY_UPLOAD_MS + 1000);
    const young = await write(0);
    const { service } = jobs(ctx);
    await service.recover();
    expect((await ctx.files.list()).map((f) => f.id)).toEqual([young]);
    expect(await ctx.files.facts(old)).toBeUndefined();
  });
});
