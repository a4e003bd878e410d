/**
 * CPU cost of the request log line alone (not a test: prints numbers, asserts nothing):
 *
 *   node bench/logger.ts [--lines N] [--rounds R]
 *
 * The line src/api/http-log.ts writes for a /v1/calculate request, logged N times per round through
 *  - pino with a destination that drops it (what formatting the line costs),
 *  - the service's logger (src/logger.ts: a line batch in front of pino's asynchronous destination),
 *  - pino's own asynchronous destination (sonic-boom, `sync: false`) with its own buffering (`minLength`,
 *    `periodicFlush`), the alternative to the batch,
 * in rounds alternating between them, all writing to /dev/null; CPU time of the whole process (the writes done
 * by libuv's threads included) per line, the best round kept. The batch earns its place only while the
 * difference stays above about 2 µs per request.
 */
import { openSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { createServiceLogger } from '../src/logger.ts';
import { benchArgs } from './support/args.ts';

const args = benchArgs('node bench/logger.ts', {
  lines: { type: 'number', default: 100_000, min: 1, help: 'lines logged per round and logger' },
  rounds: { type: 'number', default: 7, min: 1, help: 'timed rounds per logger; the best is kept' },
});

const fd = openSync('/dev/null', 'w');
const requestLine = () => ({
  req: { id: 'b1946ac92492d2347c6235b4d2611184', method: 'POST', path: '/v1/calculate' },
  res: { statusCode: 200 },
  durationMs: 0.412,
});
const asyncDestination = (minLength: number) =>
  pino({ level: 'info' }, pino.destination({ dest: fd, sync: false, minLength, periodicFlush: 200 }));

const loggers: [string, Logger][] = [
  ['pino, the line dropped (formatting only)', pino({ level: 'info' }, { write: () => undefined })],
  ['service logger (line batch)', createServiceLogger({ level: 'info' }, fd).logger],
  ['pino.destination, minLength 8 KiB', asyncDestination(8 * 1024)],
  ['pino.destination, minLength 0', asyncDestination(0)],
];

const best = new Map<string, number>();
for (let round = 0; round < args.rounds; round++) {
  for (const [name, logger] of round % 2 === 0 ? loggers : [...loggers].reverse()) {
    const start = process.cpuUsage();
    for (let i = 0; i < args.lines; i++) logger.info(requestLine(), 'request completed');
    await new Promise((resolve) => setTimeout(resolve, 20)); // the writes in flight finish inside the round
    const used = process.cpuUsage(start);
    best.set(name, Math.min(best.get(name) ?? Infinity, (used.user + used.system) / args.lines));
  }
}
const batch = best.get('service logger (line batch)')!;
console.log(`request log line, CPU µs per line (best of ${args.rounds} rounds of ${args.lines}, /dev/null):`);
for (const [name, us] of best) {
  const delta = name.startsWith('pino.destination') ? `  (${(us - batch).toFixed(2)} µs more than the batch)` : '';
  console.log(`  ${name.padEnd(42)} ${us.toFixed(2)}${delta}`);
}
process.exit(0);
