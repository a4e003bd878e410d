/**
 * Calls to the service from the page. When the service runs with access control (AUTH_MODE=required), the
 * person enters an access token once; it is kept in this browser tab only (sessionStorage, never in the URL or
 * a cookie) and sent as `Authorization: Bearer …` with every /v1 call. Without one, the calls carry nothing.
 */
import { h } from './dom.ts';
import { inWords } from './words.ts';

const KEY = 'sor-access-token';

function token(): string {
  try {
    return sessionStorage.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

export function apiFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const t = token();
  if (t !== '') headers.set('authorization', `Bearer ${t}`);
  return fetch(url, { ...init, headers });
}

/**
 * Saves what `fetch`-ing `url` answers as a file named `fileName` (or named from the answer's Content-Disposition);
 * resolves to an error message in words, or null.
 */
export async function saveAs(
  url: string,
  init: RequestInit,
  fileName: string | ((disposition: string | null) => string),
): Promise<string | null> {
  let res: Response;
  try {
    res = await apiFetch(url, init);
  } catch {
    return 'The download failed: the service did not answer.';
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { message?: string };
    return body.message ? inWords(body.message) : 'The download failed. Try again in a moment.';
  }
  const name = typeof fileName === 'string' ? fileName : fileName(res.headers.get('content-disposition'));
  const href = URL.createObjectURL(await res.blob());
  const link = h('a', { href, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
  return null;
}

/** The access-token field in the page's header. */
export function startTokenField(input: HTMLInputElement): void {
  input.value = token();
  input.addEventListener('change', () => {
    try {
      if (input.value.trim() === '') sessionStorage.removeItem(KEY);
      else sessionStorage.setItem(KEY, input.value.trim());
    } catch {
      // Storage refused (private mode): the token cannot be kept.
    }
  });
}
