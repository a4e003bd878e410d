/**
 * POST /mcp through the real server (src/server.ts as a child process, token file store, no Redis), driven by the
 * SDK's own StreamableHTTPClientTransport and by plain fetch:
 *  - off by default: /mcp is 404, with or without access control;
 *  - AUTH_MODE=required and MCP_HTTP=on: 401 without a token (and for a bad one), the tools with one, the token's
 *    rate limit (429 past it), every other spelling of the path 401 or 404, GET 405; the log has no token and
 *    nothing of a student;
 *  - AUTH_MODE=off: the JSON doors' own answers for a body that is not JSON (415, 400, 413).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll } from '../support/processes.ts';
import { type Api, bearer, createToken, startApi, tokenServiceEnv } from '../auth/helpers.ts';
import { call, example, figuresOf } from './helpers.ts';

afterAll(async () => {
  await killAll();
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function connect(base: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'sor-test', version: '1.0.0' });
  const headers: Record<string, string> = token === undefined ? {} : bearer(token);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  return client;
}

describe('MCP_HTTP off (the default)', () => {
  it('/mcp is 404, with access control on and off', async () => {
    for (const authMode of ['off', 'required']) {
      const api = await startApi(tokenServiceEnv('mcp-off', 'info', { AUTH_MODE: authMode }));
      const res = await post(api.base, '/mcp', INITIALIZE);
      expect(res.status, authMode).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'not_found' });
      api.child.proc.kill('SIGKILL');
      await api.child.exited;
    }
  }, 60_000);
});

describe('MCP_HTTP=on with AUTH_MODE=required', () => {
  const env = tokenServiceEnv('mcp-auth', 'info', { AUTH_MODE: 'required', MCP_HTTP: 'on' });
  let api: Api;
  let assistant: { token: string };
  let limited: { token: string };

  beforeAll(async () => {
    assistant = await createToken(env, 'assistant');
    limited = await createToken(env, 'limited', ['--rate', '3/min']);
    api = await startApi(env);
  }, 60_000);

  it('answers 401 without a token, before the body is read, with the challenge', async () => {
    const res = await post(api.base, '/mcp', INITIALIZE);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="sor"');
    expect(await res.json()).toMatchObject({ code: 'unauthenticated' });
    const forged = await post(api.base, '/mcp', INITIALIZE, bearer(`svc_test_${'A'.repeat(32)}`));
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ code: 'invalid_token' });
  });

  it('the SDK’s client cannot connect without a token', async () => {
    await expect(connect(api.base)).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('"code":"unauthenticated"'),
    });
  });

  it('with a token, the SDK’s client lists the tools and calculates FSA example 1 to the dollar', async () => {
    const client = await connect(api.base, assistant.token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('calculate_loan_limits');
      const ex = example('FSA-1');
      const reply = await call(client, 'calculate_loan_limits', ex.request as unknown as Record<string, unknown>);
      expect(figuresOf(reply.structured.result)).toEqual(ex.expected);
      const { dependency_status: _d, ...request } = ex.request;
      const ask = await call(client, 'calculate_loan_limits', {
        ...request,
        terms: [{ label: 'Fall-Ω-9', full_time_credits: 12 }],
      });
      expect(ask.structured.status).toBe('needs_input');
    } finally {
      await client.close();
    }
  });

  it('counts each message against the token’s rate, as /v1 does: 429 past it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(api.base, '/mcp', INITIALIZE, bearer(limited.token))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await post(api.base, '/mcp', INITIALIZE, bearer(limited.token));
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ code: 'quota_exceeded' });
  });

  it('no other spelling of the path answers without a token; GET and DELETE are 405 with one', async () => {
    for (const path of ['/MCP', '/mcp/', '//mcp', '/mcp/x', '/m%63p', '/mcp;x=1', '/v1/../mcp']) {
      const res = await post(api.base, path, INITIALIZE);
      expect([401, 404], path).toContain(res.status);
    }
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${api.base}/mcp`, { method, headers: bearer(assistant.token) });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    }
  });

  it('logs requests and tool calls without the token or the student', async () => {
    // The service writes its log in batches: wait for the lines of the calls above.
    await api.child.waitFor(/"msg":"mcp: tool call"[\s\S]*"statusCode":429/, 10_000);
    const log = api.child.output();
    expect(log).toContain('"path":"/mcp"');
    expect(log).toMatch(/"tool":"calculate_loan_limits","status":"needs_input"/);
    for (const secret of [assistant.token, limited.token, 'Fall-Ω-9', 'dependency_status']) {
      expect(log).not.toContain(secret);
    }
  });
});

describe('MCP_HTTP=on with access control off', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi(tokenServiceEnv('mcp-open', 'info', { MCP_HTTP: 'on', MAX_BODY_BYTES: '4096' }));
  }, 60_000);

  it('serves the SDK’s client without a token', async () => {
    const client = await connect(api.base);
    try {
      const reply = await call(client, 'explain_amount', {
        request: example('FSA-1').request,
        path: 'reduced_annual_pct',
      });
      expect(reply.structured.values).toEqual({ reduced_annual_pct: example('FSA-1').expected.reduced_annual_pct });
    } finally {
      await client.close();
    }
  });

  it('reads the body as the JSON doors do: 415, 400 and 413 in the service’s envelope', async () => {
    const text = await post(api.base, '/mcp', JSON.stringify(INITIALIZE), { 'Content-Type': 'text/plain' });
    expect(text.status).toBe(415);
    const broken = await post(api.base, '/mcp', '{"jsonrpc":');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ code: 'invalid_json' });
    const large = await post(api.base, '/mcp', { ...INITIALIZE, pad: 'x'.repeat(5000) });
    expect(large.status).toBe(413);
  });
});
