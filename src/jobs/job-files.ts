/**
 * The uploads of unfinished async jobs, kept until the job ends so that a job whose process stops can run again
 * from them (src/jobs/job-recovery.ts):
 *
 *   <JOBS_DIR>/uploads/             mode 0700
 *     <job id>.csv                  the upload as received (mode 0600), moved here from SPOOL_DIR at submission
 *     <job id>.json                 what the run needs besides the record: the students whose rows are not
 *                                   contiguous (the upload's prescan) and how the file is written (its dialect)
 *
 * Outside SPOOL_DIR, whose sweep deletes what a process that stopped left behind: these files outlive their
 * process on purpose. They are deleted when the job ends (completed, failed, cancelled), and by the recovery of
 * a job that no longer needs them (finished, expired, or never created: an upload moved here by a process that
 * stopped before it created the job).
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { copyFile, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CsvDialect } from '../bulk/csv-dialect.ts';

/** What a job's run needs of its upload besides the bytes. */
export interface UploadFacts {
  nonContiguous?: ReadonlyMap<string, number>;
  dialect?: CsvDialect;
}

const UPLOAD = /^([0-9a-f]{52})\.csv$/;

export class JobFiles {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }

  path(id: string): string {
    return join(this.dir, `${id}.csv`);
  }

  #factsPath(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  /**
   * Moves a received upload here as job `id`'s, with its facts (written first: an upload here always has them).
   * A rename when SPOOL_DIR is on the same filesystem, else a copy.
   */
  async adopt(from: string, id: string, facts: UploadFacts): Promise<string> {
    const json = JSON.stringify({
      nonContiguous: facts.nonContiguous === undefined ? undefined : [...facts.nonContiguous],
      dialect: facts.dialect,
    });
    const tmp = `${this.#factsPath(id)}.tmp`;
    await writeFile(tmp, json, { mode: 0o600 });
    await rename(tmp, this.#factsPath(id));
    const to = this.path(id);
    try {
      await rename(from, to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await copyFile(from, to);
      await rm(from, { force: true });
    }
    return to;
  }

  /** The facts of job `id`'s upload; undefined when its files are gone. */
  async facts(id: string): Promise<UploadFacts | undefined> {
    try {
      await stat(this.path(id));
      const raw = JSON.parse(await readFile(this.#factsPath(id), 'utf8')) as {
        nonContiguous?: [string, number][];
        dialect?: CsvDialect;
      };
      return {
        ...(raw.nonContiguous === undefined ? {} : { nonContiguous: new Map(raw.nonContiguous) }),
        ...(raw.dialect === undefined ? {} : { dialect: raw.dialect }),
      };
    } catch {
      return undefined;
    }
  }

  /** The jobs whose uploads are here, with the time each was last changed (epoch ms). */
  async list(): Promise<{ id: string; mtimeMs: number }[]> {
    const out: { id: string; mtimeMs: number }[] = [];
    for (const name of await readdir(this.dir)) {
      const id = UPLOAD.exec(name)?.[1];
      if (id === undefined) continue;
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (info !== undefined) out.push({ id, mtimeMs: info.mtimeMs });
    }
    return out;
  }

  /** Deletes facts files without their upload (a process stopped while moving one here), once `minAgeMs` old. */
  async sweepStrays(minAgeMs: number, now = Date.now()): Promise<void> {
    const names = new Set(await readdir(this.dir));
    for (const name of names) {
      const id = /^([0-9a-f]{52})\.json(\.tmp)?$/.exec(name)?.[1];
      if (id === undefined || names.has(`${id}.csv`)) continue;
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (info !== undefined && now - info.mtimeMs >= minAgeMs) await rm(join(this.dir, name), { force: true });
    }
  }

  async remove(id: string): Promise<void> {
    await rm(this.path(id), { force: true });
    await rm(this.#factsPath(id), { force: true });
  }
}
