/**
 * `sor mcp` as a desktop assistant runs it: `node src/cli/main.ts mcp` spawned by the SDK's own StdioClientTransport
 * and driven by its Client. It lists the tools, calls each, answers FSA examples 1 and 4 and a Handbook
 * final-period example to the dollar (figures from examples.json), asks for the dependency status instead of
 * assuming one, reads a resource — and its log (stderr) holds no student data: every line is one of the server's
 * own events with only its own keys, and nothing of the requests (labels, field names, figures) appears in it.
 */
import { spawn } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { NODE_BIN, REPO_ROOT } from '../support/processes.ts';
import { call, example, figuresOf, spawnStdio, type StdioSession } from './helpers.ts';

let session: StdioSession;
beforeAll(async () => {
  session = await spawnStdio({ LOG_LEVEL: 'info' });
}, 30_000);
afterAll(async () => {
  await session?.close();
});

/** A student no log line may mention: distinctive labels and dollar figures. */
const TRACER = {
  dependency_status: 'independent',
  grade_level: 'second_year',
  subsidized_amount: 4321,
  cost_of_attendance: '18765.43',
  terms: [
    { label: 'Herbst-Ξ-Zq7', full_time_credits: 12, credits_enrolled: 7 },
    { label: 'Frühling-Ψ-Wk3', full_time_credits: 12, credits_enrolled: 11 },
  ],
};

