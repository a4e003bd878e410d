/**
 * The MCP server over the engine (the official TypeScript SDK's McpServer), the same for both doors: `sor mcp` on
 * stdio (src/mcp/stdio.ts) and POST /mcp over streamable HTTP (src/mcp/http.ts).
 *
 * Tools are listed and called through the SDK's request handlers with the JSON Schemas derived from the API's own
 * zod schemas (src/mcp/json-schema.ts), and their arguments are validated by the API's own validator inside each
 * tool — not by the SDK, whose messages are not the API's — so a tool answers the same field errors, paths and
 * messages as POST /v1/calculate, or needs_input (src/mcp/answers.ts). Resources are src/mcp/resources.ts.
 *
 * The log: one line per tool call (tool, status, duration) and per resource read (its URI), never an argument, a
 * figure or a label — what a student's request holds stays out of the logs.
 */
import { performance } from 'node:perf_hooks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { DEFAULT_POLICY } from '../domain/policy.ts';
import { RULE_SET_ID } from '../domain/rule-set.ts';
import type { ParseOptions } from '../schema/request.ts';
import { errorAnswer, toCallResult, type ToolAnswer } from './answers.ts';
import { RESOURCES } from './resources.ts';
import { TOOLS } from './tools/index.ts';

export interface McpServerOptions {
  /** The API's parse options: the deployment's default school policy (SOR_POLICY). */
  parseOptions: ParseOptions;
  logger: Logger;
}

const INSTRUCTIONS =
  'Prorated federal Direct Loan limits for less-than-full-time students (the Schedule of Reductions, 34 CFR ' +
  '685.203(m)), rule set ' +
  RULE_SET_ID +
  '. Never work out a loan amount yourself: call calculate_loan_limits (compare_scenarios for what-ifs) and ' +
  'quote its figures; explain_amount shows the worksheet steps and citations behind any figure. When a tool ' +
  'answers status "needs_input", ask the user for each missing input it lists — never guess or assume a value. ' +
  'The resources hold the statutory limits, the school-policy options, the readings of the rules and worked examples.';

const TOOL_LIST = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: tool.inputSchema,
  annotations: { title: tool.title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
}));

const TOOL_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** A new server (one per stdio session, one per HTTP request in stateless mode); cheap: the schemas are built once. */
export function createMcpServer(options: McpServerOptions): McpServer {
  const { logger } = options;
  const context = { parseOptions: options.parseOptions };
  const server = new McpServer(
    { name: 'sor-loan-limits', title: 'Prorated federal loan limits', version: RULE_SET_ID },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );

  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }));
  server.server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = TOOL_BY_NAME.get(request.params.name);
    if (tool === undefined) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool; the tools are: ${[...TOOL_BY_NAME.keys()].join(', ')}`,
      );
    }
    const started = performance.now();
    let answer: ToolAnswer;
    try {
      answer = tool.run(request.params.arguments ?? {}, context);
    } catch (err) {
      logger.error({ err, tool: tool.name }, 'mcp: tool failed');
      answer = errorAnswer(err);
    }
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    logger.info({ tool: tool.name, status: answer.status, durationMs }, 'mcp: tool call');
    return toCallResult(answer);
  });

  const policy = options.parseOptions.policy ?? DEFAULT_POLICY;
  for (const resource of RESOURCES) {
    server.registerResource(
      resource.name,
      resource.uri,
      { title: resource.title, description: resource.description, mimeType: 'application/json' },
      (uri) => {
        logger.info({ resource: resource.uri }, 'mcp: resource read');
        return {
          contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(resource.read(policy)) }],
        };
      },
    );
  }
  return server;
}
