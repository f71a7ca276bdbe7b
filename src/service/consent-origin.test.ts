/**
 * The consent page's origin (issue 37): the service's own origins come from what it listens
 * on and from `--allowed-return-origin`, never from a request. A Host header with another
 * port, an absolute-form target (`POST http://evil.example/… HTTP/1.1`) or X-Forwarded-*
 * headers, sent over a raw socket, must not make a returnUrl on the attacker's origin
 * acceptable, nor point the consent page's form, its policy or its redirect there.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ownOriginsOf } from './own-origins.ts';
import { hashToken, newTokenString } from './store.ts';
import { listeningService, TOKENS } from './test-http.ts';
import { ToolAuthorizations } from './tool-auth.ts';

const server = listeningService({ memory: true, rateLimitPerMinute: 0, allowedHosts: ['devbox.lan'] });
const port = () => Number(new URL(server.url).port);
const own = () => `http://127.0.0.1:${port()}`;

interface Raw {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** Sends `head` (lines without their CRLF) and `body` as they are, and reads the answer until the server closes. */
function exchange(head: string[], body = ''): Promise<Raw> {
  return new Promise((done, fail) => {
    const socket = connect({ host: '127.0.0.1', port: port() });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', fail);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
      const headers = new Headers();
      for (const line of lines) headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim());
      let text = raw.slice(split + 4);
      // Chunked bodies are short here: one chunk, then the last.
      if (headers.get('transfer-encoding') === 'chunked') text = text.slice(text.indexOf('\r\n') + 2, text.lastIndexOf('\r\n0\r\n'));
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      done({ status: Number(statusLine!.split(' ')[1]), headers, text, json });
    });
    const length = Buffer.byteLength(body);
    socket.end([...head, `Content-Length: ${length}`, 'Connection: close', '', body].join('\r\n'));
  });
}

/** `POST …/tool-servers/srv_gcal_01/auth` asking to return to `returnUrl`, with this request target and these extra header lines. */
function authorize(returnUrl: string, { target, host, extra = [], token = TOKENS.agents }: { target?: string; host?: string; extra?: string[]; token?: string } = {}) {
  const path = '/rest/api/v1/tool-servers/srv_gcal_01/auth';
  return exchange(
    [`POST ${target ?? path} HTTP/1.1`, `Host: ${host ?? `127.0.0.1:${port()}`}`, `Authorization: Bearer ${token}`, 'Content-Type: application/json', ...extra],
    JSON.stringify({ returnUrl }),
  );
}

const linkOf = (a: Raw) => new URL((a.json as { authorizationUrl: string }).authorizationUrl);

describe('a returnUrl on an origin the request names is refused (400)', () => {
  it('an absolute-form target on the attacker’s origin', async () => {
    const a = await authorize('http://evil.example/phish', { target: 'http://evil.example/rest/api/v1/tool-servers/srv_gcal_01/auth' });
    expect(a.status).toBe(400);
    expect(a.json).toBe(
      `returnUrl is on http://evil.example, which is not an allowed return URL: this service returns only to ${own()}, http://localhost:${port()}, http://devbox.lan:${port()}. ` +
        'Start it with --allowed-return-origin <origin> to allow another console.',
    );
  });

  it.each([
    ['a loopback Host on another port', '127.0.0.1:9999', 'http://127.0.0.1:9999/runs'],
    ['localhost on another port', 'localhost:9999', 'http://localhost:9999/runs'],
    ['[::1] on the service’s port (it listens on 127.0.0.1 only)', `[::1]:${'PORT'}`, 'http://[::1]:PORT/runs'],
    ['another 127.x address', `127.0.0.2:${'PORT'}`, 'http://127.0.0.2:PORT/runs'],
    ['an allowed host name on another port', 'devbox.lan:9999', 'http://devbox.lan:9999/runs'],
  ])('a Host header: %s', async (_, host, returnUrl) => {
    const a = await authorize(returnUrl.replace('PORT', String(port())), { host: host.replace('PORT', String(port())) });
    expect(a.status).toBe(400);
    expect(a.json).toMatch(/which is not an allowed return URL/);
  });

  it('X-Forwarded-Host and X-Forwarded-Proto', async () => {
    const a = await authorize('https://evil.example/phish', { extra: ['X-Forwarded-Host: evil.example', 'X-Forwarded-Proto: https', 'Forwarded: host=evil.example;proto=https'] });
    expect(a.status).toBe(400);
  });
});

