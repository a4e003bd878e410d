/**
 * explain_amount: the worksheet steps behind a figure, followed back to the inputs. Through the SDK's Client (in
 * memory) for FSA example 1 and the tool's errors; the derivation itself (src/mcp/derivation.ts) over every value
 * of every worked example: exactly one step produced it, every step it rests on is a step of that worksheet, in
 * the worksheet's order, and each term's loan amount is traced back to the percentage or the payments that set it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculateWithTrace } from '../../src/domain/trace.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';
import { derivationOf, resultPaths } from '../../src/mcp/derivation.ts';
import { EXAMPLES, call, example, inProcess, type InProcess } from './helpers.ts';

let mcp: InProcess;
beforeAll(async () => {
  mcp = await inProcess();
});
afterAll(() => mcp.close());

interface Step {
  id: string;
  section: string;
  citation: string;
  formula: string;
  role: string;
}

const fsa1 = () => example('FSA-1');

describe('explain_amount', () => {
  it('FSA-1, Spring’s proportional Subsidized: the split, the annual amount, the percentage, the limit row, cited', async () => {
    const expected = fsa1().expected;
    const reply = await call(mcp.client, 'explain_amount', {
      request: fsa1().request,
      path: 'terms[1].proportional.subsidized',
    });
    expect(reply.structured.status).toBe('ok');
    expect(reply.structured.values).toEqual({
      'terms[1].proportional.subsidized': expected.terms[1]!.proportional!.subsidized,
    });
    expect(reply.structured.produced_by).toEqual(['term[1].proportional.sub']);
    const steps = reply.structured.steps as Step[];
    const ids = steps.map((s) => s.id);
    for (const id of ['term[1].proportional.sub', 'proportional.sub', 'annual.sub', 'percentage', 'base.sub']) {
      expect(ids).toContain(id);
    }
    expect(ids).toContain('base.limit');
    expect(ids).toContain('term[0].credits'); // the weights: Fall's credits are in Σ credits
    expect(ids).not.toContain('annual.unsub');
    expect(ids.at(-1)).toBe('term[1].proportional.sub');
    for (const step of steps) {
      expect(step.citation.length).toBeGreaterThan(0);
      expect(step.role).toBe(step.id === 'term[1].proportional.sub' ? 'produced' : 'rests_on');
    }
    // The figures of the published example: 62.5% → 63%, $2,205 Sub, 9 of the 15 credits.
    const byId = new Map(steps.map((s) => [s.id, s]));
    expect(byId.get('percentage')!.formula).toMatch(/62\.5.*= 63$/);
    expect(byId.get('annual.sub')!.formula).toMatch(/= 2205$/);
    expect(byId.get('term[1].proportional.sub')!.formula).toContain(
      `2205 × 9 ÷ 15 = ${expected.terms[1]!.proportional!.subsidized}`,
    );
  });

  it('explains every value under a part of the result, and reads a leading result. as the result', async () => {
    const reply = await call(mcp.client, 'explain_amount', {
      request: fsa1().request,
      path: 'result.total_proportional',
    });
    expect(reply.structured.values).toEqual({
      'total_proportional.subsidized': fsa1().expected.total_proportional.subsidized,
      'total_proportional.unsubsidized': fsa1().expected.total_proportional.unsubsidized,
      'total_proportional.grad_plus': fsa1().expected.total_proportional.grad_plus,
    });
  });

  it('an unknown path is a tool error at `path` that lists every valid path', async () => {
    const reply = await call(mcp.client, 'explain_amount', {
      request: fsa1().request,
      path: 'terms[2].equal.subsidized',
    });
    expect(reply.isError).toBe(true);
    expect(reply.structured.code).toBe('validation_error');
    const [error] = reply.structured.field_errors as { field: string; message: string }[];
    expect(error!.field).toBe('path');
    expect(error!.message).toMatch(
      /^is not a path of this result; the valid paths are: .*terms\[1\]\.equal\.subsidized/,
    );
    expect(reply.structured.valid_paths).toContain('reduced_annual_pct');
    expect(reply.structured.valid_paths).toContain('terms[1].proportional.subsidized');
  });

  it('a request missing an input answers needs_input under `request.`; a bad call is invalid', async () => {
    const { dependency_status: _d, ...request } = fsa1().request;
    const reply = await call(mcp.client, 'explain_amount', { request, path: 'reduced_annual_pct' });
    expect(reply.structured.status).toBe('needs_input');
    expect(reply.structured.missing).toMatchObject([{ field: 'request.dependency_status' }]);

    const noPath = await call(mcp.client, 'explain_amount', { request: fsa1().request, extra: 1 });
    expect(noPath.isError).toBe(true);
    expect(noPath.structured.field_errors).toEqual([
      { field: 'path', message: 'must be a string: a path of the result' },
      { field: 'extra', message: 'is not an allowed field' },
    ]);
    const noRequest = await call(mcp.client, 'explain_amount', { path: 'reduced_annual_pct' });
    expect(noRequest.isError).toBe(true);
    expect(noRequest.structured.field_errors).toMatchObject([{ field: 'request' }]);
  });
});

describe('the derivation of every value of every worked example', () => {
  it.each(EXAMPLES.map((e) => [e.id, e] as const))('%s', (_id, ex) => {
    const parsed = parseCalculationRequest(ex.request);
    if (!parsed.ok) throw new Error(`${ex.id} does not parse`);
    const { steps } = calculateWithTrace(parsed.value);
    const paths = resultPaths(steps);
    expect(new Set(paths).size).toBe(paths.length);
    for (const path of paths) {
      const { producers, steps: chain } = derivationOf(steps, [path]);
      expect(producers, path).toHaveLength(1);
      expect(chain).toContain(producers[0]);
      // In the worksheet's order, each a step of this worksheet.
      expect(chain.map((s) => steps.indexOf(s))).toEqual([...chain.map((s) => steps.indexOf(s))].sort((a, b) => a - b));
      const ids = chain.map((s) => s.id);
      const term = /^terms\[(\d+)\]\.(equal|proportional)\.(subsidized|unsubsidized|grad_plus)$/.exec(path);
      if (term !== null && producers[0]!.id.startsWith('term[') && !producers[0]!.id.endsWith('.closed')) {
        // A term's amount of an open term rests on its loan's annual amount and the year's percentage.
        const loan = { subsidized: 'sub', unsubsidized: 'unsub', grad_plus: 'grad_plus' }[term[3]!]!;
        expect(ids, path).toContain(`annual.${loan}`);
        expect(ids, path).toContain('percentage');
      }
    }
  });
});
