/**
 * `sor mcp`: the MCP server on stdio, for desktop assistants that start it as a child process (docs/mcp.md). The
 * protocol owns stdout; the log (JSON lines, LOG_LEVEL) goes to stderr, one line per tool call and never a student's
 * data. The deployment's SOR_POLICY is the default school policy, as for the API. It runs until stdin ends (the
 * assistant closed it), then exits 0. A local process like `sor calculate`: no token and no rate limit (those guard
 * the HTTP door, POST /mcp).
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import { loadConfig } from '../config.ts';
import { createMcpServer } from './server.ts';

/** The streams and environment of the command (the CLI's own, or a test's). */
export interface McpCommandIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
}

/** Serves MCP on `io` until stdin ends; resolves with the exit status. `usage` is printed for --help. */
export async function mcpCommand(args: string[], io: McpCommandIo, usage: string): Promise<number> {
  const { values } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help === true) {
    io.stdout.write(usage);
    return 0;
  }
  const config = loadConfig({ SOR_POLICY: io.env.SOR_POLICY, LOG_LEVEL: io.env.LOG_LEVEL });
  const logger = pino({ level: config.LOG_LEVEL, base: { component: 'mcp' } }, io.stderr);
  const server = createMcpServer({ parseOptions: { policy: config.SOR_POLICY }, logger });
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    io.stdin.once('end', () => void server.close());
  });
  // The parser's message quotes the line it could not read (a student's request): only the error's kind is logged.
  transport.onerror = (err) => logger.warn({ error: err.name }, 'mcp: a line of stdin is not a JSON-RPC message');
  await server.connect(transport);
  logger.info({ transport: 'stdio' }, 'mcp: serving on stdio');
  await closed;
  logger.info('mcp: stdin closed, stopping');
  return 0;
}
