/** A Content-Type header read once: the media type (lower case) and its `charset` parameter, if any. */
export interface MediaType {
  type: string;
  /** Every charset parameter as written (a leading and a trailing quote and surrounding spaces removed). */
  charsets: string[];
}

export function parseMediaType(header: string | undefined): MediaType | null {
  if (header === undefined) return null;
  const parts = header.split(';');
  const type = (parts[0] ?? '').trim().toLowerCase();
  const charsets: string[] = [];
  for (let i = 1; i < parts.length; i++) {
    const param = (parts[i] ?? '').trim();
    const eq = param.indexOf('=');
    if (eq === -1) continue;
    if (param.slice(0, eq).trim().toLowerCase() === 'charset') {
      charsets.push(
        param
          .slice(eq + 1)
          .trim()
          .replace(/^"|"$/g, ''),
      );
    }
  }
  return { type, charsets };
}
