/** Random mutations of a valid bulk CSV file, shared by the fuzz tests (fast-check arbitraries). */
import fc from 'fast-check';

export type Mutation =
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; count: number }
  | { kind: 'duplicateLine'; line: number; to: number }
  | { kind: 'moveLine'; line: number; to: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'crlf' }
  | { kind: 'bom' }
  | { kind: 'semicolons'; line: number }
  | { kind: 'bigCell'; line: number; quoted: boolean };

const INSERTS = [
  '"',
  '""',
  ',',
  '\n',
  '\r\n',
  '\n\n',
  ',,,,\n',
  '\uFEFF',
  '=cmd|" /C calc"!A0',
  '+1',
  '@SUM(A1:A2)',
  '\t',
  "'",
  '\u00e9',
  '"x"y',
];

export function applyMutation(text: string, m: Mutation): string {
  const lines = text.split('\n');
  const pos = (f: number) => Math.floor(f * (text.length + 1)) % (text.length + 1);
  switch (m.kind) {
    case 'insert': {
      const at = pos(m.at);
      return text.slice(0, at) + m.text + text.slice(at);
    }
    case 'delete': {
      const at = pos(m.at);
      return text.slice(0, at) + text.slice(at + m.count);
    }
    case 'duplicateLine':
    case 'moveLine': {
      if (lines.length < 3) return text;
      const i = 1 + (m.line % (lines.length - 1));
      const line = lines[i]!;
      if (m.kind === 'moveLine') lines.splice(i, 1);
      lines.splice(1 + (m.to % (lines.length - 1)), 0, line);
      return lines.join('\n');
    }
    case 'truncate':
      return text.slice(0, Math.max(1, pos(m.at)));
    case 'crlf':
      return text.replaceAll('\n', '\r\n');
    case 'bom':
      return `\uFEFF${text}`;
    case 'semicolons': {
      const i = 1 + (m.line % Math.max(1, lines.length - 1));
      if (lines[i] !== undefined) lines[i] = lines[i]!.replaceAll(',', ';');
      return lines.join('\n');
    }
    case 'bigCell': {
      const i = 1 + (m.line % Math.max(1, lines.length - 1));
      const big = 'B'.repeat(1024 * 1024);
      if (lines[i] !== undefined) {
        const cells = lines[i]!.split(',');
        cells[1] = m.quoted ? `"${big},"` : big;
        lines[i] = cells.join(',');
      }
      return lines.join('\n');
    }
  }
}

const unit = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('insert' as const), at: unit, text: fc.constantFrom(...INSERTS) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), at: unit, count: fc.integer({ min: 1, max: 5 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('duplicateLine' as const), line: fc.nat(), to: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('moveLine' as const), line: fc.nat(), to: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: unit }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crlf' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bom' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('semicolons' as const), line: fc.nat() }) },
);
