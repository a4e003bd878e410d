/** The node flags of `npm start`, which the benchmarks start the server with unless told otherwise. */
import { readFileSync } from 'node:fs';

/** The flags of a checkout's start script (package.json: `node <flags…> dist/src/server.js`); `root` ends in /. */
export function startScriptFlags(root: string): string[] {
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> };
  const words = (pkg.scripts.start ?? '').split(/\s+/);
  return words.slice(words.indexOf('node') + 1).filter((word) => word.startsWith('--'));
}
