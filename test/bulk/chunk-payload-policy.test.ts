/**
 * The file's school policy in the chunk payload (src/bulk/chunk-payload.ts): a non-default policy makes the payload
 * version 2 with `p`, read back as one shared SchoolPolicy; the default policy leaves the payload as it was
 * (version 1, byte for byte); a `p` that is not a policy of the table, or a `p` in a version-1 payload, is a
 * malformed payload (a SyntaxError: the queue worker fails such a chunk at once, never computes it under another
 * policy).
 */
import { describe, expect, it } from 'vitest';
import { ChunkBuilder, decodePayload, payloadText } from '../../src/bulk/chunk-payload.ts';
import { processChunkPayload } from '../../src/bulk/process-chunk.ts';
import { DEFAULT_POLICY, resolvePolicy } from '../../src/domain/policy.ts';
import { SHORT_HEADER } from './helpers.ts';

const STUDENT = { l: [2], c: ['A,Fall,12,12,dependent,first_year'] };

function payloadOf(policy = DEFAULT_POLICY): string {
  const builder = new ChunkBuilder('ndjson', SHORT_HEADER, policy);
  builder.add(STUDENT, 30);
  return payloadText(builder.take());
}

describe('the policy in the chunk payload', () => {
  it('the default policy: a version-1 payload without p, as before policies', () => {
    const text = payloadOf();
    expect(text.startsWith('{"v":1,"f":"ndjson","h":[')).toBe(true);
    expect(decodePayload(text).p).toBeUndefined();
    expect(payloadOf(resolvePolicy({ remainder_placement: 'largest_remainder' }))).toBe(text);
  });

  it('a non-default policy: version 2 with every option, read back as one shared policy object', () => {
    const policy = resolvePolicy({ grad_plus_gap: 'before_reduction' });
    const text = payloadOf(policy);
    expect(text.startsWith(`{"v":2,"f":"ndjson","p":${JSON.stringify(policy)},"h":[`)).toBe(true);
    const first = decodePayload(text).p;
    expect(first).toEqual(policy);
    expect(decodePayload(text).p).toBe(first);
  });

  it('every student of the chunk is calculated under it (the warning names it)', () => {
    const out = processChunkPayload(payloadOf(resolvePolicy({ remainder_placement: 'last_term' })));
    const line = JSON.parse(out.text) as { result: { warnings: string[] } };
    expect(line.result.warnings).toContain('School policy in force: remainder_placement=last_term.');
    const plain = JSON.parse(processChunkPayload(payloadOf()).text) as { result: { warnings: string[] } };
    expect(plain.result.warnings.some((w) => w.startsWith('School policy in force'))).toBe(false);
  });

  it.each([
    ['an unknown option', '{"rounding":"exact"}'],
    ['a value outside the table', '{"proration_fraction":"rounded"}'],
    ['a value that is not a string', '{"proration_fraction":1}'],
    ['not an object', '"proration_fraction=exact"'],
    ['an array', '[]'],
    ['null', 'null'],
  ])('a version-2 payload whose p is %s is malformed', (_, p) => {
    const text = `{"v":2,"f":"csv","p":${p},"h":${JSON.stringify(SHORT_HEADER)},"s":[]}`;
    expect(() => decodePayload(text)).toThrow(SyntaxError);
  });

  it('a version-2 payload without p, or a version-1 payload with one, is malformed', () => {
    expect(() => decodePayload(`{"v":2,"f":"csv","h":${JSON.stringify(SHORT_HEADER)},"s":[]}`)).toThrow(SyntaxError);
    expect(() =>
      decodePayload(
        `{"v":1,"f":"csv","p":{"grad_plus_gap":"before_reduction"},"h":${JSON.stringify(SHORT_HEADER)},"s":[]}`,
      ),
    ).toThrow(SyntaxError);
  });
});
