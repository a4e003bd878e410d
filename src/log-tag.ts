/**
 * What a log line writes instead of a key (a job id, which with access control off is the only key to a job's
 * results): a tag, `#` and the first 8 hex digits of an HMAC-SHA-256 of the key under a random key of this
 * process. The same key has the same tag in every line of a process, so its lines can be followed; the key cannot
 * be recovered from the tag, nor a guessed key checked against it (the HMAC key is never logged and is gone when
 * the process ends).
 */
import { createHmac, randomBytes } from 'node:crypto';

const TAG_KEY = randomBytes(32);

export function keyTag(value: string): string {
  return `#${createHmac('sha256', TAG_KEY).update(value, 'utf8').digest('hex').slice(0, 8)}`;
}
