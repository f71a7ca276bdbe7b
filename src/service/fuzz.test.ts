/**
 * Seeded fuzzing of every endpoint family over real HTTP: custom metadata (schema GET,
 * PUT, DELETE; document values PUT, DELETE), the client API's agent routes, the platform
 * API's agent routes and the sandbox routes. Requests are built from valid ones and then
 * broken: malformed JSON, wrong types, unknown fields, odd and long paths, wrong methods,
 * bad Authorization, content types, Origin, Host and Sec-Fetch-Site headers.
 *
 * Whatever comes in: no 5xx, an answer within a timeout, and every error body in its
 * family's format. The seed is fixed, so a failure names a request that can be replayed
 * (FUZZ_SEED picks another sequence when looking for new failures).
 */
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, expect, test } from 'vitest';
import type { RunEnded, RunStarted } from './runs.ts';
import { expectLegacyError, listeningService, rawCall, TOKENS } from './test-http.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed7);
const REQUESTS = 1_200;
const IN_FLIGHT = 8;
const TIMEOUT_MS = 5_000;

const started: RunStarted[] = [];
const ended: RunEnded[] = [];
const server = listeningService({
  memory: true,
  rateLimitPerMinute: 0,
  runObserver: { started: (r) => started.push(r), ended: (r) => ended.push(r) },
});

const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
afterAll(() => agent.destroy());

// --- Seeded choices -------------------------------------------------------------------

/** mulberry32: small, fast and the same on every platform. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
type Rng = ReturnType<typeof rng>;

// --- Building blocks --------------------------------------------------------------------

const GROUPS = ['sales', 'hr', 'engineering', 'SALES', 'nogroup', 'a_b-c', 'x'.repeat(65)];
/** Path segments no route expects; raw text, percent-encoded where Node's client requires it. */
const ODD_SEGMENTS = [
  '', '.', '..', '%2e%2e', '%2E', '%2F', 'a%2Fb', '%5C', '%00', '%zz', '%', '%25', '%C3%A9t%C3%A9', '%F0%9F%92%A5', '%ED%A0%80',
  '__proto__', 'constructor', 'prototype', 'toString', 'a;b', 'a:b', '@', '~', '*', 'a+b', 'null', 'undefined', '-1', '0',
  'x'.repeat(300), 'y'.repeat(4000), encodeURIComponent('<script>alert(1)</script>'), encodeURIComponent('"quoted"'),
];
/**
 * Agents whose runs end within half a second (not the slow storyteller): a fuzzed run body
 * that happens to be valid must not keep a request waiting 20 s.
 */
const AGENT_IDS = ['echo-assistant', 'hr-policy-form', 'firehose', 'flaky-reporter', 'unreliable-line', 'calendar-helper', 'no-such-agent'];
const USER_HI = [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }];
const HR_INPUT = { topic: 'leave', audience: '', region: 'emea', tone: '', maxPoints: '', includeLinks: '' };

const WEIRD_VALUES: unknown[] = [
  null, true, false, 0, -1, 1.5, 1e308, -0, '', ' ', 'text', '\u0000', '\ud800', 'é'.repeat(3), 'z'.repeat(20_000),
  [], [1, 2], [null], {}, { a: 1 }, { __proto__: { polluted: true } }, [[[[[]]]]],
];

function deep(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { v };
  return v;
}

function weird(r: Rng): unknown {
  if (r.chance(0.05)) return deep(r.pick([10, 70, 200]));
  return r.pick(WEIRD_VALUES);
}

/** A value with one field replaced, removed or added, or the whole thing replaced. */
function mutate(r: Rng, value: unknown): unknown {
  if (r.chance(0.15) || typeof value !== 'object' || value === null) return weird(r);
  const copy: Record<string, unknown> = Array.isArray(value) ? { ...value } : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const roll = r.int(0, 3);
  if (roll === 0 && keys.length) delete copy[r.pick(keys)];
  else if (roll === 1 && keys.length) {
    const k = r.pick(keys);
    copy[k] = r.chance(0.5) ? mutate(r, copy[k]) : weird(r);
  } else if (roll === 2) copy[r.pick(['extra', 'stream', 'input', 'messages', 'agent_id', 'metadataKeys', 'scopes', '__proto__'])] = weird(r);
  else return weird(r);
  return Array.isArray(value) ? Object.values(copy) : copy;
}

const MALFORMED_JSON = ['{', '{"a":', '[1,2', 'nul', "{'a':1}", '{"a":1}}', '\u0000', '{"a":"\\x"}', ' ', '\ufeff{}', '1e999999', '"', 'NaN'];

