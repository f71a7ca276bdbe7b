import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Service, ServiceOptions } from './app.ts';
import { listen, type ServerTimeouts } from './node.ts';
import { freshService, TOKENS } from './test-http.ts';

/**
 * A run stream started ahead of Hono (prepared-runs.ts) must answer as the routes do, byte for
 * byte but for the request id; and every request it does not start must reach the routes with
 * its body, for them to refuse in full.
 */

interface RawAnswer {
  status: number;
  /** Header names in the order they came, lower-case. */
  names: string[];
  headers: Record<string, string>;
  text: string;
}

function post(url: string, path: string, token: string, body: unknown, extra: Record<string, string | string[]> = {}): Promise<RawAnswer> {
  const text = JSON.stringify(body);
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: false,
        // As raw pairs: a header given as a list goes out once per value, Host included.
        setHost: false,
        headers: Object.entries({
          host: target.host,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
          ...extra,
        }).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).flatMap((one) => [k, one])),
      },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (out += c));
        res.on('error', reject);
        // A dropped stream ends with 'aborted'/'error' on some versions, 'end' on others: what came is the answer.
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            names: res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
            headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
            text: out,
          });
        res.on('end', done);
        res.on('aborted', done);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** The answer with its request ids and dates made comparable. */
function normalized(a: RawAnswer) {
  const id = a.headers['x-request-id'];
  const { date, ...headers } = a.headers;
  expect(id).toMatch(/^req_[0-9a-f]{16}$/);
  expect(date).toBeTypeOf('string');
  const unId = (s: string) => s.split(id!).join('<request id>');
  return { status: a.status, names: a.names, headers: { ...headers, 'x-request-id': '<request id>' }, text: unId(a.text) };
}

interface Running {
  service: Service;
  url: string;
  /** Requests the prepared way in started, and those it handed to the routes. */
  started: number;
  handedOn: number;
}

const running: { close(): Promise<void>; service: Service }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.close();
    r.service.close();
  }
});

/** A service on a port; `prepared: false` takes the prepared way in away, so that the routes answer everything. */
async function start(prepared: boolean, options: ServiceOptions = { memory: true, rateLimitPerMinute: 0 }, timeouts: ServerTimeouts = {}): Promise<Running> {
  const base = freshService(options);
  const counts = { started: 0, handedOn: 0 };
  const inner = base.preparedRun;
  expect(inner).toBeTypeOf('function');
  const service: Service = {
    ...base,
    preparedRun: prepared
      ? (req, res, fallback) => {
          const taken = inner!(req, res, () => {
            counts.handedOn++;
            fallback();
          });
          if (taken) counts.started++;
          return taken;
        }
      : undefined,
  };
  const server = await listen(service, 0, '127.0.0.1', timeouts);
  running.push({ close: server.close, service: base });
  return {
    service,
    url: server.url,
    get started() {
      return counts.started - counts.handedOn;
    },
    get handedOn() {
      return counts.handedOn;
    },
  };
}

/** A run POST that announces 100 bytes, sends 15, then nothing: the raw answer, once the server closed. */
function stalledRun(url: string): Promise<string> {
  const port = Number(new URL(url).port);
  return new Promise<string>((resolve) => {
    const s = connect(port, '127.0.0.1', () =>
      s.write(
        `POST /api/agents/echo-assistant/runs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS.agents}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"stream":true,`,
      ),
    );
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => (out += d));
    s.on('error', () => {});
    s.on('close', () => resolve(out));
  });
}

const hi = { messages: [{ role: 'USER', content: [{ type: 'text', text: 'hi there' }] }] };

