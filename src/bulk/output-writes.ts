/**
 * Writing to the bulk output stream without losing track of it: a write that waits for 'drain', the end of the
 * stream, and the errors that say the output went away (the client closed the connection) or the run was
 * aborted. Used by the pipeline (pipeline.ts) and its chunk scheduler (chunk-scheduler.ts).
 */
import type { Writable } from 'node:stream';

export class OutputClosedError extends Error {
  constructor() {
    super('the output was closed before the bulk response was complete');
    this.name = 'OutputClosedError';
  }
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Resolves on 'drain'; rejects when the output closes or fails first, or the signal aborts. */
export function waitDrain(output: Writable, signal: AbortSignal | undefined): Promise<void> {
  // Already over (a write can close the output synchronously, e.g. a client gone): no event will come.
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (output.destroyed || output.closed) return Promise.reject(new OutputClosedError());
  if (!output.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      output.off('drain', onDrain);
      output.off('close', onClose);
      output.off('error', onError);
      signal?.removeEventListener('abort', onAbort);
    };
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      reject(new OutputClosedError());
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onAbort = () => {
      cleanup();
      reject(abortReason(signal!));
    };
    output.on('drain', onDrain);
    output.on('close', onClose);
    output.on('error', onError);
    signal?.addEventListener('abort', onAbort);
  });
}

/** Writes text, waiting for 'drain' when the output asks for it. */
export async function writeText(output: Writable, text: string, signal: AbortSignal | undefined): Promise<void> {
  if (output.destroyed || output.writableEnded) throw new OutputClosedError();
  if (!output.write(text)) await waitDrain(output, signal);
}

/** Ends the output and resolves once it has finished (or rejects with its error). */
export async function endOutput(output: Writable): Promise<void> {
  if (output.writableFinished) return;
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    output.once('error', onError);
    output.end(() => {
      output.off('error', onError);
      resolve();
    });
  });
}

/** Runs a callback from a stream callback: a throw there would crash the process, so it is swallowed. */
export function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // releasing a buffer for reuse is an optimisation; failing to is harmless
  }
}
