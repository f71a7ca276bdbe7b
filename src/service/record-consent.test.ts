/**
 * A recording held a live consent link: the tool-server authorize answer
 * (`POST /rest/api/v1/tool-servers/{id}/auth` → `{ authorizationUrl }`) carries a one-time
 * `state`, and whoever read the file could open that link on the instance and Allow, which
 * authorized the recording user's token for the tool server. A recording never keeps a
 * one-time secret of an answer (a consent state, an OAuth code, a token in a JSON field or a
 * Link), and a replay hands out a link that works nowhere. Over real HTTP: a reference service
 * is the upstream, the console's server records, a replay answers from the files.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Recording } from './recording.ts';
import { rawCall, TOKENS, type Answer } from './test-http.ts';
import { startCli, type CliProcess } from './test-support/cli-process.ts';

const SERVER = 'srv_gcal_01';
const AUTH_PATH = `/rest/api/v1/tool-servers/${SERVER}/auth`;

let work = '';
let upstream: CliProcess;
let console_: CliProcess;
let replay: CliProcess | undefined;
const proxied = (path: string) => `/upstream/${new URL(upstream.url).host}${path}`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'record-consent-'));
  upstream = await startCli(['service', '--memory', '--port', '0', '--rate-limit', '0']);
  console_ = await startCli(['start', '--memory', '--port', '0', '--no-build', '--upstream', upstream.url, '--record', join(work, 'rec')]);
}, 120_000);

afterAll(async () => {
  await Promise.all([upstream, console_, replay].map((p) => p?.stop()));
  rmSync(work, { recursive: true, force: true });
});

/** The recordings of `path` written so far, waiting for `n` of them. */
async function recordingsOf(path: string, n: number): Promise<{ text: string; recording: Recording }[]> {
  const dir = join(work, 'rec');
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const all = readdirSync(dir)
      .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .map((text) => ({ text, recording: JSON.parse(text) as Recording }))
      .filter((r) => r.recording.request.path === path);
    if (all.length >= n) return all;
  }
  throw new Error(`fewer than ${n} recordings of ${path}:\n${console_.output()}`);
}

/** The consent page's Allow, posted as its own form posts it. */
function allow(origin: string, state: string): Promise<Answer> {
  return rawCall(origin, 'POST', '/sandbox/oauth/consent', {
    body: new URLSearchParams({ state, decision: 'allow' }).toString(),
    contentType: 'application/x-www-form-urlencoded',
    headers: { 'sec-fetch-site': 'same-origin' },
  });
}

const authStatus = async (origin: string) =>
  ((await rawCall(origin, 'GET', AUTH_PATH, { token: TOKENS.everything })).json as { authStatus: string }).authStatus;

describe('a recorded tool-server authorization', () => {
  let live = '';
  let recorded: { text: string; recording: Recording };

  beforeAll(async () => {
    const asked = await rawCall(console_.url, 'POST', proxied(AUTH_PATH), { token: TOKENS.everything, body: { returnUrl: `${upstream.url}/done` } });
    expect(asked.status).toBe(200);
    live = (asked.json as { authorizationUrl: string }).authorizationUrl;
    recorded = (await recordingsOf(AUTH_PATH, 1))[0]!;
  });

  test('the user still gets the live link through the console’s server', () => {
    expect(new URL(live).pathname).toBe('/sandbox/oauth/consent');
    expect(new URL(live).searchParams.get('state')).toMatch(/^st_/);
  });

  test('the file holds no consent state: the link it keeps is refused by the instance, and the token stays unauthorized', async () => {
    const fromFile = (recorded.recording.response.body as { authorizationUrl: string }).authorizationUrl;
    const kept = new URL(fromFile);
    expect(`${kept.origin}${kept.pathname}`).toBe(`${upstream.url}/sandbox/oauth/consent`);
    // Opened as a browser would open it, then Allow with what it carries.
    const page = await fetch(fromFile);
    const allowed = await allow(upstream.url, kept.searchParams.get('state') ?? '');
    expect({ page: page.status, allow: allowed.status, token: await authStatus(upstream.url) }).toEqual({ page: 400, allow: 400, token: 'AWAITING_AUTH' });
    expect(await page.text()).toContain('This consent link comes from a recording');
    const state = new URL(live).searchParams.get('state')!;
    expect(recorded.text).not.toContain(state);
    expect(recorded.text).not.toContain(encodeURIComponent(state));
  });

  test('the live link, which only the user holds, still works once', async () => {
    const state = new URL(live).searchParams.get('state')!;
    const decided = await allow(upstream.url, state);
    expect(decided.status).toBe(303);
    expect(await authStatus(upstream.url)).toBe('AUTHORIZED');
    expect((await allow(upstream.url, state)).status).toBe(400);
  });

  test('a replay answers the recorded link, which works neither on the replaying service nor on the instance', async () => {
    replay = await startCli(['service', '--memory', '--port', '0', '--replay', join(work, 'rec')]);
    const asked = await rawCall(replay.url, 'POST', AUTH_PATH, { token: TOKENS.everything, body: { returnUrl: `${upstream.url}/done` } });
    expect(asked.status).toBe(200);
    const replayed = new URL((asked.json as { authorizationUrl: string }).authorizationUrl);
    const state = replayed.searchParams.get('state') ?? '';
    for (const origin of [replay.url, upstream.url]) {
      const page = await fetch(`${origin}/sandbox/oauth/consent${replayed.search}`);
      expect(page.status, origin).toBe(400);
      expect(await page.text(), origin).toContain('comes from a recording');
      expect((await allow(origin, state)).status, origin).toBe(400);
    }
  }, 120_000);
});

