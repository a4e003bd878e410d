/**
 * 405 for a known path asked with a method it does not serve (with the Allow header), and 204 for OPTIONS.
 * Mount it with `router.all(path, methodNotAllowed('POST'))` AFTER the path's real handlers.
 */
import type { RequestHandler } from 'express';
import { appError } from '../errors.ts';
import { sendError } from './error-envelope.ts';

export function methodNotAllowed(...methods: string[]): RequestHandler {
  const allowed = [...new Set([...methods.map((m) => m.toUpperCase()), 'OPTIONS'])];
  if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
  const allow = allowed.join(', ');
  return (req, res) => {
    res.setHeader('Allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    sendError(res, appError('METHOD_NOT_ALLOWED', { method: req.method, allow }));
  };
}