const STREAMS: [string, string, unknown][] = [
  ['a platform stream', '/api/agents/echo-assistant/runs', { ...hi, stream: true }],
  ['a platform stream with execution_mode and metadata', '/api/agents/echo-assistant/runs', { ...hi, stream: true, execution_mode: 'REQUEST_BOUND', metadata: { a: 1 } }],
  ['a client API stream', '/rest/api/v1/agents/runs/stream', { agent_id: 'echo-assistant', ...hi }],
  ['a platform stream that fails (run.failed names the request id)', '/api/agents/flaky-reporter/runs', { ...hi, stream: true }],
  ['a client API stream that fails', '/rest/api/v1/agents/runs/stream', { agent_id: 'flaky-reporter', ...hi }],
  ['a platform stream that drops', '/api/agents/unreliable-line/runs', { ...hi, stream: true }],
  ['a form agent with its input', '/api/agents/hr-policy-form/runs', { stream: true, input: { topic: 'Leave', audience: 'All', region: 'emea', tone: 'friendly', maxPoints: 3, includeLinks: false } }],
];

describe('run streams started ahead of the routes', () => {
  it.each(STREAMS)('%s: the same status, head (names in order), events and run log as through the routes', async (_, path, body) => {
    const prepared = await start(true);
    const routes = await start(false);
    const a = await post(prepared.url, path, TOKENS.agents, body);
    const b = await post(routes.url, path, TOKENS.agents, body);
    expect(prepared.started).toBe(1);
    expect(normalized(a)).toEqual(normalized(b));
    expect(a.status).toBe(200);

    type Log = { runs: Record<string, unknown>[]; posts: Record<string, unknown>[] };
    const logOf = async (r: Running) => {
      // The run's end is logged as its stream closes: wait for it.
      let log: Log;
      for (;;) {
        const res = await fetch(`${r.url}/sandbox/runs`);
        log = (await res.json()) as Log;
        if (log.runs.every((run) => run.outcome !== undefined)) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const strip = ({ requestId, startedAt, endedAt, at, seq, ...rest }: Record<string, unknown>) => {
        expect(requestId).toMatch(/^req_/);
        return { ...rest, seq: seq !== undefined, started: (startedAt ?? at) !== undefined, ended: endedAt !== undefined };
      };
      return { runs: log.runs.map(strip), posts: log.posts.map(strip) };
    };
    const [logA, logB] = await Promise.all([logOf(prepared), logOf(routes)]);
    expect(logA).toEqual(logB);
    expect(logA.posts).toHaveLength(1);
  });

  it('hands every run it does not start to the routes, body and all, and their answers are the routes’ own', async () => {
    const options: ServiceOptions = { memory: true, rateLimitPerMinute: 0, maxRunsPerToken: 1 };
    const prepared = await start(true, options);
    const routes = await start(false, options);
    const cases: [string, unknown][] = [
      ['/api/agents/echo-assistant/runs', { ...hi, stream: 'yes' }],
      ['/api/agents/echo-assistant/runs', { ...hi, stream: true, extra: 1 }],
      ['/api/agents/echo-assistant/runs', { stream: true }],
      ['/api/agents/echo-assistant/runs', { messages: [{ role: 'USER' }], stream: true }],
      ['/api/agents/echo-assistant/runs', { ...hi, stream: true, metadata: [1] }],
      ['/api/agents/echo-assistant/runs', { ...hi, stream: true, execution_mode: 'SOMETIMES' }],
      ['/api/agents/no-such-agent/runs', { ...hi, stream: true }],
      ['/api/agents/calendar-helper/runs', { ...hi, stream: true }],
      ['/api/agents/expense-filer/runs', { ...hi, stream: true }],
      ['/api/agents/hr-policy-form/runs', { stream: true, input: { topic: 'x' } }],
      ['/rest/api/v1/agents/runs/stream', { ...hi }],
      ['/rest/api/v1/agents/runs/stream', { agent_id: 'nobody', ...hi }],
      ['/rest/api/v1/agents/runs/stream', { agent_id: 'echo-assistant', ...hi, stream: true }],
      ['/rest/api/v1/agents/runs/stream', [1, 2]],
    ];
    for (const [path, body] of cases) {
      const a = await post(prepared.url, path, TOKENS.agents, body);
      const b = await post(routes.url, path, TOKENS.agents, body);
      expect({ path, body, answer: normalized(a) }).toEqual({ path, body, answer: normalized(b) });
      expect(a.status).toBeGreaterThanOrEqual(400);
    }
    expect(prepared.handedOn).toBe(cases.length);
    expect(prepared.started).toBe(0);

    // Wrong token, missing scope: never read here, the routes answer at once.
    for (const token of ['sandbox-unknown-token', TOKENS.sales]) {
      const a = await post(prepared.url, '/api/agents/echo-assistant/runs', token, { ...hi, stream: true });
      const b = await post(routes.url, '/api/agents/echo-assistant/runs', token, { ...hi, stream: true });
      expect(normalized(a)).toEqual(normalized(b));
    }
    expect(prepared.handedOn).toBe(cases.length);
  });

  it('shares the run cap and the rate limit with the routes: a token at its cap is refused 429 either way in', async () => {
    const prepared = await start(true, { memory: true, rateLimitPerMinute: 3, maxRunsPerToken: 1 });
    const slow = { ...hi, stream: true };
    // One slow run holds the token's only slot (through the prepared way in); read its head only.
    const holder = await new Promise<() => void>((resolve, reject) => {
      const text = JSON.stringify(slow);
      const req = httpRequest(
        `${prepared.url}/api/agents/slow-storyteller/runs`,
        { method: 'POST', agent: false, headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } },
        (res) => {
          expect(res.statusCode).toBe(200);
          resolve(() => res.destroy());
        },
      );
      req.on('error', reject);
      req.end(text);
    });
    const capped = await post(prepared.url, '/api/agents/echo-assistant/runs', TOKENS.agents, slow);
    expect(capped.status).toBe(429);
    expect(capped.text).toContain('runs going');
    holder();
    // Until the held run has ended, its slot is taken.
    for (;;) {
      const log = (await (await fetch(`${prepared.url}/sandbox/runs`)).json()) as { runs: { outcome?: string }[] };
      if (log.runs.every((r) => r.outcome !== undefined)) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Counted once each (the held run, the capped one): this third request is within the limit of 3, a fourth is not.
    const third = await post(prepared.url, '/api/agents/echo-assistant/runs', TOKENS.agents, slow);
    expect(third.status).toBe(200);
    const fourth = await post(prepared.url, '/api/agents/echo-assistant/runs', TOKENS.agents, slow);
    expect(fourth.status).toBe(429);
    expect(fourth.headers['retry-after']).toMatch(/^\d+$/);
    expect(fourth.text).toContain('Too many requests');
  });

  it('answers a request that repeats Authorization or Content-Type as the routes do (they read the values joined, Node the first)', async () => {
    const prepared = await start(true);
    const routes = await start(false);
    const path = '/api/agents/echo-assistant/runs';
    const body = { ...hi, stream: true };
    const cases: [string, Record<string, string[]>][] = [
      ['two tokens', { authorization: [`Bearer ${TOKENS.agents}`, `Bearer ${TOKENS.sales}`] }],
      ['two content types', { 'content-type': ['application/json', 'text/plain'] }],
    ];
    for (const [name, extra] of cases) {
      const a = await post(prepared.url, path, TOKENS.agents, body, extra);
      const b = await post(routes.url, path, TOKENS.agents, body, extra);
      expect(b.status, name).toBeGreaterThanOrEqual(400);
      expect({ name, answer: normalized(a) }).toEqual({ name, answer: normalized(b) });
    }
    expect(prepared.started).toBe(0);
  });

  it('counts a run whose body never comes against the rate limit, as the routes do (they count it before reading the body)', async () => {
    const statuses = async (prepared: boolean) => {
      const r = await start(prepared, { memory: true, rateLimitPerMinute: 2 }, { bodyIdleTimeoutMs: 300, checkIntervalMs: 100 });
      const stalled = await stalledRun(r.url);
      expect(stalled).toMatch(/^HTTP\/1\.1 408 /);
      const body = { ...hi, stream: true };
      const first = await post(r.url, '/api/agents/echo-assistant/runs', TOKENS.agents, body);
      const second = await post(r.url, '/api/agents/echo-assistant/runs', TOKENS.agents, body);
      return [first.status, second.status];
    };
    const routes = await statuses(false);
    expect(routes).toEqual([200, 429]);
    expect(await statuses(true)).toEqual(routes);
  });
});
