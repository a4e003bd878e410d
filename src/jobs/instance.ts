/**
 * Which process runs a job: `<host>:<pid>:<random>`, written on the job (JobRecord.instance) by the process that
 * submitted or claimed it. A process that finds a job of an instance on its own host can tell at once whether
 * that process is gone (its pid is not running, or is its own pid under another instance: a restarted container
 * is pid 1 again) and resume the job without waiting for its lease to run out. An instance of another host is
 * trusted until its lease runs out.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** This process's instance. */
export const INSTANCE = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;

/** True while the process `pid` runs (on this host, in this pid namespace). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by someone else
  }
}

/** True when `instance` is known to be gone: a process of this host that no longer runs. */
export function instanceGone(instance: string, self = INSTANCE): boolean {
  const [host, pid, random] = instance.split(':');
  const [myHost, myPid] = self.split(':');
  if (host === undefined || pid === undefined || random === undefined || host !== myHost) return false;
  if (pid === myPid) return instance !== self;
  return !processAlive(Number(pid));
}
