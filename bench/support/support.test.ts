/**
 * The benchmarks' shared helpers (bench/support), tested beside them: the option parser, the random-file generator,
 * the wrk output reader, and the rule between the two trees: bench/ may use the tests' support (test/support), no
 * test imports bench/.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BenchArgsError, parseBenchArgs, usageText } from './args.ts';
import { RANDOM_FILE_HEADER, randomFilePieces, randomFileText } from './random-file.ts';
import { parseWrkOutput, postScript } from './wrk.ts';
import { readHeader, validateStudentRows } from '../../src/bulk/csv-layout.ts';

const spec = {
  students: { type: 'number', default: 200, help: 'students' },
  prefetch: { type: 'number', default: 0, min: 0, help: 'prefetch' },
  example: { type: 'string', default: 'FSA-4', env: 'BENCH_EXAMPLE', help: 'example' },
  rounds: { type: 'number', default: 3, env: 'BENCH_ROUNDS', help: 'rounds' },
  dist: { type: 'boolean', default: false, help: 'dist' },
} as const;

describe('parseBenchArgs', () => {
  it('gives the defaults, typed', () => {
    expect(parseBenchArgs(spec, [], {})).toEqual({
      help: false,
      students: 200,
      prefetch: 0,
      example: 'FSA-4',
      rounds: 3,
      dist: false,
    });
  });

  it('reads flags (--name value and --name=value), then the environment, then the default', () => {
    const v = parseBenchArgs(spec, ['--students', '2000', '--example=FSA-1', '--dist'], { BENCH_ROUNDS: '1' });
    expect([v.students, v.example, v.dist, v.rounds]).toEqual([2000, 'FSA-1', true, 1]);
    expect(parseBenchArgs(spec, ['--rounds', '5'], { BENCH_ROUNDS: '1' }).rounds).toBe(5);
    expect(parseBenchArgs(spec, ['--prefetch', '0'], {}).prefetch).toBe(0);
    expect(parseBenchArgs(spec, ['--help'], {}).help).toBe(true);
  });

  it('refuses an unknown option, a stray argument and a number out of range instead of running on a default', () => {
    for (const argv of [['--student', '5'], ['5'], ['--students', 'many'], ['--students', '0'], ['--prefetch', '-1']]) {
      expect(() => parseBenchArgs(spec, argv, {}), argv.join(' ')).toThrow(BenchArgsError);
    }
    expect(() => parseBenchArgs(spec, [], { BENCH_ROUNDS: 'x' })).toThrow(/--rounds/);
  });

  it('lists every option with its default and environment variable', () => {
    const text = usageText('bench', spec);
    for (const line of ['--students <number>', '(default 200)', 'env BENCH_EXAMPLE', '--dist']) {
      expect(text).toContain(line);
    }
  });
});

describe('the random file', () => {
  const layout = readHeader(RANDOM_FILE_HEADER.split(','));

  /** Students of a file, as [id, rows] in file order. */
  function students(text: string): [string, string[][]][] {
    const out = new Map<string, string[][]>();
    for (const line of text.split('\n').slice(1)) {
      if (line === '') continue;
      const cells = line.split(',');
      const rows = out.get(cells[0]!) ?? [];
      rows.push(cells);
      out.set(cells[0]!, rows);
    }
    return [...out];
  }

  it('is the same for a seed, different for another, and a prefix of a larger file of the same seed', () => {
    const a = randomFileText({ students: 300, seed: 7 });
    expect(randomFileText({ students: 300, seed: 7 })).toBe(a);
    expect(randomFileText({ students: 300, seed: 8 })).not.toBe(a);
    expect(a.startsWith(`${RANDOM_FILE_HEADER}\n`)).toBe(true);
    expect(a.endsWith('\n')).toBe(true);
    const big = [...randomFilePieces({ students: 12_000, seed: 7 })];
    expect(big.length).toBeGreaterThan(1);
    // The first 300 students are the same whatever the file's size: pieces concatenate to one file.
    expect(big.join('').startsWith(a)).toBe(true);
    expect(big.join('').split('\n').length).toBeGreaterThan(a.split('\n').length);
  });

  it('holds exactly the students asked for, each with 1 to 4 terms, all valid by default', () => {
    const list = students(randomFileText({ students: 500, seed: 3 }));
    expect(list).toHaveLength(500);
    let line = 2;
    for (const [, rows] of list) {
      expect(rows.length).toBeGreaterThanOrEqual(1);
      expect(rows.length).toBeLessThanOrEqual(4);
      const v = validateStudentRows(
        rows,
        rows.map(() => line++),
        layout,
      );
      expect(v.ok ? [] : v.errors).toEqual([]);
    }
  });

  it('makes the asked share of students invalid', () => {
    const list = students(randomFileText({ students: 1000, seed: 3, invalidShare: 0.2 }));
    let invalid = 0;
    for (const [, rows] of list) {
      const v = validateStudentRows(
        rows,
        rows.map((_, i) => i + 2),
        layout,
      );
      if (!v.ok) invalid++;
    }
    // 20% of 1,000 drawn at random: far from 0 and from 1,000.
    expect(invalid).toBeGreaterThan(120);
    expect(invalid).toBeLessThan(280);
    expect(
      students(randomFileText({ students: 50, seed: 3, invalidShare: 1 })).every(([, r]) => r[0]![3] === '-3'),
    ).toBe(true);
  });
});

