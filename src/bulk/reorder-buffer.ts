/**
 * Puts chunk outputs back in file order. Chunks finish in any order (threads, queue workers); the writer takes
 * them strictly by index. The pipeline bounds how many chunks are in flight, so at most that many wait here.
 */
export class ReorderBuffer<T> {
  private next = 0;
  private readonly held = new Map<number, T>();

  /** Index of the next chunk to write. */
  get nextIndex(): number {
    return this.next;
  }

  /** Chunks received but not yet taken (waiting for an earlier one). */
  get size(): number {
    return this.held.size;
  }

  put(index: number, value: T): void {
    if (!Number.isInteger(index) || index < this.next || this.held.has(index)) {
      throw new Error(`ReorderBuffer: chunk ${index} is a duplicate or out of range (next is ${this.next})`);
    }
    this.held.set(index, value);
  }

  /** The next chunk in order, if it has arrived. */
  take(): T | undefined {
    const value = this.held.get(this.next);
    if (value === undefined) return undefined;
    this.held.delete(this.next);
    this.next++;
    return value;
  }
}
