/**
 * The receivers of docs/webhooks.md, run exactly as the docs print them: the code block after
 * `<!-- receiver: python -->` run with python3, the one after `<!-- receiver: node -->` with node, each on its own
 * loopback port with its own WEBHOOK_SECRET. What they print (one line per verified event) is collected.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port.ts';
import { REPO_ROOT } from '../support/processes.ts';

export type ReceiverLanguage = 'python' | 'node';

/** The receiver's code block, as written in the docs. */
export function receiverSnippet(language: ReceiverLanguage): string {
  const docs = readFileSync(join(REPO_ROOT, 'docs', 'webhooks.md'), 'utf8');
  const fence = language === 'python' ? 'python' : 'js';
  const found = new RegExp(`<!-- receiver: ${language} -->\\n\`\`\`${fence}\\n([\\s\\S]*?)\\n\`\`\``).exec(docs);
  if (!found) throw new Error(`docs/webhooks.md has no ${language} receiver`);
  return found[1] as string;
}

export interface Receiver {
  url: string;
  port: number;
  /** Lines printed on stdout (one per verified event: "<event id> <type> <job id>"). */
  lines(): string[];
  /** Resolves with the first printed line that contains `text` (the pipe may deliver it after the answer). */
  line(text: string, timeoutMs?: number): Promise<string>;
  /** Everything printed on stderr. */
  errors(): string;
  stop(): Promise<void>;
}

/** Starts the docs' receiver and waits until it accepts connections. */
export async function startReceiver(language: ReceiverLanguage, secret: string, port?: number): Promise<Receiver> {
  const dir = await mkdtemp(join(tmpdir(), `sor-receiver-${language}-`));
  const file = join(dir, language === 'python' ? 'receiver.py' : 'receiver.mjs');
  await writeFile(file, receiverSnippet(language));
  const listenOn = port ?? (await freePort());
  const child: ChildProcess = spawn(language === 'python' ? 'python3' : process.execPath, [file], {
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: String(listenOn) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const url = `http://127.0.0.1:${listenOn}`;
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`the ${language} receiver exited: ${err}`);
    try {
      await fetch(url, { method: 'GET' });
      break;
    } catch {
      if (tries > 200) throw new Error(`the ${language} receiver did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    port: listenOn,
    lines: () => out.split('\n').filter((l) => l !== ''),
    async line(text: string, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const found = out.split('\n').find((l) => l.includes(text));
        if (found !== undefined) return found;
        if (Date.now() > end) throw new Error(`the ${language} receiver printed no line with ${text}: ${out}${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    errors: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
