/**
 * callback_url at the job door: read from the query or the multipart fields, once in all; checked by the
 * webhooks when they exist and refused (400, naming why) when they do not; without one the job takes the
 * deployment's WEBHOOK_URL.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import {
  checkedCallback,
  fieldCallback,
  jobCallback,
  queryCallback,
  type CallbackDoor,
} from '../../src/api/job-callback.ts';

const door = (deploymentUrl: string | null): CallbackDoor => ({
  deploymentUrl,
  checkCallback: async (url) => `checked:${url}`,
  register: async () => undefined,
});

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('callback_url at the job door', () => {
  it('reads the query parameter, and refuses it repeated', () => {
    expect(queryCallback({ query: {} })).toBeUndefined();
    expect(queryCallback({ query: { callback_url: 'https://a.example/x' } })).toBe('https://a.example/x');
    const twice = refusal(() => queryCallback({ query: { callback_url: ['https://a', 'https://b'] } }));
    expect(twice.status).toBe(400);
    expect(twice.message).toBe(
      'callback_url is given more than once; give it once, as a query parameter or as a form field',
    );
    expect(twice.fieldErrors).toEqual([
      { field: 'callback_url', message: expect.stringMatching(/^is given more than once/) },
    ]);
  });

  it('reads the form field, and refuses it repeated or given with the query parameter', () => {
    const one = new Map([['callback_url', ['https://a.example/x']]]);
    expect(fieldCallback(new Map(), undefined)).toBeUndefined();
    expect(fieldCallback(one, undefined)).toBe('https://a.example/x');
    expect(refusal(() => fieldCallback(one, 'https://b.example/y')).status).toBe(400);
    expect(
      refusal(() => fieldCallback(new Map([['callback_url', ['https://a', 'https://b']]]), undefined)).status,
    ).toBe(400);
  });

  it('has the webhooks check a callback, and refuses any without them (no WEBHOOK_SECRET)', async () => {
    expect(await checkedCallback(door(null), 'https://a.example/x')).toBe('checked:https://a.example/x');
    const refused = (await checkedCallback(undefined, 'https://a.example/x').catch((e: unknown) => e)) as AppError;
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/^callback_url cannot be used: this service has no WEBHOOK_SECRET/);
  });

  it("gives a job its own callback, else the deployment's, else none", () => {
    expect(jobCallback(door('https://etl.example.edu/sor'), 'https://a.example/x')).toBe('https://a.example/x');
    expect(jobCallback(door('https://etl.example.edu/sor'), undefined)).toBe('https://etl.example.edu/sor');
    expect(jobCallback(door(null), undefined)).toBeNull();
    expect(jobCallback(undefined, undefined)).toBeNull();
  });
});
