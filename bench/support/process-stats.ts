/**
 * What a benchmark reads of a child process from Linux's /proc while it runs: its peak resident set (VmHWM, polled,
 * because it is gone once the process exits) and the CPU time of its threads, grouped by what the thread is — the
 * main thread, worker threads (piscina's pool), V8's helper threads (concurrent compilation and garbage collection)
 * and libuv's thread pool — so a run says where the server's CPU went, not only how long it took.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds by thread group (user + system). */
export interface ThreadCpu {
  main: number;
  workers: number;
  v8: number;
  other: number;
  total: number;
}

/** Node's thread names (/proc/PID/task/TID/comm) → group. */
function groupOf(name: string): keyof Omit<ThreadCpu, 'total'> {
  if (name === 'MainThread' || name === 'node') return 'main';
  if (name === 'WorkerThread') return 'workers';
  if (name.startsWith('V8') || name === 'DelayedTaskSche') return 'v8';
  return 'other';
}

const TICKS_PER_SECOND = 100;

/** The CPU seconds each group of `pid`'s threads has used so far (threads that ended are not counted). */
export function threadCpu(pid: number): ThreadCpu {
  const out: ThreadCpu = { main: 0, workers: 0, v8: 0, other: 0, total: 0 };
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime
      out[groupOf(name)] += seconds;
      out.total += seconds;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** b − a, group by group. */
export function cpuSince(a: ThreadCpu, b: ThreadCpu): ThreadCpu {
  return {
    main: b.main - a.main,
    workers: b.workers - a.workers,
    v8: b.v8 - a.v8,
    other: b.other - a.other,
    total: b.total - a.total,
  };
}

/** "12.3 s (main 2.1, pool 8.0, V8 helpers 2.0)". */
export function cpuText(cpu: ThreadCpu): string {
  const f = (x: number) => x.toFixed(1);
  return `${f(cpu.total)} s (main ${f(cpu.main)}, pool ${f(cpu.workers)}, V8 helpers ${f(cpu.v8)})`;
}

/** Polls `pid`'s peak RSS (MB) until stopped; `stop()` returns the peak. */
export function watchPeakRss(pid: number, everyMs = 25): { stop(): number } {
  let peak = 0;
  const read = () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // exited
    }
  };
  const timer = setInterval(read, everyMs);
  read();
  return {
    stop() {
      read();
      clearInterval(timer);
      return peak;
    },
  };
}

/** This process's own CPU seconds (all its threads) since `since` (process.cpuUsage()). */
export function ownCpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}
