/**
 * The one redaction of URLs that may carry credentials (REDIS_URL, and any URL found in a message): every log
 * line, config error, probe and metric that names a connection goes through `redactUrl`.
 *
 * It never relies on a URL parser: a malformed URL (an unencoded `@ # : /` or space in the password) parses into
 * the wrong parts, and a parser-based redaction then prints part of the password as a host or a path. Instead:
 *  - everything between `://` and the LAST `@` is credentials (user name and password): replaced by `***`;
 *  - what follows is shown only when it has the shape of a host (name, IPv4 or [IPv6]) with an optional numeric
 *    port, and a path only when it is a database number (`/0`); anything else (a query, a fragment, a path that
 *    may be the tail of a password) is replaced by `…`.
 */
import { stdSerializers } from 'pino';

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const HOST_PORT = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const DB_PATH = /^\/\d{0,3}$/;

/** `redis://***@host:6379/0`: the URL without credentials, query or anything that may be part of a secret. */
export function redactUrl(url: string): string {
  const text = url.trim();
  const scheme = SCHEME.exec(text);
  if (!scheme) return '(not a URL; not shown)';
  let rest = text.slice(scheme[0].length);
  const at = rest.lastIndexOf('@');
  const credentials = at >= 0 ? '***@' : '';
  if (at >= 0) rest = rest.slice(at + 1);
  const hostEnd = rest.search(/[/?#\s]/);
  const hostPort = hostEnd < 0 ? rest : rest.slice(0, hostEnd);
  const tail = hostEnd < 0 ? '' : rest.slice(hostEnd);
  const pathEnd = tail.search(/[?#\s]/);
  const path = pathEnd < 0 ? tail : tail.slice(0, pathEnd);
  const host = HOST_PORT.test(hostPort) ? hostPort : '(host not shown)';
  const shownPath = path === '' || DB_PATH.test(path) ? path : '…';
  const more = pathEnd >= 0 && shownPath !== '…' ? '…' : '';
  return `${scheme[1]}://${credentials}${host}${shownPath}${more}`;
}

const URL_IN_TEXT = /[A-Za-z][A-Za-z0-9+.-]*:\/\/\S*/g;
/** An access token (src/auth/token.ts) anywhere in a message or a logged error: only its prefix is kept. */
const ACCESS_TOKEN = /\b(svc_(?:live|test)_)[0-9A-Za-z]{8,}/g;

/**
 * A message with every URL in it redacted (redactUrl; `file://` paths of stack traces are kept), every access
 * token cut to its prefix (`svc_live_***`), and every
 * given secret replaced by `***` (also in its percent-encoded form). For error messages of libraries that might
 * echo a connection string.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(URL_IN_TEXT, (u) => (/^file:/i.test(u) ? u : redactUrl(u)));
  out = out.replace(ACCESS_TOKEN, '$1***');
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join('***');
  }
  return out;
}

/** The password (decoded and as written) of a URL, for redactText; none when the URL has no credentials. */
export function urlSecrets(url: string | undefined): string[] {
  if (!url) return [];
  const text = url.trim();
  const scheme = SCHEME.exec(text);
  if (!scheme) return [text];
  const rest = text.slice(scheme[0].length);
  const at = rest.lastIndexOf('@');
  if (at < 0) return [];
  const userinfo = rest.slice(0, at);
  const colon = userinfo.indexOf(':');
  const password = colon >= 0 ? userinfo.slice(colon + 1) : userinfo;
  const forms = [password];
  try {
    forms.push(decodeURIComponent(password));
  } catch {
    // Not valid percent-encoding: the raw form is all there is.
  }
  return [...new Set(forms)].filter((s) => s.length > 0);
}

/** Keys of a Redis client's errors that carry a command's arguments (AUTH's password, a result's rows). */
const COMMAND_KEYS = new Set(['command', 'args', 'previousErrors']);

function scrub(value: unknown, depth: number): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') {
    return typeof value === 'string' ? redactText(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!COMMAND_KEYS.has(k)) out[k] = scrub(v, depth + 1);
  }
  return out;
}

/**
 * pino's error serializer, made safe for log lines: message and stack with URLs redacted, and without the
 * `command` (name and arguments) that ioredis attaches to a failed command's error, at any depth of `cause`.
 */
export function serializeError(err: unknown): Record<string, unknown> {
  const base: unknown = err instanceof Error ? stdSerializers.err(err) : { message: String(err) };
  return scrub(base, 0) as Record<string, unknown>;
}
