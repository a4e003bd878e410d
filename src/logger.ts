/**
 * The one place that creates a process's logger (API server, queue worker): pino writing JSON lines to stdout
 * through its asynchronous destination (sonic-boom, `sync: false`), behind a line batch:
 *  - a log call appends the line to an array in memory (LineBatch below);
 *  - the batch goes to the destination as one string once it holds LOG_BATCH_BYTES, or every
 *    LOG_FLUSH_EVERY_MS whatever it holds then (an unref'd timer), so on a quiet server a line reaches stdout at
 *    most LOG_FLUSH_EVERY_MS after it was logged;
 *  - the destination writes it to the file descriptor in one `fs.write` at a time, off the event loop, and what
 *    arrives while a write is in flight goes out with the next one.
 * Why not sonic-boom's own buffering (`minLength`, `periodicFlush`): it measures the UTF-8 length of its growing
 * buffer on every write, so a request line costs about 2.5 µs more CPU through it than through the batch, whatever
 * its minLength (bench/logger.ts: ~3.9 against ~1.4 µs per line, of which ~1 µs is pino formatting the line); on
 * the real-time endpoint that is more than validating and calculating the student.
 *
 * The price is that lines can still be in memory when the process ends, so every exit of the process goes
 * through `flush` (graceful shutdown) or `exitOnFatalError` (uncaught exception, unhandled rejection):
 *  - `flush` hands the batch over, waits until everything handed over has been written (the destination's
 *    'drain'), then writes anything left synchronously. Waiting matters: when the reader of stdout is slow (a full
 *    pipe), the write in flight is parked on an EAGAIN retry timer, and a synchronous flush at exit (what pino's
 *    own exit hook does) writes only the lines queued behind it and loses that chunk.
 *  - pino's `logger.flush()` does not help here: with `minLength: 0` (what is handed over leaves as soon as the
 *    previous write is done) it calls back at once without waiting for anything.
 */
import { writeSync } from 'node:fs';
import { pino, type Logger, type LoggerOptions } from 'pino';
import { serializeError } from './redact.ts';

/** The line batch goes to the destination once it holds this many characters… */
export const LOG_BATCH_BYTES = 8 * 1024;
/** …or this often, whatever it holds. */
export const LOG_FLUSH_EVERY_MS = 200;

/** How long a graceful exit waits for the log lines still being written before it writes the rest synchronously. */
export const LOG_FLUSH_TIMEOUT_MS = 5_000;
/** The same after an uncaught exception: the process is in an unknown state, so it waits less. */
export const FATAL_FLUSH_TIMEOUT_MS = 2_000;

export interface ServiceLogger {
  readonly logger: Logger;
  /**
   * Resolves once every line logged before the call has been written (or after `timeoutMs`, e.g. when nobody
   * reads stdout any more); what is still buffered then is written synchronously. Never rejects.
   */
  flush(timeoutMs?: number): Promise<void>;
  /** Writes what is buffered synchronously, now (the last resort of an exit that cannot wait). */
  flushSync(): void;
}

interface Destination {
  write(text: string): unknown;
  flushSync(): void;
  on(event: 'drain', listener: () => void): unknown;
}

/** How long a synchronous write waits out a full pipe (EAGAIN) before it gives up on the lines. */
export const SYNC_WRITE_TIMEOUT_MS = 2_000;
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes `text` to `fd` now, whole: a partial write continues with the rest, and a full pipe (EAGAIN) is retried
 * every 10 ms for at most `timeoutMs` (then the error is thrown: the reader is gone or stuck).
 */
export function writeAllSync(fd: number, text: string, timeoutMs = SYNC_WRITE_TIMEOUT_MS): void {
  let bytes = Buffer.from(text, 'utf8');
  const deadline = Date.now() + timeoutMs;
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'EAGAIN' && code !== 'EBUSY') || Date.now() > deadline) throw err;
      Atomics.wait(SLEEPER, 0, 0, 10);
    }
  }
}

/**
 * The lines logged since the last hand-over to the destination: pino's stream (pino calls `write` for every line,
 * and `flushSync` after a `fatal` line).
 */
