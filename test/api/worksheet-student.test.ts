/**
 * The student on the worksheet (POST /v1/calculate/worksheet's `student`): validated with its own 422 paths, printed
 * in the summary, the HTML and the PDF, and in the PDF's file name; never in a log line, whatever the answer
 * (200 in every format, 422, 406); refused by POST /v1/calculate as an unknown field.
 */
import { getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { filenamePart, worksheetPdfFilename } from '../../src/api/worksheet/headers.ts';
import { closePdfPool } from '../../src/api/worksheet/pdf-pool.ts';
import { WorksheetSchema } from '../../src/schema/worksheet.ts';
import { type TestServer, fieldPaths, postJson, startTestServer } from './helpers.ts';

const URL_PATH = '/v1/calculate/worksheet';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  await closePdfPool();
});

/** FSA example 1 for award year 2026-27, with `student` when given. */
function body(student?: unknown): Record<string, unknown> {
  const request = structuredClone(WORKED_EXAMPLES.find((e) => e.id === 'FSA-1')!.request) as Record<string, unknown>;
  return { ...request, award_year: '2026-27', ...(student === undefined ? {} : { student }) };
}

async function post(payload: unknown, accept = 'application/json') {
  const res = await fetch(`${server.base}${URL_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(payload),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const json = (bytes: Buffer) => JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;

async function pdfText(bytes: Buffer): Promise<string> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const parts: string[] = [];
  for (let p = 1; p <= pdf.numPages; p++) {
    for (const item of (await (await pdf.getPage(p)).getTextContent()).items) if ('str' in item) parts.push(item.str);
  }
  await pdf.destroy();
  return parts.join(' ');
}

describe('the student on the worksheet', () => {
  it('is trimmed and returned in summary.student; absent, the summary says null', async () => {
    const named = await post(body({ name: '  Ana Díaz ', id: 'A00123456' }));
    expect(named.status).toBe(200);
    expect(WorksheetSchema.parse(json(named.bytes)).summary.student).toEqual({ name: 'Ana Díaz', id: 'A00123456' });
    const idOnly = WorksheetSchema.parse(json((await post(body({ id: 'A00123456' }))).bytes));
    expect(idOnly.summary.student).toEqual({ name: null, id: 'A00123456' });
    const none = WorksheetSchema.parse(json((await post(body())).bytes));
    expect(none.summary.student).toBeNull();
    expect(WorksheetSchema.parse(json((await post(body({}))).bytes)).summary.student).toBeNull();
  });

  it('is printed on the HTML and the PDF worksheets', async () => {
    const html = (await post(body({ name: 'Ana Díaz', id: 'A00123456' }), 'text/html')).bytes.toString('utf8');
    expect(html).toContain('Ana Díaz');
    expect(html).toContain('A00123456');
    const pdf = await post(body({ name: 'Ana Díaz', id: 'A00123456' }), 'application/pdf');
    const text = await pdfText(pdf.bytes);
    expect(text).toContain('Ana Díaz');
    expect(text).toContain('A00123456');
  });

  it('names the PDF worksheet-<id, else name>-<award year>.pdf', async () => {
    const disposition = async (student?: unknown) =>
      (await post(body(student), 'application/pdf')).headers.get('content-disposition');
    expect(await disposition({ name: 'Ana Díaz', id: 'A00123456' })).toBe(
      'inline; filename="worksheet-A00123456-2026-27.pdf"',
    );
    expect(await disposition({ name: 'Ana Díaz' })).toBe('inline; filename="worksheet-Ana-Diaz-2026-27.pdf"');
    expect(await disposition()).toBe('inline; filename="worksheet-2026-27.pdf"');
  });

  it('file names keep safe characters only', () => {
    expect(filenamePart('Ana Díaz')).toBe('Ana-Diaz');
    expect(filenamePart('../../etc/passwd')).toBe('etc-passwd');
    expect(filenamePart('"; filename=x.exe')).toBe('filename-x.exe');
    expect(filenamePart('王小明')).toBe('');
    const file = (student: { name: string | null; id: string | null } | null) =>
      worksheetPdfFilename({ student, award_year: '2026-27' });
    expect(file({ name: 'Zoë O’Brien', id: '王' })).toBe('worksheet-Zoe-O-Brien-2026-27.pdf');
    expect(file({ name: '王小明', id: null })).toBe('worksheet-2026-27.pdf');
    expect(file(null)).toBe('worksheet-2026-27.pdf');
  });
});

describe('validation of student (422 at student.<field>, the value never repeated)', () => {
  const cases: [string, unknown, string][] = [
    ['an empty name', { name: '   ' }, 'student.name'],
    ['a name of 101 characters', { name: 'a'.repeat(101) }, 'student.name'],
    ['a control character', { id: 'A001\u0007' }, 'student.id'],
    ['a line break', { name: 'Ana\nDíaz' }, 'student.name'],
    ['a number', { id: 123456 }, 'student.id'],
    ['null for a name', { name: null }, 'student.name'],
    ['an unknown key', { name: 'Ana', ssn: '000-00-0000' }, 'student.ssn'],
    ['null', null, 'student'],
    ['a string', 'Ana Díaz', 'student'],
  ];
  for (const [what, student, path] of cases) {
    it(`${what} → 422 at ${path}`, async () => {
      const res = await post(body(student));
      expect(res.status).toBe(422);
      const envelope = json(res.bytes);
      expect(envelope.code).toBe('validation_error');
      expect(fieldPaths(envelope)).toEqual([path]);
      const values = student !== null && typeof student === 'object' ? Object.values(student) : [student];
      for (const value of values) {
        if (value === null || String(value).trim() === '') continue;
        expect(res.bytes.toString('utf8')).not.toContain(JSON.stringify(String(value)).slice(1, -1));
      }
    });
  }

  it('100 characters counted as a person sees them (astral letters are one each) are accepted', async () => {
    const name = '𝔸'.repeat(100); // 200 UTF-16 units
    const res = await post(body({ name }));
    expect(res.status).toBe(200);
    expect(WorksheetSchema.parse(json(res.bytes)).summary.student?.name).toBe(name);
  });

  it('is reported with the request’s own errors', async () => {
    const bad = { ...body({ nickname: 'Ana' }), terms: [{ label: 'Fall', full_time_credits: 0, credits_enrolled: 6 }] };
    const res = await post(bad);
    expect(res.status).toBe(422);
    expect(fieldPaths(json(res.bytes))).toEqual(['terms[0].full_time_credits', 'student.nickname']);
  });

  it('POST /v1/calculate still refuses student as an unknown field', async () => {
    const res = await postJson(server.base, body({ name: 'Ana Díaz' }));
    expect(res.status).toBe(422);
    expect(fieldPaths(res.json)).toEqual(['student']);
  });
});

describe('never logged', () => {
  const NAME = 'Quillonette Marchbanks';
  const ID = 'SID-90817263';

  it('no log line holds the name or the id, for answers in every format and for errors', async () => {
    const before = server.logs.length;
    const student = { name: NAME, id: ID };
    expect((await post(body(student))).status).toBe(200);
    expect((await post(body(student), 'text/html')).status).toBe(200);
    expect((await post(body(student), 'application/pdf')).status).toBe(200);
    expect((await post(body(student), 'text/csv')).status).toBe(406);
    expect((await post({ ...body(student), terms: [] })).status).toBe(422);
    expect((await post(body({ ...student, extra: NAME }))).status).toBe(422);
    expect((await postJson(server.base, body(student))).status).toBe(422);
    const lines = server.logs.slice(before);
    // One line per request, each with its status: the log was written, and it holds neither.
    const statuses = lines.map((l) => (JSON.parse(l) as { res?: { statusCode?: number } }).res?.statusCode);
    expect(statuses).toEqual([200, 200, 200, 406, 422, 422, 422]);
    for (const line of lines) {
      expect(line).not.toContain(NAME);
      expect(line).not.toContain('Quillonette');
      expect(line).not.toContain(ID);
    }
  });
});
