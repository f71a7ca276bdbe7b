import { getRequestListener, serve } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SERVICE_PREFIXES, type Service } from './app.ts';

export type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export function isServicePath(url: string | undefined): boolean {
  return SERVICE_PREFIXES.some((p) => (url ?? '').startsWith(p));
}

/** A connect-style middleware that answers the service's paths and passes the rest on. */
export function serviceMiddleware(service: Service): Middleware {
  const listener = getRequestListener(service.app.fetch);
  return (req, res, next) => {
    if (isServicePath(req.url)) void listener(req, res);
    else next();
  };
}

/** Serves the service alone on `host:port` (port 0 picks a free one). */
export function listen(service: Service, port: number, host = '127.0.0.1'): Promise<{ url: string; close(): Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: service.app.fetch, port, hostname: host }, (info: AddressInfo) => {
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
  });
}