class LineBatch {
  private lines: string[] = [];
  private chars = 0;
  private readonly destination: Destination;
  private readonly fd: number;
  /** True from a hand-over until the destination has written everything handed to it (its 'drain'). */
  private writing = false;

  constructor(destination: Destination, fd: number) {
    this.destination = destination;
    this.fd = fd;
    // sonic-boom (asynchronous) emits 'drain' when a write completes with nothing left to write. No 'error'
    // listener here: a destination that gives a write up (EPIPE: stdout's reader is gone) stays an uncaught
    // error, as it was before the batch tracked its writes.
    destination.on('drain', () => (this.writing = false));
    setInterval(() => {
      try {
        this.release();
      } catch {
        // The destination is closed or its reader gone: there is nowhere left to write.
      }
    }, LOG_FLUSH_EVERY_MS).unref();
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= LOG_BATCH_BYTES) this.release();
  }

  /** The lines held, as one string ('' for none), and the batch emptied. */
  private take(): string {
    if (this.lines.length === 0) return '';
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    return text;
  }

  /** Hands every line held to the destination, as one string. */
  release(): void {
    const text = this.take();
    if (text === '') return;
    this.writing = true;
    this.destination.write(text);
  }

  /**
   * Writes the lines held before it returns. With nothing in flight they go straight to the file descriptor (a
   * hand-over would start an asynchronous write that the process may end before). With a write in flight they
   * are queued behind it and the destination writes its queue synchronously; the write in flight, done by a
   * thread of libuv's pool, finishes on its own, so a caller that can wait for it first does (ServiceLogger.flush).
   */
  flushSync(): void {
    const text = this.take();
    if (!this.writing) {
      if (text !== '') writeAllSync(this.fd, text);
      return;
    }
    if (text !== '') this.destination.write(text);
    this.destination.flushSync();
  }
}

/** A logger writing asynchronously to the file descriptor `fd` (stdout by default). */
export function createServiceLogger(options: LoggerOptions, fd = 1): ServiceLogger {
  const destination = pino.destination({ dest: fd, sync: false, minLength: 0 });
  const batch = new LineBatch(destination, fd);
  const logger = pino(options, batch);

  const flushSync = (): void => {
    try {
      batch.flushSync();
    } catch {
      // Not open yet, already closed, or the reader is gone (EPIPE): nothing more can be written.
    }
  };

  const flush = (timeoutMs = LOG_FLUSH_TIMEOUT_MS): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        destination.off('drain', done);
        destination.off('error', done);
        flushSync();
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      destination.once('drain', done);
      destination.once('error', done);
      // The batch, then an empty write queued behind everything logged so far: 'drain' follows once all of it
      // is written (at once when nothing is in flight), through the destination's public interface only.
      try {
        batch.release();
        destination.write('');
      } catch {
        done();
      }
    });

  return { logger, flush, flushSync };
}

/**
 * Uncaught exceptions and unhandled rejections end the process with exit code 1 after a `fatal` line with the
 * error (serializeError: URLs redacted, no Redis command arguments). The lines logged before it are written
 * first (flush: the write in flight finishes), then the fatal line, synchronously: pino's `fatal` writes its
 * destination synchronously, which while a write is still in flight would put the fatal line (and the lines
 * queued behind that write) before the chunk in flight, or in the middle of a line that chunk wrote only part
 * of. A second fatal error while waiting exits at once.
 */
export function exitOnFatalError(log: ServiceLogger, timeoutMs = FATAL_FLUSH_TIMEOUT_MS): void {
  const fatalLog = log.logger.child({}, { serializers: { err: serializeError } });
  let exiting = false;
  const onFatal = (kind: string) => (err: unknown) => {
    const logFatal = () => {
      try {
        fatalLog.fatal({ err }, `${kind}: exiting`);
      } catch {
        // A logger that cannot write must not keep the process from exiting.
      }
      log.flushSync();
    };
    if (exiting) {
      logFatal();
      process.exit(1);
    }
    exiting = true;
    void log
      .flush(timeoutMs)
      .then(logFatal)
      .finally(() => process.exit(1));
  };
  process.on('uncaughtException', onFatal('uncaught exception'));
  process.on('unhandledRejection', onFatal('unhandled rejection'));
}
