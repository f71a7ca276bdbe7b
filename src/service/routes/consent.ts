import { Hono, type Context } from 'hono';
import { bodyLimit } from '../body-limit.ts';
import { CONSENT_PATH, TOOL_AUTH_RESULT_PARAMS } from '../../contract/tool-servers.ts';
import type { AgentCatalog } from '../agents.ts';
import { closeAfterTooLarge, type Env } from '../http.ts';
import { REDACTED } from '../recording.ts';
import type { Store } from '../store.ts';
import { CONSENT_TTL_MS, type ConsentRequest, type ToolAuthorizations } from '../tool-auth.ts';
import type { OwnOrigins } from '../own-origins.ts';
import { returnOrigins } from './tool-servers.ts';

/**
 * The sandbox's stand-in for a tool's OAuth provider (reference service only): the page an
 * `authorizationUrl` leads to, with Allow and Deny. The browser arrives here by navigation,
 * from whichever console asked (so not under the sandbox routes' same-origin rule) and
 * without the token: the one-time `state` names the request the token made. The decision is
 * a form POST to this same page; it goes back to `returnUrl` with the result in its query.
 */

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

const STYLESHEET_PATH = `${CONSENT_PATH}.css`;

/** Plain, legible, and the same in light and dark: the page has no script and no inline style. */
const STYLESHEET = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; padding: 1.5rem 1rem; }
main { max-width: 34rem; margin: 0 auto; }
.sandbox { font-size: .875rem; padding: .5rem .75rem; border: 1px dashed; border-radius: .375rem; }
h1 { font-size: 1.5rem; line-height: 1.25; overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; margin: 1.5rem 0 1rem; }
button { font: inherit; padding: .5rem 1.25rem; border-radius: .375rem; border: 1px solid; cursor: pointer; min-height: 2.75rem; }
button[value="allow"] { background: #1d4ed8; border-color: #1d4ed8; color: #fff; }
.hint { font-size: .875rem; opacity: .8; }
`;

/**
 * The page's own policy: nothing but its stylesheet, and its form may post to itself and be
 * redirected to the console it returns to (Chromium checks form-action on the redirect too).
 */
function pageHeaders(returnOrigin?: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; style-src 'self'; form-action 'self'${returnOrigin ? ` ${returnOrigin}` : ''}; frame-ancestors 'none'; base-uri 'none'`,
    // Its own form's POST says where it comes from (a no-referrer page posts with `Origin: null`);
    // nothing goes to another origin, the state in this page's address included.
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Reference service sandbox</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<main>
<p class="sandbox">Reference service sandbox: this page stands in for the tool's own sign-in and consent page.</p>
${body}
</main>
</body>
</html>
`;
}

/**
 * A consent link replayed from a recording (docs/recording.md): a recording never keeps a
 * link's state, so the link it hands out works nowhere; this says so rather than "expired".
 */
function recordedLink(c: Context<Env>): Response {
  const body = page(
    'This consent link comes from a recording',
    `<h1>This consent link comes from a recording</h1>
<p>A recording never keeps a consent link's state, so a link answered by a replay works on no service. Nothing was changed.</p>
<p>To authorize the tool server, choose <strong>Authorize</strong> in a console connected to the instance itself.</p>`,
  );
  return c.body(body, 400, pageHeaders());
}

/** A consent link that no longer works: spent, expired, or never made. Nothing to return to: its returnUrl is unknown. */
function staleLink(c: Context<Env>, state: string): Response {
  if (state === REDACTED) return recordedLink(c);
  const body = page(
    'This consent link no longer works',
    `<h1>This consent link no longer works</h1>
<p>It was already used, or it is older than ${CONSENT_TTL_MS / 60_000} minutes, or it was never issued by this service. Nothing was changed.</p>
<p>Go back to the console and choose <strong>Authorize</strong> again for a new link.</p>`,
  );
  return c.body(body, 400, pageHeaders());
}

function refusal(c: Context<Env>, status: 400 | 403 | 415, text: string): Response {
  return c.body(page('Request refused', `<h1>Request refused</h1>\n<p>${escapeHtml(text)}</p>`), status, pageHeaders());
}

/** The decision goes back to returnUrl in its query, replacing earlier results; the rest of the address is kept. */
export function returnAddress(request: ConsentRequest, allowed: boolean): string {
  const url = new URL(request.returnUrl);
  const p = TOOL_AUTH_RESULT_PARAMS;
  for (const name of Object.values(p)) url.searchParams.delete(name);
  url.searchParams.set(p.result, allowed ? 'success' : 'error');
  url.searchParams.set(p.serverId, request.serverId);
  if (!allowed) url.searchParams.set(p.error, 'access_denied');
  return url.href;
}

/**
 * Only this page's own form may post a decision: a browser says where a POST comes from
 * (Sec-Fetch-Site, Origin), and a page of another site must not make the choice for the user.
 * The page is on one of the service's own origins, from what it listens on (or on one the
 * operator allowed, such as a proxy in front of it): never on the origin a request names.
 */
function crossSiteProblem(c: Context<Env>, origins: readonly string[]): string | undefined {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'A decision can be sent only from the consent page itself.';
  const origin = c.req.header('origin');
  // `null` is what a page that sends no referrer posts with; only the browser's word that the post is same-origin vouches for it then.
  if (origin === 'null' && site === 'same-origin') return undefined;
  if (origin !== undefined && !origins.includes(origin.toLowerCase())) return `A decision cannot be sent from ${origin}.`;
  return undefined;
}

export interface ConsentRoutesOptions {
  /** The service's own origins (own-origins.ts). */
  ownOrigins: OwnOrigins;
  /** `--allowed-return-origin`. */
  allowedReturnOrigins: readonly string[];
}

export function consentRoutes(store: Store, catalog: AgentCatalog, auth: ToolAuthorizations, options: ConsentRoutesOptions) {
  /**
   * A returnUrl is checked when its link is made; checked again before the page offers it or a
   * decision goes there, so a link made before a restart on another port or with other
   * allowed origins never sends the browser where the service no longer returns to.
   */
  const origins = () => returnOrigins(options.ownOrigins, options.allowedReturnOrigins);
  const returnAllowed = (request: ConsentRequest) => origins().includes(new URL(request.returnUrl).origin);
  const returnRefused = (c: Context<Env>) => refusal(c, 400, 'This consent link returns to an address this service no longer returns to. Nothing was changed; ask for a new link from the console.');
  const app = new Hono<Env>();
  app.use(
    bodyLimit({
      maxSize: 16 * 1024,
      onError: (c) => {
        closeAfterTooLarge(c);
        return refusal(c as Context<Env>, 400, 'The request is over 16 kB.');
      },
    }),
  );

  app.get('/consent.css', (c) => c.body(STYLESHEET, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache' }));

  app.get('/consent', (c) => {
    const state = c.req.query('state') ?? '';
    const request = state ? auth.pending(state) : undefined;
    if (!request) return staleLink(c, state);
    if (!returnAllowed(request)) return returnRefused(c);
    const server = catalog.toolServers.get(request.serverId);
    const name = server?.display_name ?? request.serverId;
    const token = store.findTokenByHash(Buffer.from(request.tokenKey, 'hex'));
    const tools = server?.tools.map((t) => t.display_name ?? t.name) ?? [];
    const returnOrigin = new URL(request.returnUrl).origin;
    const body = `<h1>Allow access to ${escapeHtml(name)}?</h1>
${server?.description ? `<p>${escapeHtml(server.description)}</p>\n` : ''}<dl>
<dt>Tool server</dt><dd><code>${escapeHtml(request.serverId)}</code></dd>
<dt>For the token</dt><dd>${escapeHtml(token?.label ?? 'a token of this service')}</dd>
${tools.length ? `<dt>Its tools</dt><dd>${escapeHtml(tools.join(', '))}</dd>\n` : ''}<dt>Then back to</dt><dd><code>${escapeHtml(request.returnUrl)}</code></dd>
</dl>
<form method="post" action="${CONSENT_PATH}">
<input type="hidden" name="state" value="${escapeHtml(state)}">
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<p class="hint">Allow lets agents run with this token use ${escapeHtml(name)}'s tools. This link works once, for ${CONSENT_TTL_MS / 60_000} minutes.</p>`;
    return c.body(page(`Allow access to ${name}?`, body), 200, pageHeaders(returnOrigin));
  });

  app.post('/consent', async (c) => {
    const why = crossSiteProblem(c, origins());
    if (why) return refusal(c, 403, why);
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') return refusal(c, 415, 'Send the decision as the consent page\'s form does (application/x-www-form-urlencoded).');
    const form = new URLSearchParams(await c.req.text());
    const decision = form.get('decision');
    if (decision !== 'allow' && decision !== 'deny') return refusal(c, 400, 'The decision must be allow or deny.');
    const state = form.get('state') ?? '';
    const pending = auth.pending(state);
    if (pending && !returnAllowed(pending)) return returnRefused(c);
    const request = auth.decide(state, decision === 'allow');
    if (!request) return staleLink(c, state);
    // 303: the browser follows with a GET of the console's page, never re-posting the form there.
    return c.body(null, 303, { location: returnAddress(request, decision === 'allow'), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  });
  return app;
}
