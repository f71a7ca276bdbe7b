/**
 * `npm run token`: mints a token and prints it alone on stdout, so that
 * `export TOKEN=$(npm run --silent token -- --scope agents.run)` works against the service
 * the user is running, whichever storage it has. A service started with `--memory` keeps
 * its tokens in its own memory, where no other process can write: so the command asks a
 * running reference service to mint (its sandbox route, as the console's panel does), and
 * writes into a data directory only when told to (`--data`) or when no service answers.
 * Where the token was minted goes to stderr, which `$(…)` does not capture.
 */
import { resolve } from 'node:path';
import { isKnownScopeShape } from '../contract/scopes.ts';
import { parseFlags, UsageError } from './flags.ts';
import { portOf } from './options.ts';
import { seedIfEmpty } from './seed.ts';
import { newTokenString, Store } from './store.ts';

export const TOKEN_FLAGS = {
  data: { type: 'string' },
  url: { type: 'string' },
  scope: { type: 'string', multiple: true },
  label: { type: 'string' },
} as const;

/** The sandbox route's bound on a label. */
const MAX_LABEL = 100;

/** How long a service on a default address has to answer before the command mints into the data directory. */
const PROBE_TIMEOUT_MS = 1_500;
const MINT_TIMEOUT_MS = 10_000;

/** Where `npm start` and `npm run service` listen by default; PORT moves both, as it does for them. */
export function defaultServiceUrls(): string[] {
  const ports = process.env.PORT ? [portOf(undefined, 0)] : [5173, 8787];
  return ports.map((p) => `http://127.0.0.1:${p}`);
}

/** True when a reference service answers at `base` (its sandbox info route). */
async function isReferenceService(base: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/sandbox/info', base), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (!res.ok) return false;
    const body = (await res.json()) as { service?: unknown };
    return body.service === 'reference';
  } catch {
    return false;
  }
}

/** Asks the reference service at `base` to mint; its refusal becomes the command's error. */
async function mintAt(base: string, scopes: string[], label: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(new URL('/sandbox/tokens', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scopes, label }),
      signal: AbortSignal.timeout(MINT_TIMEOUT_MS),
    });
  } catch (err) {
    // fetch says "fetch failed"; the reason (connection refused, a timeout) is its cause.
    const why = err instanceof Error && err.cause instanceof Error ? err.cause.message : (err as Error).message;
    throw new Error(`No reference service answered at ${base} (${why}). Start one, or give --data DIR to mint into a data directory.`, { cause: err });
  }
  const text = await res.text();
  if (res.status !== 201) {
    throw new Error(`The service at ${base} did not mint a token: ${res.status} ${text.slice(0, 500)}`);
  }
  const token = (JSON.parse(text) as { token?: unknown }).token;
  if (typeof token !== 'string') throw new Error(`The service at ${base} answered 201 without a token; is it the reference service?`);
  return token;
}

function mintInto(dataDir: string | undefined, scopes: string[], label: string): string {
  const store = new Store({ dataDir });
  try {
    seedIfEmpty(store);
    const value = newTokenString();
    store.addToken(value, { label, scopes });
    return value;
  } finally {
    store.close();
  }
}

export async function tokenCommand(args: string[]): Promise<void> {
  const flags = parseFlags(args, TOKEN_FLAGS);
  const scopes = flags.scope ?? [];
  if (!scopes.length) throw new UsageError('Give at least one --scope, e.g. --scope custommetadata:sales');
  const bad = scopes.filter((s) => !isKnownScopeShape(s));
  if (bad.length) {
    throw new UsageError(`Unknown scope(s): ${bad.join(', ')}. Use custommetadata:global_scope, custommetadata:<group> or agents.run.`);
  }
  if (scopes.length > 20) throw new UsageError('Give at most 20 --scope flags.');
  if (flags.url !== undefined && flags.data !== undefined) {
    throw new UsageError('Give --url (ask the service running there to mint) or --data DIR (write into that data directory), not both.');
  }
  if (flags.label !== undefined && flags.label.length > MAX_LABEL) throw new UsageError(`--label takes at most ${MAX_LABEL} characters.`);
  if (flags.url !== undefined && !/^https?:\/\/[^/]/.test(flags.url)) throw new UsageError(`--url takes the service's base URL, such as http://127.0.0.1:8787; not "${flags.url.slice(0, 80)}".`);
  const fullLabel = `CLI token (${scopes.join(', ')})`;
  const label = flags.label ?? (fullLabel.length > MAX_LABEL ? `${fullLabel.slice(0, MAX_LABEL - 2)}…)` : fullLabel);

  if (flags.url !== undefined) {
    const token = await mintAt(flags.url, scopes, label);
    process.stderr.write(`Minted by the reference service at ${flags.url}.\n`);
    process.stdout.write(`${token}\n`);
    return;
  }
  if (flags.data === undefined) {
    const urls = defaultServiceUrls();
    for (const url of urls) {
      if (!(await isReferenceService(url))) continue;
      const token = await mintAt(url, scopes, label);
      process.stderr.write(`Minted by the reference service running at ${url} (give --url or --data to choose).\n`);
      process.stdout.write(`${token}\n`);
      return;
    }
    const token = mintInto(undefined, scopes, label);
    process.stderr.write(
      `No reference service answered at ${urls.join(' or ')}; minted into ${resolve('.data')}, for a service started on that directory.\n`,
    );
    process.stdout.write(`${token}\n`);
    return;
  }
  process.stdout.write(`${mintInto(flags.data, scopes, label)}\n`);
}