/**
 * An instance may send one-time secrets elsewhere in an answer: a consent link in a 422's
 * suggestions, a Link header, a field named like a token, an event of a stream (JSON-escaped
 * in its data), an OAuth code or a state in a fragment.
 */
describe('one-time secrets anywhere in an answer', () => {
  let instance: Server;
  let origin = '';
  let console2: CliProcess;
  const STATE = 'st_Zk2vQ9-Lm4Xp7Rt1Wn8Yb3Hc6Jd0Fs5';
  const CODE = 'c0de-4fK9sLq2Vx7Bm1Np';
  const ISSUED = 'tok_issued_9Hq2Lm5Xv8Zc1Bn4';
  const consentUrl = `https://idp.example/authorize?client_id=console&state=${STATE}&redirect_uri=https%3A%2F%2Fapp.example%2Fcb`;

  beforeAll(async () => {
    instance = createServer((req, res) => {
      req.resume();
      if (req.url?.includes('/runs/stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // JSON-escaped as some encoders write it (\/ for /), and a redirect with its OAuth code and state in the fragment.
        res.end(`data: {"authorizationUrl":"${consentUrl.replaceAll('/', '\\/')}"}\n\ndata: {"redirect":"https://app.example/cb#code=${CODE}&state=${STATE}"}\n\n`);
        return;
      }
      if (req.url?.includes('/runs/wait')) {
        res.writeHead(422, { 'content-type': 'application/json', link: `<${consentUrl}>; rel="authorize"` });
        res.end(
          JSON.stringify({
            message: `Authorize first (request ${encodeURIComponent(STATE)}, token ${ISSUED}).`,
            authenticationSuggestions: [{ serverId: 'srv_x', authorizationUrl: consentUrl }],
            access_token: ISSUED,
          }),
        );
        return;
      }
      // Another exchange: a link with a state, and a field named like a token, are found in any answer.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ next: `https://idp.example/authorize?state=${STATE}`, refresh_token: ISSUED }));
    });
    await new Promise<void>((ok) => instance.listen(0, '127.0.0.1', ok));
    origin = `http://127.0.0.1:${(instance.address() as AddressInfo).port}`;
    console2 = await startCli(['start', '--memory', '--port', '0', '--no-build', '--upstream', origin, '--record', join(work, 'rec2')]);
  }, 120_000);

  afterAll(async () => {
    await console2?.stop();
    await new Promise((ok) => instance?.close(ok));
  });

  test('none of them reaches the file, whichever part of the answer carried it; the rest of the answer is kept', async () => {
    const base = `${console2.url}/upstream/${new URL(origin).host}`;
    const headers = { authorization: `Bearer ${TOKENS.everything}`, 'content-type': 'application/json' };
    const wait = await fetch(`${base}/rest/api/v1/agents/runs/wait`, { method: 'POST', headers, body: '{"agent_id":"a"}' });
    expect(wait.status).toBe(422);
    // The client gets the answer as the instance sent it.
    expect(((await wait.json()) as { access_token: string }).access_token).toBe(ISSUED);
    const stream = await fetch(`${base}/rest/api/v1/agents/runs/stream`, { method: 'POST', headers, body: '{"agent_id":"a"}' });
    expect(await stream.text()).toContain(CODE);
    expect((await fetch(`${base}/rest/api/v1/agents/other`, { headers })).status).toBe(200);
    const dir = join(work, 'rec2');
    let files: string[] = [];
    for (const end = Date.now() + 20_000; files.length < 3 && Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      files = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
    }
    expect(files).toHaveLength(3);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      for (const secret of [STATE, CODE, ISSUED]) expect(text, `${f}: ${secret}`).not.toContain(secret);
    }
    const waitRecording = JSON.parse(readFileSync(join(dir, files.find((f) => f.includes('wait'))!), 'utf8')) as Recording;
    expect(waitRecording.response.headers.link).toBe('<https://idp.example/authorize?client_id=console&state=[redacted]&redirect_uri=https%3A%2F%2Fapp.example%2Fcb>; rel="authorize"');
    expect(waitRecording.response.body).toEqual({
      message: 'Authorize first (request [redacted], token [redacted]).',
      authenticationSuggestions: [{ serverId: 'srv_x', authorizationUrl: 'https://idp.example/authorize?client_id=console&state=[redacted]&redirect_uri=https%3A%2F%2Fapp.example%2Fcb' }],
      access_token: '[redacted]',
    });
  });
});
