/** An Express app of a test served on an ephemeral loopback port, and its stop. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';

export interface Started {
  base: string;
  server: Server;
}

export async function listen(app: express.Express): Promise<Started> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function stop(s: Started | undefined): Promise<void> {
  if (s === undefined) return;
  s.server.closeAllConnections();
  await new Promise<void>((resolve) => s.server.close(() => resolve()));
}