type BodyPlan = { text?: string; contentType?: string };

function bodyOf(r: Rng, valid: unknown): BodyPlan {
  const type = r.chance(0.85)
    ? 'application/json'
    : r.pick(['text/plain', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/problem+json', 'application/jsonx', '']);
  const roll = r.int(0, 9);
  if (roll === 0) return { text: r.pick(MALFORMED_JSON), contentType: type };
  if (roll === 1) return {};
  if (roll === 2 && r.chance(0.1)) return { text: JSON.stringify({ big: 'b'.repeat(1_100_000) }), contentType: type };
  return { text: JSON.stringify(roll <= 4 ? valid : mutate(r, valid)), contentType: type };
}

function segment(r: Rng, usual: readonly string[]): string {
  return r.chance(0.75) ? r.pick(usual) : r.pick(ODD_SEGMENTS);
}

function query(r: Rng): string {
  return r.chance(0.1) ? r.pick(['?', '?a=1', '?token=x', '?%zz', '?a=' + 'q'.repeat(2000), '#frag']) : '';
}

// --- Requests -------------------------------------------------------------------------

type Family = 'metadata' | 'legacy' | 'platform';

interface Plan {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

function authorization(r: Rng, right: string): string | undefined {
  const roll = r.int(0, 9);
  if (roll <= 5) return `Bearer ${right}`;
  return r.pick([
    undefined, 'Bearer', 'Bearer ', `bearer ${right}`, `Bearer  ${right}  `, `Basic ${Buffer.from('a:b').toString('base64')}`,
    'Bearer not-a-known-token', `Bearer ${right} extra`, `Bearer ${'t'.repeat(4000)}`, `Token ${right}`, `Bearer ${TOKENS.hr}`,
    `Bearer ${TOKENS.global}`, `Bearer ${TOKENS.agents}`, 'Bearer sandbox-noscope-9a4c1e7b3d0f8262', `Bearer ${right}é`,
  ]);
}

function plan(r: Rng): Plan {
  const kind = r.pick(['schema', 'schema', 'values', 'legacy', 'legacy', 'platform', 'platform', 'sandbox', 'junk'] as const);
  let method: string;
  let path: string;
  let valid: unknown;
  let token: string;
  switch (kind) {
    case 'schema': {
      method = r.pick(['GET', 'PUT', 'DELETE']);
      path = `/rest/api/index/custom-metadata/schema/${segment(r, GROUPS)}`;
      valid = { metadataKeys: [{ name: 'region', propertyType: r.pick(['TEXT', 'SELECT', 'MULTISELECT', 'DATE', 'PICKLIST']) }] };
      token = r.pick([TOKENS.global, TOKENS.sales, TOKENS.hr]);
      break;
    }
    case 'values': {
      method = r.pick(['PUT', 'DELETE']);
      path = `/rest/api/index/document/${segment(r, ['doc-1', 'DOC_2', 'x'])}/custom-metadata/${segment(r, GROUPS)}`;
      valid = { customMetadata: [{ name: r.pick(['region', 'Region', 'nope']), value: r.pick(['emea', ['a', 'b'], true]) }] };
      token = r.pick([TOKENS.global, TOKENS.sales]);
      break;
    }
    case 'legacy': {
      token = r.pick([TOKENS.agents, TOKENS.everything]);
      const route = r.int(0, 4);
      const id = segment(r, AGENT_IDS);
      if (route === 0) [method, path, valid] = ['POST', '/rest/api/v1/agents/search', { name: r.pick(['echo', '', 'zzz']) }];
      else if (route === 1) [method, path, valid] = ['GET', `/rest/api/v1/agents/${id}`, undefined];
      else if (route === 2) [method, path, valid] = ['GET', `/rest/api/v1/agents/${id}/schemas`, undefined];
      else {
        const agentId = r.pick(AGENT_IDS);
        method = 'POST';
        path = `/rest/api/v1/agents/runs/${r.pick(['stream', 'wait', 'wait', 'other'])}`;
        valid = runBody(r, agentId, { agent_id: agentId });
      }
      break;
    }
    case 'platform': {
      token = r.pick([TOKENS.agents, TOKENS.everything]);
      const route = r.int(0, 4);
      const id = segment(r, AGENT_IDS);
      if (route === 0) [method, path, valid] = ['POST', '/api/agents/search', { name: r.pick(['echo', '', 'zzz']) }];
      else if (route === 1) [method, path, valid] = ['GET', `/api/agents/${id}`, undefined];
      else if (route === 2) [method, path, valid] = ['GET', `/api/agents/${id}/schemas`, undefined];
      else {
        const agentId = r.pick(AGENT_IDS);
        method = 'POST';
        path = `/api/agents/${r.chance(0.85) ? agentId : segment(r, AGENT_IDS)}/runs`;
        valid = runBody(r, agentId, { stream: r.chance(0.5), ...(r.chance(0.1) && { execution_mode: r.pick(['REQUEST_BOUND', 'ASYNC']) }) });
      }
      break;
    }
    case 'sandbox': {
      token = TOKENS.global;
      const route = r.int(0, 2);
      if (route === 0) [method, path, valid] = ['GET', '/sandbox/info', undefined];
      else if (route === 1) [method, path, valid] = ['GET', '/sandbox/runs', undefined];
      else {
        method = 'POST';
        path = '/sandbox/tokens';
        valid = { scopes: [r.pick(['custommetadata:sales', 'agents.run', 'custommetadata:__proto__', 'admin', ''])], label: 'fuzz' };
      }
      break;
    }
    default: {
      token = r.pick([TOKENS.global, TOKENS.agents]);
      method = r.pick(METHODS);
      const prefix = r.pick(['/rest/', '/rest/api/', '/rest/api/index/', '/rest/api/v1/', '/api/', '/api//', '/sandbox/', '/rest/api/v1/agents/runs/']);
      path = prefix + Array.from({ length: r.int(0, 4) }, () => r.pick(ODD_SEGMENTS)).join('/');
      valid = {};
    }
  }
  if (r.chance(0.08)) method = r.pick(METHODS);
  if (r.chance(0.05)) path = path.replace(/\/([^/]*)$/, '//$1');
  if (r.chance(0.04)) path += '/';
  if (r.chance(0.03)) path = path.toUpperCase();
  path += query(r);

  const headers: Record<string, string> = {};
  const auth = authorization(r, token);
  if (auth !== undefined) headers.authorization = auth;
  if (r.chance(0.1)) headers.origin = r.pick(['https://evil.example', 'null', 'http://127.0.0.1', server.url]);
  if (r.chance(0.08)) headers['sec-fetch-site'] = r.pick(['cross-site', 'same-site', 'same-origin', 'none', 'bogus']);
  if (r.chance(0.06)) headers.host = r.pick(['evil.example', 'localhost', 'localhost:1', '127.0.0.1.evil.example', '[::1]', 'LOCALHOST']);
  if (r.chance(0.08)) headers.accept = r.pick(['text/event-stream', 'text/html', '*/*', 'application/xml', '']);
  if (r.chance(0.04)) headers['x-http-method-override'] = 'DELETE';

  const withBody = method !== 'GET' && method !== 'HEAD' && (valid !== undefined || r.chance(0.2));
  const body = withBody ? bodyOf(r, valid) : r.chance(0.03) && method !== 'HEAD' ? { text: '{"surprise":1}', contentType: 'application/json' } : {};
  if (body.contentType !== undefined) headers['content-type'] = body.contentType;
  return { method, path, headers, body: body.text };
}

function runBody(r: Rng, agentId: string, base: Record<string, unknown>): Record<string, unknown> {
  if (agentId === 'hr-policy-form') return { ...base, input: HR_INPUT };
  // A valid count is a small one: the fuzz is about bad input, not volume.
  if (agentId === 'firehose') return { ...base, input: { count: r.pick([1, 50, 0, -3, 2.5, '10', null, 1e9]) } };
  return { ...base, messages: r.chance(0.9) ? USER_HI : [] };
}

// --- Sending and judging -----------------------------------------------------------------

interface Outcome {
  status: number;
  contentType: string;
  text: string;
}

function send(p: Plan): Promise<Outcome> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...p.headers };
    if (p.body !== undefined) headers['content-length'] = String(Buffer.byteLength(p.body));
    const req = httpRequest({ host: url.hostname, port: url.port, method: p.method, path: p.path, headers, agent, timeout: TIMEOUT_MS }, (res) => {
      const contentType = res.headers['content-type'] ?? '';
      // A run that started streams for a while; its head is the answer to judge.
      if (res.statusCode === 200 && contentType.startsWith('text/event-stream')) {
        res.destroy();
        resolve({ status: 200, contentType, text: '' });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(p.body);
  });
}

function familyOf(path: string): Family {
  if (path.startsWith('/rest/api/v1/')) return 'legacy';
  if (path.startsWith('/api/')) return 'platform';
  return 'metadata';
}

/** The family of the path as it was sent: a path with dot segments is refused in the family it names, not the one it would resolve to. */
function familiesOf(path: string): Set<Family> {
  return new Set([familyOf(path.split(/[?#]/)[0]!)]);
}

function familyProblem(family: Family, o: Outcome): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(o.text);
  } catch {
    return `body is not JSON: ${o.text.slice(0, 80)}`;
  }
  const obj = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (family === 'metadata') {
    if (!o.contentType.startsWith('application/json')) return `content type ${o.contentType}`;
    if (!obj || typeof obj.error !== 'string' || !obj.error) return 'no "error" string';
    if (obj.message !== undefined && typeof obj.message !== 'string') return '"message" is not a string';
    if (Object.keys(obj).some((k) => k !== 'error' && k !== 'message')) return `extra fields ${Object.keys(obj).join(',')}`;
    return undefined;
  }
  if (family === 'legacy') {
    if (!o.contentType.startsWith('application/json')) return `content type ${o.contentType}`;
    if (typeof body === 'string' && body.length > 0) return undefined;
    // The one object the client API answers: tools to authorize.
    if (o.status === 422 && obj && typeof obj.message === 'string' && Array.isArray(obj.authenticationSuggestions)) return undefined;
    return 'not a JSON string';
  }
  if (!o.contentType.startsWith('application/problem+json')) return `content type ${o.contentType}`;
  if (!obj) return 'not an object';
  for (const k of ['type', 'title', 'detail', 'code', 'request_id']) if (typeof obj[k] !== 'string') return `"${k}" is not a string`;
  if (obj.status !== o.status) return `"status" ${String(obj.status)} differs from the HTTP status`;
  return undefined;
}

function judge(p: Plan, o: Outcome): string | undefined {
  if (o.status >= 500 || o.status < 100) return `answered ${o.status}`;
  if (o.status < 400 || p.method === 'HEAD') return undefined;
  const families = [...familiesOf(p.path)];
  const problems = families.map((f) => familyProblem(f, o));
  if (problems.some((x) => x === undefined)) return undefined;
  return `${o.status} not in the ${families.join(' or ')} format (${problems.join('; ')})`;
}

function describePlan(p: Plan): string {
  const path = p.path.length > 120 ? `${p.path.slice(0, 120)}…(${p.path.length} chars)` : p.path;
  const body = p.body === undefined ? '' : ` body ${p.body.length > 80 ? `${p.body.slice(0, 80)}…` : p.body}`;
  return `${p.method} ${path} ${JSON.stringify({ ...p.headers, authorization: p.headers.authorization?.slice(0, 30) })}${body}`;
}

test(`${REQUESTS} seeded requests across every endpoint family: no 5xx, no hang, errors in the family's format`, async () => {
  const r = rng(SEED);
  const plans = Array.from({ length: REQUESTS }, () => plan(r));
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < plans.length) {
      const p = plans[next++]!;
      try {
        const o = await send(p);
        statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
        const why = judge(p, o);
        if (why) failures.push(`${why}: ${describePlan(p)}`);
      } catch (err) {
        failures.push(`${(err as Error).message}: ${describePlan(p)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));

  expect(failures.slice(0, 15), `${failures.length} of ${REQUESTS} requests failed (seed ${SEED})`).toEqual([]);
  // The mix reached the routes, not only their guards: successes and refusals of many kinds.
  const seen = [...statuses.keys()];
  for (const s of [200, 400, 401, 403, 404, 413, 415]) expect(seen, `statuses ${JSON.stringify([...statuses])}`).toContain(s);
  expect(statuses.get(200)!).toBeGreaterThan(REQUESTS / 20);

  // Every run the fuzz started has ended: none is left working for a client that left.
  for (let i = 0; i < 200 && ended.length < started.length; i++) await new Promise((res) => setTimeout(res, 10));
  expect(started.length).toBeGreaterThan(0);
  expect(ended.length).toBe(started.length);
}, 60_000);

// Found by this fuzz (seed 3): the unknown id went into the Link header, and a long one
// made an answer head Node's own client refuses to parse.
test('a legacy run naming a 20,000-character unknown agent gets a 404 string and no Link header', async () => {
  const id = 'z'.repeat(20_000);
  const a = await rawCall(server.url, 'POST', '/rest/api/v1/agents/runs/stream', { token: TOKENS.agents, body: { agent_id: id, messages: USER_HI } });
  expect(expectLegacyError(a, 404)).toContain('Unknown agent');
  expect(a.headers.get('link')).toBeNull();
});
