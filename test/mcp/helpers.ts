/**
 * Shared by the MCP tests: the SDK's own Client on the server in this process (an in-memory pair), on `sor mcp`
 * spawned as an assistant spawns it (stdio), and the worked examples as published (shared/spec/examples.json where
 * the spec folder is beside the checkout, else the service's verbatim copy).
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { pino } from 'pino';
import { WORKED_EXAMPLES, type WorkedExample } from '../../src/api/openapi/worked-examples.ts';
import type { ParseOptions } from '../../src/schema/request.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { NODE_BIN, REPO_ROOT } from '../support/processes.ts';
import { SPEC_EXAMPLES_FILE } from '../support/spec.ts';

/** The published worked examples (expected figures never come from the code). */
export const EXAMPLES: readonly WorkedExample[] =
  SPEC_EXAMPLES_FILE === undefined
    ? WORKED_EXAMPLES
    : (JSON.parse(readFileSync(SPEC_EXAMPLES_FILE, 'utf8')) as { examples: WorkedExample[] }).examples;

export function example(id: string): WorkedExample {
  const found = EXAMPLES.find((e) => e.id === id);
  if (found === undefined) throw new Error(`no worked example ${id}`);
  return found;
}

/** A CalculationResult without the free-text fields that examples.json leaves to the implementation. */
export function figuresOf(result: unknown): unknown {
  const { warnings: _w, terms, ...rest } = result as { warnings: unknown; terms: Record<string, unknown>[] };
  return {
    ...rest,
    terms: terms.map(({ warning: _x, adjustment_explanation: _y, ...term }) => term),
  };
}

export interface ToolReply {
  isError: boolean;
  structured: Record<string, unknown>;
  text: string;
}

/** Calls a tool and returns its structured answer (checking that the text content is the same JSON). */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolReply> {
  const reply = await client.callTool({ name, arguments: args });
  const content = reply.content as { type: string; text: string }[];
  const structured = reply.structuredContent as Record<string, unknown>;
  if (content[0]?.type !== 'text' || JSON.stringify(JSON.parse(content[0].text)) !== JSON.stringify(structured)) {
    throw new Error('the text content is not the structured answer');
  }
  return { isError: reply.isError === true, structured, text: content[0].text };
}

export interface InProcess {
  client: Client;
  logs: string[];
  close(): Promise<void>;
}

/** The MCP server of this process and the SDK's Client, linked in memory; `logs` holds the server's log lines. */
export async function inProcess(parseOptions: ParseOptions = {}): Promise<InProcess> {
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const server = createMcpServer({ parseOptions, logger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'sor-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    logs,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

export interface StdioSession {
  client: Client;
  /** Everything the server wrote on stderr (its log). */
  stderr(): string;
  close(): Promise<void>;
}

/** `node src/cli/main.ts mcp` spawned by the SDK's StdioClientTransport, as a desktop assistant starts it. */
export async function spawnStdio(env: Record<string, string> = {}): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: NODE_BIN,
    args: ['src/cli/main.ts', 'mcp'],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'sor-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}