describe("wrk's output and script (bench:single's second load generator)", () => {
  const output = [
    'Running 3s test @ http://127.0.0.1:40000/v1/calculate',
    '  1 threads and 32 connections',
    '  Thread Stats   Avg      Stdev     Max   +/- Stdev',
    '    Latency     2.27ms    5.14ms  63.18ms   96.72%',
    '    Req/Sec    21.79k    10.38k   36.73k    70.00%',
    '  Latency Distribution',
    '     50%  870.00us',
    '     75%    2.11ms',
    '     90%    3.03ms',
    '     99%    1.20s',
    '  64926 requests in 3.00s, 164.58MB read',
    '  Socket errors: connect 0, read 2, write 1, timeout 0',
    '  Non-2xx or 3xx responses: 7',
    'Requests/sec:  21641.93',
    'Transfer/sec:     54.85MB',
    '',
  ].join('\n');

  it('reads requests, duration, rate, the p50 and p99 latencies in ms and every kind of error', () => {
    expect(parseWrkOutput(output)).toEqual({
      requests: 64926,
      seconds: 3,
      errors: 10,
      rps: 21641.93,
      p50Ms: 0.87,
      p99Ms: 1200,
    });
    const clean = output.replace(/ {2}Socket errors.*\n {2}Non-2xx.*\n/, '');
    expect(parseWrkOutput(clean).errors).toBe(0);
  });

  it('refuses output without the figures (wrk run without --latency, or failing)', () => {
    expect(() => parseWrkOutput(output.replace(/ {2}Latency Distribution[\s\S]*?99%.*\n/, ''))).toThrow(/unexpected/);
    expect(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused')).toThrow(/unexpected/);
  });

  it('writes a POST script whose long bracket the body cannot close', () => {
    const body = '{"label":"a]]b]=]c"}';
    const script = postScript(body);
    expect(script).toContain('wrk.method = "POST"');
    expect(script).toContain('wrk.headers["Content-Type"] = "application/json"');
    expect(script).toContain(`wrk.body = [==[${body}]==]`);
  });
});

describe('no test imports bench/', () => {
  const TEST = new URL('../../test/', import.meta.url);
  function files(dir: URL, prefix = ''): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? files(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`)
        : e.name.endsWith('.ts')
          ? [`${prefix}${e.name}`]
          : [],
    );
  }

  it('no import or dynamic import under test/ points into bench/', () => {
    const list = files(TEST);
    expect(list).toContain('support/prng.ts');
    const offending: string[] = [];
    for (const file of list) {
      const text = readFileSync(new URL(file, TEST), 'utf8');
      for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)) {
        const resolved = new URL(m[1]!, new URL(file, TEST)).pathname;
        if (m[1]!.startsWith('.') && resolved.includes('/bench/')) offending.push(`test/${file}: ${m[1]}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
