/** What every tool of the MCP server is: its listing (name, words, input JSON Schema) and its run. */
import type { ParseOptions } from '../../schema/request.ts';
import type { ToolAnswer } from '../answers.ts';
import type { JsonObject } from '../json-schema.ts';

/** What a tool runs with: the parse options of the API's JSON doors (the deployment's SOR_POLICY). */
export interface ToolContext {
  parseOptions: ParseOptions;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObject;
  /** Pure and synchronous: validation and the engine, no I/O. */
  run(args: unknown, context: ToolContext): ToolAnswer;
}
