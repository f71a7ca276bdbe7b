/**
 * `npm run service -- --replay DIR [--replay-speed N]`: the reference service answers API
 * requests from recordings (recorder.ts, docs/recording.md) instead of its own routes: the
 * recorded status, headers, body or events, paced as recorded (N times faster).
 *
 * Matching rule (docs/recording.md): the method, the path, the query parameters in any order
 * (a parameter recorded as "[redacted]" matches any value), and the body: two JSON bodies are
 * equal when they hold the same values, whatever the order of their objects' keys; any other
 * body is compared as text. Headers are not compared. When several recordings match, they
 * answer in the order they were recorded, and the last one answers every request after it.
 * A GET answers 304 itself when its If-None-Match names the recorded answer's ETag.
 *
 * A request that matches none answers 404 in its API family's format, naming the closest
 * recording and how it differs. Tokens are the service's (demo tokens, minted ones), and
 * scopes apply as on the real routes: 401 for a group the token does not cover, 403 for an
 * agent path without agents.run.
 */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import { scopesAllowAgents, scopesCoverGroup, scopesThatCover, AGENTS_SCOPE } from '../contract/scopes.ts';
import { authenticate, rateLimit, RateLimiter } from './auth.ts';
import { bodyLimit } from './body-limit.ts';
import { noneMatchHits } from './etag.ts';
import { familyOf, refusalBody, type Family, type Refusal } from './families.ts';
import { closeAfterTooLarge, MAX_BODY_BYTES, nodeResponseOf, type Env } from './http.ts';
import { canonicalJson } from './json-text.ts';
import { printable } from './printable.ts';
import { REDACTED } from './recording.ts';
import type { LoadedRecording, ReplaySet } from './replay-load.ts';
import { breakOffAnswer, sleepUnless, streamSse } from './sse.ts';
import type { Store } from './store.ts';
import { admitFault } from './faults.ts';
import { RUN_LIMIT_RETRY_AFTER_S, runCapText, type RunSlots } from './runs.ts';

export interface ReplayOptions {
  set: ReplaySet;
  /** 2 plays twice as fast; 0.5 half as fast. */
  speed: number;
}

/** Bounds of `--replay-speed`. */
export const REPLAY_SPEED = { min: 0.1, max: 1000, meaning: 'how many times faster than recorded a replay answers' } as const;

// --- Matching ----------------------------------------------------------------------------

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const token = (k: string | number) => String(k).replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON pointer of the first place `a` and `b` differ (object keys in any order); null when equal. */
export function firstDifference(a: unknown, b: unknown, at = ''): string | null {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return `${at}/${i}`;
      const d = firstDifference(a[i], b[i], `${at}/${i}`);
      if (d !== null) return d;
    }
    return null;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      if (!Object.hasOwn(a, k) || !Object.hasOwn(b, k)) return `${at}/${token(k)}`;
      const d = firstDifference(a[k], b[k], `${at}/${token(k)}`);
      if (d !== null) return d;
    }
    return null;
  }
  return Object.is(a, b) || (a === 0 && b === 0) ? null : at || '/';
}

/** A request as the replay matches it. */
export interface ReplayRequest {
  method: string;
  pathname: string;
  query: [string, string][];
  bodyText: string;
}

type BodyVerdict = { same: true } | { same: false; why: string };

/** A request's body as the recordings are compared with it: parsed once, however many recordings there are. */
interface RequestBody {
  trimmed: string;
  /** The parsed body, and its canonicalJson; undefined when it is not JSON. */
  json?: { value: unknown; key: string };
}

const requestBodies = new WeakMap<ReplayRequest, RequestBody>();

function requestBodyOf(req: ReplayRequest): RequestBody {
  let body = requestBodies.get(req);
  if (!body) {
    const trimmed = req.bodyText.trim();
    body = { trimmed };
    try {
      const value: unknown = JSON.parse(trimmed);
      body.json = { value, key: canonicalJson(value) };
    } catch {
      // Not JSON: only a recording with a text body (or none) can match it.
    }
    requestBodies.set(req, body);
  }
  return body;
}

