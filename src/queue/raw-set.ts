/**
 * SET of a large value without a new buffer per call. ioredis writes a command with Buffer arguments by copying
 * them all into one freshly allocated Buffer (MixedBuffers.toBuffer): for a chunk's ~1.7 MB output that is a
 * 1.7 MB ArrayBuffer allocated and dropped per chunk, which keeps the worker's main thread in back-to-back
 * mark-compacts (V8 counts ArrayBuffer memory towards its GC limits; measured ~1 every 3-4 chunks on a 16 MB
 * heap). Here the RESP frame is written into a buffer this writer keeps (one per SET in flight) and handed to
 * ioredis as the command's wire form; a frame is reused only once its SET was answered, when the socket has
 * written all of it.
 */
import { Command } from 'ioredis';
import type { Redis } from 'ioredis';

class FramedCommand extends Command {
  readonly #frame: Buffer;
  constructor(name: string, frame: Buffer) {
    super(name, []);
    this.#frame = frame;
  }
  override toWritable(): Buffer {
    return this.#frame;
  }
}

/** Frames kept for reuse at most (one per SET in flight; a worker has one per job in flight). */
const MAX_SPARE_FRAMES = 8;
/** A frame larger than this (a chunk of huge cells) is not kept. */
const MAX_SPARE_FRAME_BYTES = 16 * 1024 * 1024;

export class RawSetWriter {
  readonly #spare: Buffer[] = [];

  /** SET key value EX seconds; resolves once Redis answered (rejects like ioredis' own set). */
  async set(client: Redis, key: string, value: Uint8Array, seconds: number): Promise<void> {
    const ex = String(seconds);
    const head = `*5\r\n$3\r\nSET\r\n$${Buffer.byteLength(key)}\r\n${key}\r\n$${value.byteLength}\r\n`;
    const tail = `\r\n$2\r\nEX\r\n$${ex.length}\r\n${ex}\r\n`;
    const size = Buffer.byteLength(head) + value.byteLength + tail.length;
    const frame = this.#take(size);
    let at = frame.write(head, 0, 'utf8');
    frame.set(value, at);
    at += value.byteLength;
    at += frame.write(tail, at, 'latin1');
    const command = new FramedCommand('set', frame.subarray(0, at));
    void client.sendCommand(command);
    await command.promise;
    // Answered: Redis has read the whole frame, so the socket is done with it. A failed SET (a command timeout
    // may fire while the socket is still writing) leaves its frame to the garbage collector instead.
    this.#give(frame);
  }

  #take(size: number): Buffer {
    for (let i = this.#spare.length - 1; i >= 0; i--) {
      if (this.#spare[i]!.length >= size) return this.#spare.splice(i, 1)[0]!;
    }
    // Room to grow: the next chunk's output is rarely exactly this one's size.
    return Buffer.allocUnsafeSlow(Math.ceil(size * 1.25));
  }

  #give(frame: Buffer): void {
    if (frame.length <= MAX_SPARE_FRAME_BYTES && this.#spare.length < MAX_SPARE_FRAMES) this.#spare.push(frame);
  }
}
