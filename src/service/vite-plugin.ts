import { randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Connect, Plugin } from 'vite';
import { createService, type Service, type ServiceOptions } from './app.ts';
import { refuse } from './families.ts';
import { recordDirFromEnv, serviceOptionsFromEnv, upstreamProxyOptionsFromEnv, upstreamsFromEnv } from './options.ts';
import { Recorder } from './recorder.ts';
import type { Middleware } from './middleware.ts';
import { hardenServer, serviceMiddleware } from './node.ts';
import { isAllowedHost } from './request-guard.ts';
import { pageSecurityHeaders } from './security-headers.ts';
import { SPEC_FILES, specValidatorsModule } from './spec-validators.ts';
import { REFUSALS, UPSTREAM_PREFIX, upstreamProxy, type UpstreamProxyOptions } from './upstream-proxy.ts';

/** `--record DIR` of `npm start`, passed through the environment. */
function recorderFromEnv(): { recorder?: Recorder } {
  const dir = recordDirFromEnv();
  return dir ? { recorder: new Recorder(dir) } : {};
}

/** A Vite headers setting as plain strings. */
function stringHeaders(headers: OutgoingHttpHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

/** The API path a request is for: after `/upstream/<host>` for the proxy, else the path itself. */
function apiPathOf(url: string): string {
  if (!url.startsWith(UPSTREAM_PREFIX)) return url;
  const slash = url.indexOf('/', UPSTREAM_PREFIX.length);
  return slash < 0 ? '/' : url.slice(slash);
}

/**
 * The console server's front door, ahead of everything Vite does: every answer (pages, API,
 * refusals) carries the page security headers, and the Host is checked as the service checks
 * it (loopback names and --allowed-host, ignoring case), refusing in the family of the path
 * asked for. Vite's own host check comes after; it compares names case-sensitively, so the
 * name goes on in lower case.
 */
function frontDoor(allowedHosts: readonly string[], headers: Readonly<Record<string, string>>): Middleware {
  const entries = Object.entries(headers);
  return (req, res, next) => {
    for (const [k, v] of entries) res.setHeader(k, v);
    const host = req.headers.host;
    if (!isAllowedHost(host, allowedHosts)) {
      void refuse(req, res, apiPathOf(req.url ?? '/'), {
        ...REFUSALS.hostNotAllowed,
        detail: `This console's server answers only on loopback names (localhost, 127.0.0.1, [::1]) or those given with --allowed-host; not "${host ?? ''}".`,
      });
      return;
    }
    req.headers.host = host!.toLowerCase();
    next();
  };
}

/**
 * Mounts the reference service into Vite's dev and preview servers, on the console's own
 * origin. The middleware is added directly in the hooks, so it runs before Vite's own
 * middlewares, including the preview server's compression, which would buffer streams.
 * The upstream proxy (`--upstream`) is the console server's own, in front of the service.
 */
export function referenceService(
  options: ServiceOptions = serviceOptionsFromEnv(),
  upstreams: string[] = upstreamsFromEnv(),
  proxy: Pick<UpstreamProxyOptions, 'timeoutMs' | 'recorder'> = { ...upstreamProxyOptionsFromEnv(), ...recorderFromEnv() },
): Plugin {
  let service: Service | undefined;
  const get = () => (service ??= createService(options));
  const allowedHosts = options.allowedHosts ?? [];
  const mount = (
    server: { middlewares: Connect.Server; httpServer?: import('node:http').Server | import('node:http2').Http2SecureServer | null },
    headers: Record<string, string>,
  ) => {
    server.middlewares.stack.unshift({ route: '', handle: frontDoor(allowedHosts, headers) as Connect.NextHandleFunction });
    server.middlewares.use(upstreamProxy(upstreams, { ...proxy, allowedHosts, headers }));
    server.middlewares.use(serviceMiddleware(get()));
    // The service's own origins are where this server listens (the console's origin), said once it does.
    const httpServer = server.httpServer;
    const listening = () => {
      const address = httpServer?.address();
      if (address && typeof address === 'object') get().ownOrigins.listening(address.address, address.port);
    };
    if (httpServer?.listening) listening();
    else httpServer?.on('listening', listening);
    // Vite's dev server may be HTTP/2 (https); only a plain HTTP/1 server has Node's parser errors to answer.
    if (server.httpServer && 'headersTimeout' in server.httpServer) hardenServer(server.httpServer, {}, headers);
    server.httpServer?.on('close', () => {
      service?.close();
      service = undefined;
    });
  };
  return {
    name: 'reference-service',
    // Names given with --allowed-host pass Vite's own host check too.
    config: () => ({ server: { allowedHosts: [...allowedHosts] }, preview: { allowedHosts: [...allowedHosts] } }),
    configureServer(server) {
      mount(server, stringHeaders(server.config.server.headers));
    },
    configurePreviewServer(server) {
      mount(server, stringHeaders(server.config.preview.headers));
    },
    // Vite's stop (its SIGTERM handler, or cli.ts on Ctrl+C) waits for this before the process
    // exits: the exchanges still being recorded and written are finished first (bounded).
    async closePreviewServer() {
      await proxy.recorder?.settle();
    },
  };
}

/**
 * The console's pages carry the security headers of security-headers.ts, in `npm run dev`
 * and `npm start` (Vite's preview server) alike. Separate from the service plugin: the
 * Vitest browser project mounts the service but runs its own test page, inline scripts and all.
 */
export function pageSecurity(): Plugin {
  return {
    name: 'page-security-headers',
    config(_config, { command, isPreview }) {
      if (command !== 'serve' || isPreview) return { preview: { headers: pageSecurityHeaders() } };
      // The dev server injects inline scripts (React Refresh's preamble) and styles; Vite marks
      // each with this nonce, new at every start. Builds have no inline code and need none.
      const nonce = randomBytes(18).toString('base64');
      return { server: { headers: pageSecurityHeaders({ dev: { nonce } }) }, html: { cspNonce: nonce } };
    },
  };
}

const VALIDATORS_ID = 'virtual:spec-lens-validators';

/**
 * `virtual:spec-lens-validators`: the spec lens's validators as Ajv standalone code, compiled
 * from src/contract/spec when the module is first asked for (build, dev server, tests), so
 * the page never compiles code and its policy needs no 'unsafe-eval'.
 */
export function specLensValidators(): Plugin {
  const resolved = `\0${VALIDATORS_ID}`;
  return {
    name: 'spec-lens-validators',
    resolveId(id) {
      return id === VALIDATORS_ID ? resolved : undefined;
    },
    load(id) {
      if (id !== resolved) return undefined;
      for (const file of SPEC_FILES) this.addWatchFile(file);
      return specValidatorsModule();
    },
  };
}
