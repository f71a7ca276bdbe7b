/** Where the e2e servers listen; playwright.config.ts starts them, the specs talk to them. */

/** The console with its own reference service mounted (default rate limit). */
export const CONSOLE_PORT = Number(process.env.E2E_PORT ?? 4321);

/** A second reference service, alone, that the console's server forwards to (`--upstream`). */
export const UPSTREAM_PORT = Number(process.env.E2E_UPSTREAM_PORT ?? 4322);
export const UPSTREAM_ORIGIN = `http://127.0.0.1:${UPSTREAM_PORT}`;
/** Requests a minute per token on the upstream: low, so a few refetches show a 429. */
export const UPSTREAM_RATE_LIMIT = 5;

/** A reference service alone with durable-run deadlines of seconds, for the expiry test; the console reaches it directly (CORS). */
export const DURABLE_PORT = Number(process.env.E2E_DURABLE_PORT ?? 4323);
export const DURABLE_TIMEOUT_MS = 2_000;
export const DURABLE_GRACE_MS = 1_000;
