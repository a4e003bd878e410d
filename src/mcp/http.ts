/**
 * POST /mcp: the MCP server over streamable HTTP (MCP_HTTP=on; docs/mcp.md), for assistants that reach the service
 * over the network. Stateless: every POST carries one JSON-RPC message and gets its answer as JSON, from a server
 * and transport made for that request (the SDK's stateless mode: no session to keep, any replica can answer).
 *
 * In front of it, mounted by the app on the path (src/api/app.ts): the same access control and rate limits as /v1
 * (a bearer token with AUTH_MODE=required; a message costs 1, as a /v1 request does). The body is read as the JSON
 * doors read theirs (src/api/json-body.ts: the 415/413/400 envelopes, MAX_BODY_BYTES, numbers judged by the text
 * the client wrote), so a tool sees the same request a POST /v1/calculate would. GET and DELETE (a server's event
 * stream, a session's end) have nothing to serve here: 405. The request log has the path and status, never the
 * body; the tool's own log line has its name and status.
 */
import { Router } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { RULE_SET_ID } from '../domain/rule-set.ts';
import type { AppContext } from '../api/context.ts';
import { MCP_PATH } from '../api/app.ts';
import { jsonParseOptions, RULE_SET_HEADER } from '../api/calculate-route.ts';
import { sendError } from '../api/error-envelope.ts';
import { readJsonObject } from '../api/json-body.ts';
import { methodNotAllowed } from '../api/method-not-allowed.ts';
import { ROUTER_OPTIONS } from '../api/routing.ts';
import { createMcpServer } from './server.ts';

export function mcpRouter(ctx: AppContext): Router {
  const router = Router(ROUTER_OPTIONS);
  const limit = ctx.config.MAX_BODY_BYTES;
  const parseOptions = jsonParseOptions(ctx.config); // SOR_POLICY, the requests' default policy
  const logger = ctx.logger.child({ component: 'mcp' });

  router.post(MCP_PATH, async (req, res) => {
    res.setHeader(RULE_SET_HEADER, RULE_SET_ID);
    res.setHeader('Cache-Control', 'no-store');
    let message: Record<string, unknown>;
    try {
      message = await readJsonObject(req, res, limit);
    } catch (err) {
      sendError(res, err);
      return;
    }
    const server = createMcpServer({ parseOptions, logger });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, message);
    } catch (err) {
      if (!res.headersSent) sendError(res, err);
      else res.destroy(err instanceof Error ? err : undefined);
    }
  });
  router.all(MCP_PATH, methodNotAllowed('POST'));
  return router;
}
