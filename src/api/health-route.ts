/**
 * GET /healthz: liveness, always 200 {status: 'ok'} while the process serves HTTP.
 * GET /readyz: readiness; runs every ctx.readiness check in parallel (each bounded by a timeout) and answers 200
 * when all pass, 503 with each check's result when one fails. The probe is anonymous: it answers each check's
 * name and state, never an address, a user or an error message (a check that throws answers `check failed`;
 * its message, redacted, goes to the log).
 */
import { Router } from 'express';
import type { Logger } from 'pino';
import { redactText } from '../redact.ts';
import type { AppContext, ReadinessCheck } from './context.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export const READINESS_TIMEOUT_MS = 3000;

export interface CheckReport {
  name: string;
  ok: boolean;
  detail?: string;
}

async function runCheck(check: ReadinessCheck, timeoutMs: number, logger: Logger): Promise<CheckReport> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckReport>((resolve) => {
    timer = setTimeout(
      () => resolve({ name: check.name, ok: false, detail: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  try {
    const outcome = check.check().then(
      (r): CheckReport => (r.detail === undefined ? { name: check.name, ok: r.ok } : { name: check.name, ...r }),
      (err: unknown): CheckReport => {
        const message = err instanceof Error ? err.message : String(err);
        logger.warn({ check: check.name, err: redactText(message) }, 'readiness check failed');
        return { name: check.name, ok: false, detail: 'check failed' };
      },
    );
    return await Promise.race([outcome, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRouter(ctx: AppContext, timeoutMs = READINESS_TIMEOUT_MS): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({ status: 'ok' });
  });
  router.all('/healthz', methodNotAllowed('GET'));

  router.get('/readyz', async (_req, res) => {
    const checks = await Promise.all(ctx.readiness.map((c) => runCheck(c, timeoutMs, ctx.logger)));
    const ready = checks.every((c) => c.ok);
    res.setHeader('Cache-Control', 'no-store');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks });
  });
  router.all('/readyz', methodNotAllowed('GET'));
  return router;
}
