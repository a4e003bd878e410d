import { randomBytes } from 'node:crypto';

/**
 * A fresh random id per bulk run (request or async job), carried by each of its chunks (ChunkTask.runId). It is
 * not derived from the request or job id: whoever reads the queue (bull-board) learns nothing that leads to a
 * job's results.
 */
export function newRunId(): string {
  return `r${randomBytes(12).toString('hex')}`;
}
