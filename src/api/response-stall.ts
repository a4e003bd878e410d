/**
 * A response whose client stopped reading: bytes wait to go out on its socket and none of them has been taken
 * (the kernel's send buffer stays full) for `timeoutMs`. Then `onStall` runs, once: the caller aborts the
 * response and frees what it holds (a bulk slot, src/api/bulk-route.ts).
 *
 * Progress is counted in bytes the socket has handed to the kernel (`bytesWritten` counts those plus the ones
 * still queued, `writableLength` the queued ones), so a response that waits on its own computation (nothing
 * queued) is never a stall, and a client reading a few bytes now and then does not count as progress until a
 * whole queued write has gone out.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Bytes of this socket's writes the kernel has taken so far. */
function bytesTaken(socket: Socket): number {
  return (socket.bytesWritten ?? 0) - socket.writableLength;
}

/** Watches `res` until the returned function is called, the socket closes, or it stalls (`onStall`, once). */
export function watchResponseStall(res: ServerResponse, timeoutMs: number, onStall: () => void): () => void {
  const socket = res.socket;
  if (socket === null || socket.destroyed) return () => undefined;
  let taken = bytesTaken(socket);
  let since = performance.now();
  const timer = setInterval(
    () => {
      const now = performance.now();
      const next = bytesTaken(socket);
      if (next !== taken || socket.writableLength === 0) {
        taken = next;
        since = now;
        return;
      }
      if (now - since < timeoutMs) return;
      stop();
      onStall();
    },
    Math.max(25, Math.min(1000, Math.floor(timeoutMs / 5))),
  );
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    socket.off('close', stop);
  };
  socket.on('close', stop);
  return stop;
}
