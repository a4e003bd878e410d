/**
 * What every outbox store (SQLite without Redis, Redis) must do, as one suite both store tests run: entries added
 * once, the waiting → pending step taken once, due entries claimed by exactly one of several claimers, a settle
 * that holds only with its claim, claims handed back, waiting entries paged for the sweep.
 */
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/job-store.ts';
import {
  INSTANCE_STALE_MS,
  type DeliveryAttempt,
  type NewEntry,
  type OutboxEvent,
  type OutboxStore,
} from '../../src/webhooks/outbox.ts';

export const TIMES = { retentionMs: 3_600_000, windowMs: 86_400_000 };

let counter = 0;
/** A fresh job id that sorts after every earlier one (ids sort by creation time). */
export function jobId(): string {
  counter++;
  return `0190a000-0000-8000-8000-${String(Date.now() % 1e6).padStart(6, '0')}${String(counter).padStart(6, '0')}`;
}

export function snapshot(id: string): JobRecord {
  return {
    id,
    status: 'queued',
    format: 'csv',
    created_at: new Date(0).toISOString(),
    started_at: null,
    finished_at: null,
    students_done: 0,
    students_total: 3,
    rows_done: 0,
    error_rows: 0,
    error: null,
    fingerprint: 'f'.repeat(64),
    lease_until: 0,
    owner: '',
  };
}

/** A new entry of job `id`, written by the instance `i-test`. */
export function newEntry(id: string, url: string, createdAt: number): NewEntry {
  return { jobId: id, url, snapshot: snapshot(id), createdAt, instance: 'i-test' };
}

export function event(now: number): OutboxEvent {
  return { id: `evt_${now}`, type: 'job.completed', body: '{"id":"evt","type":"job.completed"}', endedAt: now };
}

const attempt = (status: number | null): DeliveryAttempt => ({
  at: new Date().toISOString(),
  event: 'job.completed',
  status,
  error: status === 200 ? null : 'answered 500, not a 2xx',
});