describe('sor mcp (stdio), driven by the SDK’s Client', () => {
  it('lists the tools, each with its input schema', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'calculate_loan_limits',
      'compare_scenarios',
      'explain_amount',
      'check_school_figures',
    ]);
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
  });

  it.each(['FSA-1', 'FSA-4', 'HB-CH5-EX5'])('calculate_loan_limits: %s to the dollar', async (id) => {
    const ex = example(id);
    const reply = await call(session.client, 'calculate_loan_limits', ex.request as unknown as Record<string, unknown>);
    expect(reply.structured.status).toBe('ok');
    expect(figuresOf(reply.structured.result)).toEqual(ex.expected);
  });

  it('a request without dependency status gets needs_input, not a calculation', async () => {
    const { dependency_status: _omitted, ...request } = example('FSA-1').request;
    const reply = await call(session.client, 'calculate_loan_limits', request);
    expect(reply.isError).toBe(false);
    expect(reply.structured.status).toBe('needs_input');
    expect(reply.structured.missing).toMatchObject([{ field: 'dependency_status', label: 'Dependency status' }]);
    expect(reply.structured).not.toHaveProperty('result');
  });

  it('compare_scenarios: FSA-1 with Spring at 6 credits is the published 6 + 6 of 24 student', async () => {
    const base = example('FSA-1');
    const sixSix = example('SCH-APUS-1');
    const reply = await call(session.client, 'compare_scenarios', {
      base: base.request,
      scenarios: [{ name: 'Drop to 6 credits in Spring', changes: [{ term: 1, credits_enrolled: 6 }] }],
    });
    const [scenario] = reply.structured.scenarios as { result: { reduced_annual_pct: number }; differences: unknown }[];
    expect(scenario!.result.reduced_annual_pct).toBe(sixSix.expected.reduced_annual_pct);
    expect(scenario!.differences).toMatchObject({
      annual: {
        subsidized: {
          base: base.expected.annual_basic_eligibility_sub,
          scenario: sixSix.expected.annual_basic_eligibility_sub,
        },
      },
    });
  });

  it('explain_amount: FSA-4’s Summer equal Subsidized, from what is left after Fall’s payment', async () => {
    const ex = example('FSA-4');
    const reply = await call(session.client, 'explain_amount', {
      request: ex.request,
      path: 'terms[2].equal.subsidized',
    });
    expect(reply.structured.values).toEqual({ 'terms[2].equal.subsidized': ex.expected.terms[2]!.equal.subsidized });
    const ids = (reply.structured.steps as { id: string }[]).map((s) => s.id);
    expect(ids).toEqual(expect.arrayContaining(['remaining.sub', 'annual.sub', 'percentage', 'term[0].closed']));
  });

  it('check_school_figures: FSA-1 with the leftover dollar on the last term', async () => {
    const ex = example('FSA-1');
    const equal = ex.expected.terms.map((t) => t.equal);
    const reply = await call(session.client, 'check_school_figures', {
      request: ex.request,
      school_figures: {
        terms: [
          { sis_sub: equal[1]!.subsidized, sis_unsub: equal[0]!.unsubsidized },
          { sis_sub: equal[0]!.subsidized, sis_unsub: equal[1]!.unsubsidized },
        ],
      },
    });
    expect(reply.structured.check).toMatchObject({ status: 'mismatch', reason: 'remainder_placement' });
  });

  it('reads a resource', async () => {
    const { contents } = await session.client.readResource({ uri: 'sor://limits' });
    expect(JSON.parse((contents[0] as { text: string }).text)).toHaveProperty('award_years');
  });

  it('logs every call by tool and status, and nothing of a student', async () => {
    await call(session.client, 'calculate_loan_limits', TRACER);
    await call(session.client, 'explain_amount', { request: TRACER, path: 'terms[1].equal' });
    await call(session.client, 'check_school_figures', {
      request: TRACER,
      school_figures: { sis_reduced_annual_pct: '74.99', terms: [{ sis_sub: 1555 }, {}] },
    });
    await call(session.client, 'calculate_loan_limits', { ...TRACER, terms: [{ label: 'Herbst-Ξ-Zq7' }] });
    await call(session.client, 'calculate_loan_limits', { ...TRACER, subsidized_amount: 'vier' });
    const log = session.stderr();
    const lines = log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const calls = lines.filter((l) => l.msg === 'mcp: tool call');
    expect(calls.slice(-5).map((l) => [l.tool, l.status])).toEqual([
      ['calculate_loan_limits', 'ok'],
      ['explain_amount', 'ok'],
      ['check_school_figures', 'ok'],
      ['calculate_loan_limits', 'needs_input'],
      ['calculate_loan_limits', 'invalid'],
    ]);
    const allowed = new Set(['level', 'time', 'pid', 'hostname', 'component', 'msg', 'tool', 'status', 'durationMs']);
    for (const line of lines) {
      const keys = Object.keys(line).filter((k) => !allowed.has(k));
      expect(
        keys.every((k) => k === 'transport' || k === 'resource'),
        JSON.stringify(line),
      ).toBe(true);
    }
    // The numbers a line carries of its own (time, pid, duration) left aside, nothing of the requests is there.
    const said = lines.map(({ time: _t, pid: _p, durationMs: _d, ...rest }) => JSON.stringify(rest)).join('\n');
    for (const secret of ['Herbst', 'Frühling', 'Ξ', '4321', '18765', '1555', '74.99', 'vier', 'credits', 'terms']) {
      expect(said, secret).not.toContain(secret);
    }
    expect(log).not.toContain('Herbst');
  });

  it('stops by itself when the assistant closes its stdin', async () => {
    await session.close();
    expect(session.stderr()).toContain('"msg":"mcp: stdin closed, stopping"');
  });
});

describe('sor mcp given a line that is not JSON-RPC', () => {
  it('answers the next message, and logs the bad line by its kind only', async () => {
    const child = spawn(NODE_BIN, ['src/cli/main.ts', 'mcp'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"label":"Zq-Secret-Term"\n',
    );
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stdout).toContain('"id":2');
    expect(stderr).toContain('mcp: a line of stdin is not a JSON-RPC message');
    expect(stderr).not.toContain('Zq-Secret');
  });
});

describe('sor mcp --help', () => {
  it('prints its usage and exits 0', async () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
    const code = await main(['mcp', '--help'], {
      stdin: Readable.from([]),
      stdout,
      stderr: new PassThrough(),
      env: {},
    });
    expect(code).toBe(0);
    expect(text).toMatch(/^Usage: sor mcp/);
    expect(text).toContain('docs/mcp.md');
  });
});
