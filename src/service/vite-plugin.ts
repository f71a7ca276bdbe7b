import { randomBytes } from 'node:crypto';
import type { Plugin } from 'vite';
import { createService, type Service, type ServiceOptions } from './app.ts';
import { serviceOptionsFromEnv, upstreamsFromEnv } from './options.ts';
import { hardenServer, serviceMiddleware } from './node.ts';
import { pageSecurityHeaders } from './security-headers.ts';
import { SPEC_FILES, specValidatorsModule } from './spec-validators.ts';
import { upstreamProxy } from './upstream-proxy.ts';

/**
 * Mounts the reference service into Vite's dev and preview servers, on the console's own
 * origin. The middleware is added directly in the hooks, so it runs before Vite's own
 * middlewares, including the preview server's compression, which would buffer streams.
 * The upstream proxy (`--upstream`) is the console server's own, in front of the service.
 */
export function referenceService(options: ServiceOptions = serviceOptionsFromEnv(), upstreams: string[] = upstreamsFromEnv()): Plugin {
  let service: Service | undefined;
  const get = () => (service ??= createService(options));
  const attach = (server: { httpServer?: import('node:http').Server | import('node:http2').Http2SecureServer | null }) => {
    // Vite's dev server may be HTTP/2 (https); only a plain HTTP/1 server has Node's parser errors to answer.
    if (server.httpServer && 'headersTimeout' in server.httpServer) hardenServer(server.httpServer);
    server.httpServer?.on('close', () => {
      service?.close();
      service = undefined;
    });
  };
  return {
    name: 'reference-service',
    configureServer(server) {
      server.middlewares.use(upstreamProxy(upstreams, options.allowedHosts));
      server.middlewares.use(serviceMiddleware(get()));
      attach(server);
    },
    configurePreviewServer(server) {
      server.middlewares.use(upstreamProxy(upstreams, options.allowedHosts));
      server.middlewares.use(serviceMiddleware(get()));
      attach(server);
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