/** `open()` gives a store on the same data each call (another process's view); `fresh()` an empty one. */
export function outboxContract(name: string, setup: { open(): Promise<OutboxStore>; fresh(): Promise<OutboxStore> }) {
  describe(`${name}: the outbox contract`, () => {
    it('adds an entry once and keeps the first URL of a repeated submission', async () => {
      const store = await setup.fresh();
      const id = jobId();
      const now = Date.now();
      expect(await store.add(newEntry(id, 'https://a.example/hook', now))).toBe(true);
      expect(await store.add(newEntry(id, 'https://b.example/hook', now + 1))).toBe(false);
      const entry = await store.get(id);
      expect(entry).toMatchObject({
        jobId: id,
        url: 'https://a.example/hook',
        state: 'waiting',
        event: null,
        instance: 'i-test',
      });
      expect(entry?.snapshot.students_total).toBe(3);
    });

    it('makes a waiting entry pending once; says when there is none', async () => {
      const store = await setup.fresh();
      const id = jobId();
      const now = Date.now();
      expect(await store.ready(id, event(now), now)).toBe('missing');
      await store.add(newEntry(id, 'https://a.example/hook', now));
      expect(await store.ready(id, event(now), now)).toBe('ready');
      expect(await store.ready(id, { ...event(now), id: 'evt_other' }, now)).toBe('already');
      expect((await store.get(id))?.event?.id).toBe(`evt_${now}`);
    });

    it('lets exactly one of several claimers take each due entry, and not before it is due', async () => {
      const stores = [await setup.fresh(), await setup.open(), await setup.open()];
      const now = Date.now();
      const ids = Array.from({ length: 6 }, () => jobId());
      for (const id of ids) {
        await stores[0]!.add(newEntry(id, 'https://a.example/hook', now));
        await stores[0]!.ready(id, event(now), now);
      }
      const late = jobId();
      await stores[0]!.add(newEntry(late, 'https://a.example/hook', now));
      await stores[0]!.ready(late, event(now), now + 60_000);
      const claims = (await Promise.all(stores.map((s) => s.claimDue(now, 30_000, 10)))).flat();
      const claimed = claims.map((c) => c.entry.jobId).filter((id) => ids.includes(id) || id === late);
      expect(claimed.sort()).toEqual([...ids].sort());
      // Claimed entries are in flight and not due again until the lease runs out.
      expect((await stores[1]!.get(ids[0]!))?.inFlight).toBe(true);
      const again = (await stores[2]!.claimDue(now + 1000, 30_000, 10)).map((c) => c.entry.jobId);
      expect(again.filter((id) => ids.includes(id))).toEqual([]);
      const afterLease = (await stores[2]!.claimDue(now + 31_000, 30_000, 10)).map((c) => c.entry.jobId);
      expect(afterLease.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
    });

    it('settles only with the claim that holds, appending the attempt', async () => {
      const store = await setup.fresh();
      const id = jobId();
      const now = Date.now();
      await store.add(newEntry(id, 'https://a.example/hook', now));
      await store.ready(id, event(now), now);
      const [first] = (await store.claimDue(now, 1000, 10)).filter((c) => c.entry.jobId === id);
      const [second] = (await store.claimDue(now + 2000, 1000, 10)).filter((c) => c.entry.jobId === id);
      expect(first && second).toBeTruthy();
      // The first claim ran out and was taken again: its late outcome is not written.
      expect(await store.settle(first!, attempt(500), { state: 'pending', nextAttemptAt: now + 5000 }, now)).toBe(
        false,
      );
      expect(await store.settle(second!, attempt(500), { state: 'pending', nextAttemptAt: now + 5000 }, now)).toBe(
        true,
      );
      let entry = await store.get(id);
      expect(entry).toMatchObject({ state: 'pending', nextAttemptAt: now + 5000, inFlight: false });
      expect(entry?.attempts.map((a) => a.status)).toEqual([500]);
      const [third] = (await store.claimDue(now + 5000, 1000, 10)).filter((c) => c.entry.jobId === id);
      expect(third?.entry.attempts).toHaveLength(1);
      expect(await store.settle(third!, attempt(200), { state: 'delivered', nextAttemptAt: null }, now)).toBe(true);
      entry = await store.get(id);
      expect(entry).toMatchObject({ state: 'delivered', nextAttemptAt: null });
      expect(entry?.attempts.map((a) => a.status)).toEqual([500, 200]);
      expect((await store.claimDue(now + 100_000, 1000, 10)).map((c) => c.entry.jobId)).not.toContain(id);
    });

    it('hands a claim back, due at once', async () => {
      const store = await setup.fresh();
      const id = jobId();
      const now = Date.now();
      await store.add(newEntry(id, 'https://a.example/hook', now));
      await store.ready(id, event(now), now);
      const [claim] = (await store.claimDue(now, 60_000, 10)).filter((c) => c.entry.jobId === id);
      await store.release(claim!, now + 10);
      const again = await store.claimDue(now + 10, 60_000, 10);
      expect(again.map((c) => c.entry.jobId)).toContain(id);
    });

    it('pages the waiting entries in submission order', async () => {
      const store = await setup.fresh();
      const now = Date.now();
      const ids = Array.from({ length: 5 }, () => jobId());
      for (const id of ids) await store.add(newEntry(id, 'https://a.example/hook', now));
      await store.ready(ids[1]!, event(now), now);
      const first = await store.waiting(undefined, 2);
      const ours = async (after: string | undefined) =>
        (await store.waiting(after, 100)).map((e) => e.jobId).filter((id) => ids.includes(id));
      expect(first).toHaveLength(2);
      expect(await ours(undefined)).toEqual([ids[0], ids[2], ids[3], ids[4]]);
      expect(await ours(ids[2])).toEqual([ids[3], ids[4]]);
      const many = await store.getMany([ids[0]!, ids[1]!, 'no-such-job']);
      expect([...many.keys()].sort()).toEqual([ids[0], ids[1]].sort());
    });

    it('tells a live instance (beating) from a gone one (stale, or forgotten)', async () => {
      const [mine, theirs] = [await setup.fresh(), await setup.open()];
      const now = Date.now();
      const instance = `i-${now}`;
      expect(await theirs.alive(instance, now)).toBe(false);
      await mine.beat(instance, now);
      expect(await theirs.alive(instance, now)).toBe(true);
      await mine.forget(instance);
      expect(await theirs.alive(instance, now)).toBe(false);
      await mine.beat(instance, now);
      if (mine.kind === 'sqlite') expect(await theirs.alive(instance, now + INSTANCE_STALE_MS + 1)).toBe(false);
    });
  });
}
