/**
 * The dashboard's own HTTP listener when ADMIN_PORT is set: /admin/queues is then served on that port only (not
 * on the API's port), so a deployment can publish the API and keep the dashboard on a port it never exposes
 * (reached with `kubectl port-forward` or an SSH tunnel). Everything else on this port is 404.
 */
import { createServer, type Server } from 'node:http';
import express from 'express';
import type { Router } from 'express';
import { appError } from '../errors.ts';
import { errorMiddleware, sendError } from './error-envelope.ts';
import { ROUTER_OPTIONS } from './routing.ts';

export interface AdminListener {
  /** The bound port (ADMIN_PORT, or the ephemeral port chosen for 0). */
  readonly port: number;
  close(): Promise<void>;
}

export async function startAdminListener(router: Router, host: string, port: number): Promise<AdminListener> {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', ROUTER_OPTIONS.caseSensitive);
  app.set('strict routing', ROUTER_OPTIONS.strict);
  app.use(router);
  app.use((_req, res) => sendError(res, appError('NOT_FOUND')));
  app.use(errorMiddleware);
  const server: Server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