describe('the service’s own origins, from what it listens on', () => {
  it.each([
    ['127.0.0.1', 'PORT'],
    ['localhost', 'PORT'],
    ['devbox.lan', 'PORT'],
  ])('a returnUrl on http://%s:<its port> is taken, whatever Host the request names', async (name) => {
    const returnUrl = `http://${name}:${port()}/runs/calendar-helper`;
    for (const host of [`127.0.0.1:${port()}`, '127.0.0.1:9999']) {
      const a = await authorize(returnUrl, { host });
      expect(a.status, a.text).toBe(200);
      // The consent page is one of the service's own origins, never the one the request named.
      expect([own(), `http://localhost:${port()}`, `http://devbox.lan:${port()}`]).toContain(linkOf(a).origin);
    }
  });

  it('the consent link is on the service’s own origin even when the request named another', async () => {
    const evil = await authorize(`${own()}/runs`, { target: 'http://evil.example/rest/api/v1/tool-servers/srv_gcal_01/auth' });
    expect(evil.status).toBe(200);
    expect(linkOf(evil).origin).toBe(own());
    const otherPort = await authorize(`${own()}/runs`, { host: '127.0.0.1:9999' });
    expect(linkOf(otherPort).origin).toBe(own());
    // Among its own, the one the console reached it on.
    const local = await authorize(`${own()}/runs`, { host: `localhost:${port()}` });
    expect(linkOf(local).origin).toBe(`http://localhost:${port()}`);
  });

  it('are what each bound address is reached by', () => {
    const allowed = ['devbox.lan'];
    expect(ownOriginsOf('127.0.0.1', 8787, [])).toEqual(['http://127.0.0.1:8787', 'http://localhost:8787']);
    expect(ownOriginsOf('127.0.0.2', 8787, [])).toEqual(['http://127.0.0.2:8787']);
    expect(ownOriginsOf('::1', 8787, [])).toEqual(['http://[::1]:8787', 'http://localhost:8787']);
    expect(ownOriginsOf('0.0.0.0', 8787, allowed)).toEqual(['http://127.0.0.1:8787', 'http://localhost:8787', 'http://devbox.lan:8787']);
    expect(ownOriginsOf('::', 8787, allowed)).toEqual(['http://127.0.0.1:8787', 'http://[::1]:8787', 'http://localhost:8787', 'http://devbox.lan:8787']);
    // A LAN address is answered only when it is given with --allowed-host: no origin of its own.
    expect(ownOriginsOf('192.168.1.5', 8787, [])).toEqual([]);
    expect(ownOriginsOf('192.168.1.5', 8787, ['192.168.1.5'])).toEqual(['http://192.168.1.5:8787']);
    // Port 80 is the scheme's own: the origin has no port.
    expect(ownOriginsOf('127.0.0.1', 80, [])).toEqual(['http://127.0.0.1', 'http://localhost']);
  });
});

describe('the consent page reached with a foreign Host or target', () => {
  const state = async () => linkOf(await authorize(`${own()}/runs/calendar-helper`)).searchParams.get('state')!;

  it('offers its form to itself and the console it was asked for, and never to the origin the request names', async () => {
    const s = await state();
    for (const [target, host] of [
      [`/sandbox/oauth/consent?state=${s}`, '127.0.0.1:9999'],
      [`http://evil.example/sandbox/oauth/consent?state=${s}`, `127.0.0.1:${port()}`],
    ] as const) {
      const page = await exchange([`GET ${target} HTTP/1.1`, `Host: ${host}`]);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toBe(`default-src 'none'; style-src 'self'; form-action 'self' ${own()}; frame-ancestors 'none'; base-uri 'none'`);
      expect(page.text).toContain('<form method="post" action="/sandbox/oauth/consent">');
      expect(page.text).not.toContain('evil.example');
      expect(page.text).not.toContain('9999');
    }
  });

  it('refuses a decision posted from the origin the request names (403), and sends the browser only to the returnUrl the link was made with', async () => {
    const s = await state();
    const decide = (target: string, host: string, origin: string) =>
      exchange(
        [`POST ${target} HTTP/1.1`, `Host: ${host}`, `Origin: ${origin}`, 'Sec-Fetch-Site: same-origin', 'Content-Type: application/x-www-form-urlencoded'],
        new URLSearchParams({ state: s, decision: 'allow' }).toString(),
      );
    expect((await decide('/sandbox/oauth/consent', '127.0.0.1:9999', 'http://127.0.0.1:9999')).status).toBe(403);
    expect((await decide('http://evil.example/sandbox/oauth/consent', `127.0.0.1:${port()}`, 'http://evil.example')).status).toBe(403);
    const mine = await decide('http://evil.example/sandbox/oauth/consent', '127.0.0.1:9999', own());
    expect(mine.status).toBe(303);
    expect(mine.headers.get('location')).toBe(`${own()}/runs/calendar-helper?glean_tool_auth=success&serverId=srv_gcal_01`);
  });

  it('a link whose returnUrl the service no longer returns to (made before a restart on another port) sends nowhere: 400, nothing changed', async () => {
    const token = newTokenString();
    server.service.store.addToken(token, { label: 'old link', scopes: ['agents.run'] });
    const key = hashToken(token).toString('hex');
    const auth = new ToolAuthorizations(server.service.store.database);
    const s = auth.begin(key, 'srv_gcal_01', 'http://127.0.0.1:9999/runs');
    const page = await exchange([`GET /sandbox/oauth/consent?state=${s} HTTP/1.1`, `Host: 127.0.0.1:${port()}`]);
    expect(page.status).toBe(400);
    expect(page.text).not.toContain('9999');
    const posted = await exchange(
      ['POST /sandbox/oauth/consent HTTP/1.1', `Host: 127.0.0.1:${port()}`, `Origin: ${own()}`, 'Sec-Fetch-Site: same-origin', 'Content-Type: application/x-www-form-urlencoded'],
      new URLSearchParams({ state: s, decision: 'allow' }).toString(),
    );
    expect(posted.status).toBe(400);
    expect(posted.headers.get('location')).toBeNull();
    expect(auth.isAuthorized(key, 'srv_gcal_01')).toBe(false);
  });
});
