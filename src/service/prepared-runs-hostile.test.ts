import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Service, ServiceOptions } from './app.ts';
import { listen } from './node.ts';
import { freshService, TOKENS } from './test-http.ts';

/**
 * Hostile requests to the run streams started ahead of Hono (prepared-runs.ts), sent over a
 * raw socket, as a client that does not follow the rules would: each is answered as the
 * routes answer it, never started on a reading of the request the routes would not share.
 */

const running: { close(): Promise<void>; service: Service }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.close();
    r.service.close();
  }
});

/** A service on a port; `prepared: false` takes the prepared way in away, so that the routes answer everything. */
async function start(prepared: boolean, options: ServiceOptions = { memory: true, rateLimitPerMinute: 0 }) {
  const base = freshService(options);
  const service: Service = prepared ? base : { ...base, preparedRun: undefined };
  const server = await listen(service, 0);
  running.push({ close: server.close, service: base });
  return { port: Number(new URL(server.url).port) };
}

/** Sends `head` and `body` as they are; resolves with the status line and the problem's detail, if any. */
function rawExchange(port: number, head: string, body: string): Promise<{ status: number; detail?: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (out += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0);
      const detail = /"detail":"((?:[^"\\]|\\.)*)"/.exec(out)?.[1];
      resolve(detail === undefined ? { status } : { status, detail });
    });
    socket.end(head + body);
  });
}

const hi = { messages: [{ role: 'USER', content: [{ type: 'text', text: 'hi there' }] }], stream: true };

describe('hostile requests to the run streams started ahead of the routes', () => {
  it('a header sent twice (Authorization, Content-Type, Host) is judged as the routes judge it: no run on the first copy alone', async () => {
    const prepared = await start(true);
    const routes = await start(false);
    const body = JSON.stringify(hi);
    const auth = `Authorization: Bearer ${TOKENS.agents}`;
    const json = 'Content-Type: application/json';
    const host = 'Host: 127.0.0.1';
    const cases: [string, string[]][] = [
      ['a valid token, then another', [host, auth, 'Authorization: Bearer sandbox-unknown-token', json]],
      ['the same token twice', [host, auth, auth, json]],
      ['JSON, then text', [host, auth, json, 'Content-Type: text/plain']],
      ['a loopback host, then another site', [host, 'Host: rebound.example', auth, json]],
    ];
    for (const [name, lines] of cases) {
      const head = `POST /api/agents/echo-assistant/runs HTTP/1.1\r\n${lines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
      const a = await rawExchange(prepared.port, head, body);
      const b = await rawExchange(routes.port, head, body);
      expect({ name, answer: a }).toEqual({ name, answer: b });
      expect(a.status, name).toBeGreaterThanOrEqual(400);
    }
  });
});
