/**
 * One delivery attempt: POST the event to the callback URL and say how it went.
 *
 * Before connecting, the URL is checked again (callback-url.ts: scheme, and every address its host resolves to
 * now) and the connection goes only to the addresses checked (pinnedLookup): a host name that resolves to a
 * public address at submission and to 10.0.0.1 later is refused, never reached. Redirects are not followed (a
 * 3xx is a failed attempt: following one would leave the checked address). The whole attempt (connection, TLS,
 * the answer's headers and up to MAX_ANSWER_BYTES of its body, which is read and dropped) has `timeoutMs`.
 * A 2xx is delivered; anything else, or no answer, is a failed attempt with its reason in words.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { CallbackRefusal, checkCallbackUrl, pinnedLookup, type Resolver } from './callback-url.ts';

/** Bytes of a receiver's answer read (and dropped) before the attempt counts as answered. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Longest error text kept on the job. */
const MAX_ERROR_CHARS = 300;

export interface DeliveryRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface DeliveryOptions {
  /** WEBHOOK_ALLOW origins. */
  allow: ReadonlySet<string>;
  resolve: Resolver;
  timeoutMs: number;
}

export interface DeliveryOutcome {
  ok: boolean;
  /** The receiver's HTTP status; null when none came. */
  status: number | null;
  /** Why the attempt failed, in words; null when delivered. */
  error: string | null;
}

const ERRNO_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EPIPE: 'the connection was closed while the event was being sent',
  ETIMEDOUT: 'the connection timed out',
};

function words(err: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `no answer within ${timeoutMs / 1000} s`;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && ERRNO_WORDS[code]) return `${ERRNO_WORDS[code]} (${code})`;
  if (typeof code === 'string' && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(code)) {
    return `the TLS connection failed: ${code}`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return (typeof code === 'string' ? `${message} (${code})` : message).slice(0, MAX_ERROR_CHARS);
}

/** Makes one attempt; never throws (every failure is an outcome). */
export async function deliver(req: DeliveryRequest, options: DeliveryOptions): Promise<DeliveryOutcome> {
  let target;
  try {
    target = await checkCallbackUrl(req.url, options.allow, options.resolve);
  } catch (err) {
    const reason = err instanceof CallbackRefusal ? err.message : words(err, options.timeoutMs, false);
    return { ok: false, status: null, error: `not sent: ${reason}`.slice(0, MAX_ERROR_CHARS) };
  }
  const { url } = target;
  const body = Buffer.from(req.body, 'utf8');
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<DeliveryOutcome>((resolve) => {
    let timedOut = false;
    let settled = false;
    const finish = (outcome: DeliveryOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...req.headers, 'Content-Length': String(body.length) },
        agent: false, // one connection per attempt: nothing pooled outlives the address check
        ...(target.addresses.length > 0 ? { lookup: pinnedLookup(target.addresses) } : {}),
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        const done = () => {
          const ok = status >= 200 && status < 300;
          const why =
            status >= 300 && status < 400
              ? `answered ${status}: redirects are not followed`
              : `answered ${status}, not a 2xx`;
          finish({ ok, status, error: ok ? null : why });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_ANSWER_BYTES) done();
        });
        res.once('end', done);
        res.once('error', done);
        res.once('close', done);
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error('timeout'));
    }, options.timeoutMs);
    request.once('error', (err) => finish({ ok: false, status: null, error: words(err, options.timeoutMs, timedOut) }));
    request.end(body);
  });
}