/** Where two bodies that differ first differ; a body nested too deep to walk is said to differ, no more. */
function whereBodiesDiffer(recorded: unknown, asked: unknown): string {
  try {
    return `the body differs at ${printable(firstDifference(recorded, asked) ?? '/', 200)}`;
  } catch {
    return 'the body differs (nested too deep to say where)';
  }
}

function compareBody(r: LoadedRecording, req: ReplayRequest, explain = false): BodyVerdict {
  const recorded = r.recording.request;
  const body = requestBodyOf(req);
  if (r.bodyKey !== undefined) {
    if (!body.json) return { same: false, why: body.trimmed === '' ? 'it has a JSON body and the request has none' : 'its body is JSON and the request’s is not' };
    if (body.json.key === r.bodyKey) return { same: true };
    return { same: false, why: explain ? whereBodiesDiffer(recorded.body, body.json.value) : 'the body differs' };
  }
  if (recorded.bodyText !== undefined) return recorded.bodyText === req.bodyText ? { same: true } : { same: false, why: 'the body’s text differs' };
  return body.trimmed === '' ? { same: true } : { same: false, why: 'it has no body and the request has one' };
}

function sameQuery(recorded: readonly [string, string][], asked: readonly [string, string][]): boolean {
  if (recorded.length !== asked.length) return false;
  const left = [...asked];
  for (const [k, v] of recorded) {
    const i = left.findIndex(([k2, v2]) => k2 === k && (v === REDACTED || v2 === v));
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

function pathDistance(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  let d = Math.abs(x.length - y.length);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) d++;
  return d;
}

/** The recording that comes nearest to `req`, and in what it differs. */
export function closestRecording(recordings: readonly LoadedRecording[], req: ReplayRequest): { file: string; why: string } | undefined {
  let best: { file: string; why: string; score: number; r: LoadedRecording } | undefined;
  for (const r of recordings) {
    let score: number;
    let why: string;
    const samePath = r.pathname === req.pathname;
    if (samePath && r.method === req.method) {
      if (!sameQuery(r.query, req.query)) {
        score = 1;
        why = 'same method and path, but other query parameters';
      } else {
        const body = compareBody(r, req);
        score = body.same ? 0 : 2;
        why = body.same ? 'the same request' : 'same method and path, but the body differs';
      }
    } else if (samePath) {
      score = 10;
      why = `the same path, but ${r.method}`;
    } else {
      score = 100 + pathDistance(r.pathname, req.pathname) * 10 + (r.method === req.method ? 0 : 5);
      why = `${r.method} ${printable(r.recording.request.path, 200)}`;
    }
    if (!best || score < best.score) best = { file: r.file, why, score, r };
  }
  if (best?.score === 2) {
    // Where the body differs is worked out for the closest recording alone, not for every one of its path.
    const body = compareBody(best.r, req, true);
    if (!body.same) best.why = `same method and path, but ${body.why}`;
  }
  return best && { file: best.file, why: best.why };
}

/**
 * The recordings that answer `req`, in recorded order. A 304 was the answer to a client that
 * held the body: a recording with a body goes first, and the replay answers 304 itself.
 */
export function matchingRecordings(recordings: readonly LoadedRecording[], req: ReplayRequest): LoadedRecording[] {
  const all = recordings.filter(
    (r) => r.method === req.method && r.pathname === req.pathname && sameQuery(r.query, req.query) && compareBody(r, req).same,
  );
  const withBody = all.filter((r) => r.recording.response.status !== 304);
  return withBody.length ? withBody : all;
}

// --- Answering ----------------------------------------------------------------------------

/** The longest one timer waits; a longer one fires at once (Node's TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2_147_483_647;

/** Until `t` (performance.now() time) or the abort; a wait longer than one timer takes several, so a recorded pause is kept however long. */
async function sleepUntil(t: number, signal: AbortSignal): Promise<void> {
  for (let ms = t - performance.now(); ms > 0 && !signal.aborted; ms = t - performance.now()) await sleepUnless(Math.min(ms, MAX_TIMER_MS), signal);
}

function familyAnswer(c: Context<Env>, family: Family, r: Refusal): Response {
  const { contentType, body } = refusalBody(family, r, c.get('requestId'));
  return c.body(body, r.status as 400, { 'content-type': contentType });
}

const REFUSE_401: Omit<Refusal, 'detail'> = { status: 401, code: 'authentication_required', title: 'Authentication Required', error: 'unauthorized' };

/** The group a custom-metadata path names, if any: its scope is checked as the real routes check it. */
function groupOf(pathname: string): string | undefined {
  const m = /^\/rest\/api\/index\/(?:custom-metadata\/schema\/([^/]+)|document\/[^/]*\/custom-metadata\/([^/]+))$/.exec(pathname);
  const raw = m?.[1] ?? m?.[2];
  return raw === undefined ? undefined : decodeURIComponent(raw);
}

/** Whether `keepAliveMs` and the rest of the service's stream settings apply to a replayed stream. */
export interface ReplayRouteOptions {
  keepAliveMs: number;
  rateLimitPerMinute: number;
  /** The run cap's slots: a request whose fault holds its answer takes one (faults.ts). */
  runSlots: RunSlots;
}

/** The API routes of a replay: the service's tokens and scopes, then the recordings. */
export function replayRoutes(store: Store, replay: ReplayOptions, options: ReplayRouteOptions) {
  const app = new Hono<Env>();
  const { recordings } = replay.set;
  const uses = new Map<string, number>();
  const limiters = { metadata: new RateLimiter(options.rateLimitPerMinute), legacy: new RateLimiter(options.rateLimitPerMinute), platform: new RateLimiter(options.rateLimitPerMinute) };
  const familyOfRequest = (c: Context<Env>) => familyOf(new URL(c.req.url).pathname);

  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => {
        closeAfterTooLarge(c);
        return familyAnswer(c as Context<Env>, familyOfRequest(c as Context<Env>), { status: 413, code: 'request_too_large', title: 'Request Too Large', error: 'request too large', detail: `The body is over ${MAX_BODY_BYTES} bytes.` });
      },
    }),
  );
  app.use(
    authenticate(store, (c, why) => {
      c.header('WWW-Authenticate', 'Bearer');
      return familyAnswer(c, familyOfRequest(c), { ...REFUSE_401, detail: why });
    }),
  );
  app.use(async (c, next) => {
    const family = familyOfRequest(c);
    const scopes = c.get('token').scopes;
    if (family === 'metadata') {
      const group = groupOf(new URL(c.req.url).pathname);
      if (group !== undefined && !scopesCoverGroup(scopes, group)) {
        const [one, all] = scopesThatCover(group);
        c.header('WWW-Authenticate', 'Bearer');
        return familyAnswer(c, family, { ...REFUSE_401, detail: `This token's scopes do not cover group "${group}". It needs ${one} or ${all}.` });
      }
    } else if (!scopesAllowAgents(scopes)) {
      return familyAnswer(c, family, {
        status: 403,
        code: 'insufficient_permissions',
        title: 'Insufficient Permissions',
        error: 'forbidden',
        detail: `This token lacks the ${AGENTS_SCOPE} scope that the agent endpoints need.`,
      });
    }
    const refuse = (cc: Context<Env>, s: number) =>
      familyAnswer(cc, family, { status: 429, code: 'rate_limit_exceeded', title: 'Rate Limit Exceeded', error: 'too many requests', detail: `Too many requests; retry after ${s} s.` });
    return rateLimit(limiters[family], refuse)(c, async () => {
      // A middleware's answer, when it answers instead of going on (Hono's next() resolves to the context).
      const refused: unknown = await admit(c, next);
      if (refused instanceof Response) c.res = refused;
    });
  });
  const admit = admitFault(options.runSlots, (c) => {
    c.header('Retry-After', String(RUN_LIMIT_RETRY_AFTER_S));
    return familyAnswer(c, familyOfRequest(c), { status: 429, code: 'rate_limit_exceeded', title: 'Rate Limit Exceeded', error: 'too many requests', detail: runCapText(options.runSlots.perToken) });
  });

  app.all('*', async (c) => {
    const url = new URL(c.req.url);
    const request: ReplayRequest = { method: c.req.method, pathname: url.pathname, query: [...url.searchParams], bodyText: await c.req.text() };
    const matches = matchingRecordings(recordings, request);
    if (!matches.length) {
      const closest = closestRecording(recordings, request);
      return familyAnswer(c, familyOfRequest(c), {
        status: 404,
        code: 'resource_not_found',
        title: 'Resource Not Found',
        error: 'no recording',
        detail:
          `No recording in ${printable(replay.set.dir)} matches ${request.method} ${url.pathname}${url.search} (recordings match by method, path, query and body).` +
          (closest ? ` The closest is ${printable(closest.file)}: ${closest.why}.` : ''),
      });
    }
    // Recordings of one request answer in turn; the last answers from then on.
    const key = matches.map((m) => m.file).join('\n');
    const n = uses.get(key) ?? 0;
    uses.set(key, n + 1);
    return answer(c, matches[Math.min(n, matches.length - 1)]!);
  });

  async function answer(c: Context<Env>, { recording, answerText: text }: LoadedRecording): Promise<Response> {
    const started = performance.now();
    const at = (ms: number) => started + ms / replay.speed;
    const signal = c.req.raw.signal;
    const r = recording.response;
    await sleepUntil(at(r.headAtMs), signal);
    for (const [name, value] of Object.entries(r.headers)) c.header(name, value);
    if (r.events) {
      return streamSse(c, { keepAliveMs: options.keepAliveMs, fault: c.get('fault') }, async (sse) => {
        for (const e of r.events!) {
          await sleepUntil(at(e.atMs), sse.signal);
          if (sse.closed) return;
          const paused = sse.sendRecorded(e.id, e.event, e.data);
          if (paused) await paused;
        }
        await sleepUntil(at(r.endAtMs), sse.signal);
        if (r.end === 'broken' || r.truncated) sse.drop();
      });
    }
    const etag = r.headers.etag;
    if (c.req.method === 'GET' && etag !== undefined && r.status === 200 && noneMatchHits(c.req.header('if-none-match'), etag)) {
      return c.body(null, 304);
    }
    await sleepUntil(at(r.endAtMs), signal);
    if (r.status === 204 || r.status === 304) return c.body(null, r.status);
    // An answer the instance broke off, or that was kept only in part, breaks off here too: a
    // clean end would hand the client under test half a document as a whole answer.
    if (r.end === 'broken' || r.truncated) return brokenOff(c, r.status, text);
    return c.body(text, r.status as 200);
  }

  return app;
}

/** `text` as a chunked answer with no end: the connection breaks after it. */
function brokenOff(c: Context<Env>, status: number, text: string): Response {
  c.res.headers.delete('content-length');
  c.res.headers.delete('transfer-encoding');
  const outgoing = nodeResponseOf(c);
  if (outgoing) {
    const headers: Record<string, string> = {};
    c.res.headers.forEach((value, name) => (headers[name] = value));
    c.finalized = true;
    outgoing.writeHead(status, headers);
    outgoing.write(text);
    breakOffAnswer(outgoing);
    return RESPONSE_ALREADY_SENT;
  }
  // In process (no socket): the body errors once its bytes were read, which a reader sees as a
  // break after them (erroring at once would empty the queue: no bytes, only the break).
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull: (ctrl) => {
      if (sent) return ctrl.error(new Error('The recorded answer broke off here.'));
      sent = true;
      ctrl.enqueue(new TextEncoder().encode(text));
    },
  });
  return new Response(body, { status, headers: c.res.headers });
}
