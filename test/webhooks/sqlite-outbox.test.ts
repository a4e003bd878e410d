/**
 * The outbox without Redis: SQLite in JOBS_DIR. The shared contract (several stores on one file stand for
 * several API processes on one JOBS_DIR), the file's mode, and entries that outlive the store that wrote them.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteOutbox } from '../../src/webhooks/sqlite-outbox.ts';
import type { OutboxStore } from '../../src/webhooks/outbox.ts';
import { event, jobId, newEntry, outboxContract, TIMES } from './outbox-contract.ts';

const dirs: string[] = [];
const opened: OutboxStore[] = [];
let current = '';

async function fresh(): Promise<OutboxStore> {
  const dir = await mkdtemp(join(tmpdir(), 'sor-outbox-'));
  dirs.push(dir);
  current = join(dir, 'jobs', 'webhooks.sqlite');
  return open();
}

async function open(): Promise<OutboxStore> {
  const store = new SqliteOutbox(current, TIMES);
  opened.push(store);
  return store;
}

afterAll(async () => {
  for (const store of opened) await store.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

outboxContract('SqliteOutbox', { open, fresh });

describe('SqliteOutbox', () => {
  it('keeps its file private (0600) and its entries after the store that wrote them is closed', async () => {
    const first = await fresh();
    const id = jobId();
    const now = Date.now();
    await first.add(newEntry(id, 'https://a.example/hook', now));
    await first.ready(id, event(now), now);
    await first.close();
    expect((await stat(current)).mode & 0o777).toBe(0o600);
    const reopened = await open();
    expect(await reopened.get(id)).toMatchObject({ state: 'pending', event: { id: `evt_${now}` } });
  });
});
