// Loaded with `--import` into every process of the Node 24 test pass (scripts/node24/run.mjs sets
// NODE_OPTIONS): the project's better-sqlite3 is resolved to a copy built for this Node's ABI.
// node_modules holds one build, made by `npm ci` for the machine's Node (20), which Node 24
// refuses to load; the machine's Node keeps using it while this pass runs beside it. Only the
// test pass is redirected: the product imports 'better-sqlite3' as always, and on a machine whose
// `npm ci` ran under Node 24 it loads that build.
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';

const from = process.env.NODE24_BETTER_SQLITE3_FROM;
const to = process.env.NODE24_BETTER_SQLITE3_TO;
if (!from || !to || typeof registerHooks !== 'function' || !existsSync(`${to}/build/Release/better_sqlite3.node`)) {
  throw new Error(
    `scripts/node24/resolve-hooks.mjs: this process (Node ${process.version}) is not set up for the Node 24 test pass: ` +
      'run it through scripts/node24/run.mjs, which prepares the Node 24 build of better-sqlite3 first.',
  );
}
const fromUrl = pathToFileURL(from).href + '/';
const toUrl = pathToFileURL(to).href + '/';

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    return resolved.url.startsWith(fromUrl) ? { ...resolved, url: toUrl + resolved.url.slice(fromUrl.length) } : resolved;
  },
});
