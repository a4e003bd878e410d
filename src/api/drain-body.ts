/**
 * Refusing a request before its body ends (413, 400, 415): the rest of the body is read and dropped, up to a
 * bound, before the answer is sent. Clients that send the whole body before reading (Python urllib and
 * requests, Java, .NET, PowerShell) would otherwise see the connection close under them — a broken pipe — and
 * never read the answer. Beyond the bound the answer is sent and the connection closed after it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Reads and drops the rest of the body: true at its end, false as soon as more than `bound` bytes in all were
 * read (`alreadyRead` of them before this call). `onBytes` sees every chunk's size (for callers that count).
 */
export function drainBody(
  req: IncomingMessage,
  bound: number,
  alreadyRead = 0,
  onBytes?: (bytes: number) => void,
): Promise<boolean> {
  return new Promise((resolve) => {
    if (req.readableEnded) {
      resolve(true);
      return;
    }
    let read = alreadyRead;
    if (read > bound) {
      resolve(false);
      return;
    }
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      onBytes?.(chunk.length);
      if (read > bound) {
        cleanup();
        req.pause();
        resolve(false);
      }
    };
    const onEnd = () => {
      cleanup();
      resolve(true);
    };
    const onClose = () => {
      cleanup();
      resolve(req.readableEnded);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.resume();
  });
}

/** After `drainBody` gave up: the answer closes the connection once it is written. */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  res.once('finish', () => req.socket.destroySoon());
}
