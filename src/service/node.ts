import { getRequestListener, serve } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SERVICE_PREFIXES, type Service } from './app.ts';

/**
 * The app's fetch for node-server. A stream writes its head to the socket itself and
 * returns node-server's already-sent marker, but Hono copies a returned response once
 * anything has read `c.res`, and node-server's own `Response` class then takes a path
 * that ignores the marker and writes the head again (ERR_HTTP_HEADERS_SENT: the stream
 * is cut short by an error text). So the marker itself goes back once the head is out.
 */
function nodeFetch(service: Service) {
  return async (req: Request, env: { outgoing: { headersSent: boolean } }): Promise<Response> => {
    const res = await service.app.fetch(req, env);
    return env.outgoing.headersSent ? RESPONSE_ALREADY_SENT : res;
  };
}

export type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export function isServicePath(url: string | undefined): boolean {
  return SERVICE_PREFIXES.some((p) => (url ?? '').startsWith(p));
}

/** A connect-style middleware that answers the service's paths and passes the rest on. */
export function serviceMiddleware(service: Service): Middleware {
  const listener = getRequestListener(nodeFetch(service));
  return (req, res, next) => {
    if (isServicePath(req.url)) void listener(req, res);
    else next();
  };
}

/** Serves the service alone on `host:port` (port 0 picks a free one). */
export function listen(service: Service, port: number, host = '127.0.0.1'): Promise<{ url: string; close(): Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: nodeFetch(service), port, hostname: host }, (info: AddressInfo) => {
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
