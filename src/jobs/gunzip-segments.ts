/** Streams the decompressed bytes of a gzip result stored as ordered segments (never whole in memory). */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';

export async function* gunzipSegments(segments: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const gunzip = createGunzip();
  // pipeline destroys both sides when either fails or the reader stops early.
  pipeline(Readable.from(segments), gunzip, () => undefined);
  for await (const chunk of gunzip) yield chunk as Buffer;
}
