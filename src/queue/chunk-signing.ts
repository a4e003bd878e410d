/**
 * Integrity of what crosses Redis: HMAC-SHA256 with the deployment's QUEUE_SIGNING_KEY (the same on the API and
 * every worker; never in Redis).
 *
 *  - The API signs each chunk job's payload, bound to the job id. A worker verifies before computing and refuses
 *    a payload whose MAC does not match (edited in Redis or in bull-board): the job fails at once, alone, and the
 *    API recomputes the chunk on its local pool from the payload it kept.
 *  - The worker signs its output, bound to the job id, the SHA-256 digest of the payload it computed, the
 *    counts and the output bytes. The API verifies against the digest of the payload it sent before using it;
 *    an output that was changed (or belongs to another chunk) is discarded and the chunk recomputed locally.
 *
 * MACs are compared in constant time.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { CheckSummary } from '../bulk/shadow-summary.ts';

/** The data of a chunk job in BullMQ: the compact chunk payload and its MAC. */
export interface ChunkJobData {
  payload: string;
  mac: string;
}

/** Counts that travel with a chunk's output (in the job's return value). */
export interface ChunkCounts {
  rows: number;
  errorRows: number;
  students: number;
  /** The shadow check's counts of the chunk (files with sis_* columns). */
  checks?: CheckSummary;
}

export function isChunkJobData(v: unknown): v is ChunkJobData {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return typeof o.payload === 'string' && o.payload.length > 0 && typeof o.mac === 'string';
}

/** SHA-256 of a payload, hex. */
export function payloadDigest(payload: string): string {
  return createHash('sha256').update(payload, 'utf8').digest('hex');
}

function equalHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  // Both are SHA-256 MACs (32 bytes) when well formed; anything else is simply not equal.
  return x.length === 32 && y.length === 32 && timingSafeEqual(x, y);
}

export class ChunkSigner {
  readonly #key: Buffer;

  constructor(key: string) {
    if (key.length < 32) throw new Error('QUEUE_SIGNING_KEY must be at least 32 characters');
    this.#key = Buffer.from(key, 'utf8');
  }

  #payloadMac(jobId: string, payload: string): string {
    return createHmac('sha256', this.#key)
      .update(`sor-chunk-payload\0${jobId}\0`, 'utf8')
      .update(payload, 'utf8')
      .digest('hex');
  }

  #outputMac(jobId: string, digest: string, counts: ChunkCounts, output: Uint8Array): string {
    return createHmac('sha256', this.#key)
      .update(`sor-chunk-output\0${jobId}\0${digest}\0${counts.rows}\0${counts.errorRows}\0${counts.students}\0`)
      .update(counts.checks === undefined ? '' : `checks\0${JSON.stringify(counts.checks)}\0`)
      .update(output)
      .digest('hex');
  }

  /** The job data the API enqueues for `payload` under `jobId`. */
  signPayload(jobId: string, payload: string): ChunkJobData {
    return { payload, mac: this.#payloadMac(jobId, payload) };
  }

  verifyPayload(jobId: string, data: ChunkJobData): boolean {
    return equalHex(data.mac, this.#payloadMac(jobId, data.payload));
  }

  /** The worker's MAC over its output, bound to the job and the digest of the payload it computed. */
  signOutput(jobId: string, digest: string, counts: ChunkCounts, output: Uint8Array): string {
    return this.#outputMac(jobId, digest, counts, output);
  }

  verifyOutput(jobId: string, digest: string, counts: ChunkCounts, output: Uint8Array, mac: string): boolean {
    return equalHex(mac, this.#outputMac(jobId, digest, counts, output));
  }
}
