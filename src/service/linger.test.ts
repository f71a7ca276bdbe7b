/**
 * A client that sends its whole body before it reads the answer (Python's http.client, Node's
 * fetch with a large body) must get the answer the service gave before the body came in whole,
 * not a reset: the service reads on and drops the rest (linger.ts), within its bounds.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from './app.ts';
import { hardenServer, listen } from './node.ts';
import { TOKENS } from './test-http.ts';
import { upstreamProxy } from './upstream-proxy.ts';

const RUN_PATH = '/rest/api/v1/agents/runs/wait';
const PLATFORM_RUN_PATH = '/api/agents/echo-assistant/runs';

interface Exchange {
  /** Whether every byte of the body was handed to the kernel without an error. */
  sentWhole: boolean;
  writeError?: string;
  /** What came back, whole, once the server closed. */
  answer: string;
  /** From the end of the body (or of what was sent) to the server's close. */
  closedAfterMs: number;
}

/**
 * Sends `head` and then `bodyBytes` of body in 64 kB writes (chunks of a chunked body when
 * `chunked`), waiting for each to drain; reads nothing until then.
 */
function sendWholeThenRead(port: number, head: string, bodyBytes: number, stopAfter = bodyBytes, chunked = false): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let sentWhole = false;
    let writeError: string | undefined;
    let sentAt = 0;
    socket.pause();
    socket.on('error', (err) => (writeError ??= (err as NodeJS.ErrnoException).code ?? err.message));
    socket.on('close', () => resolve({ sentWhole, writeError, answer: Buffer.concat(chunks).toString('utf8'), closedAfterMs: performance.now() - sentAt }));
    const piece = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const next = (): void => {
      while (sent < stopAfter && !socket.destroyed) {
        const n = Math.min(piece.length, stopAfter - sent);
        sent += n;
        const data = chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), piece.subarray(0, n), Buffer.from('\r\n')]) : piece.subarray(0, n);
        if (!socket.write(data)) return void socket.once('drain', next);
      }
      if (socket.destroyed) return;
      if (chunked && sent === bodyBytes) socket.write('0\r\n\r\n');
      sentWhole = sent === bodyBytes;
      sentAt = performance.now();
      // Only now does the client read, as Python's http.client does.
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.resume();
    };
    const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${bodyBytes}`;
    socket.write(head.replace('\r\n\r\n', `\r\n${framing}\r\n\r\n`), () => next());
  });
}

describe('the reference service: a refusal before the body came in whole reaches a client still sending', () => {
  let server: { url: string; close(): Promise<void> };
  let port = 0;
  beforeAll(async () => {
    // Bounds a loaded machine's pauses in a sending client stay well within.
    server = await listen(createService({ memory: true, rateLimitPerMinute: 0 }), 0, '127.0.0.1', { lingerMs: 10_000, lingerIdleMs: 2_000 });
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close());

  it('answers a 12 MB run body 413, read by a client that sent all of it first', async () => {
    const head = `POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n\r\n`;
    const x = await sendWholeThenRead(port, head, 12_000_000);
    expect(x.writeError, x.answer).toBeUndefined();
    expect(x.sentWhole).toBe(true);
    expect(x.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(x.answer).toMatch(/connection: close/i);
    expect(x.answer).toContain('The body is over 1048576 bytes.');
  });

  it('answers the platform API 413, and a 413 to a chunked body (counted as it comes, not announced), the same way', async () => {
    const platform = await sendWholeThenRead(
      port,
      `POST ${PLATFORM_RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n\r\n`,
      6_000_000,
    );
    expect(platform.writeError, platform.answer).toBeUndefined();
    expect(platform.answer).toMatch(/^HTTP\/1\.1 413 /);
    const chunked = await sendWholeThenRead(
      port,
      `POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n\r\n`,
      40_000_000,
      40_000_000,
      true,
    );
    expect(chunked.writeError, chunked.answer).toBeUndefined();
    expect(chunked.answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('answers a 417 (an Expect other than 100-continue) to a client that sends a 30 MB body first', async () => {
    const head = `POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\nExpect: foo\r\n\r\n`;
    const x = await sendWholeThenRead(port, head, 30_000_000);
    expect(x.writeError, x.answer).toBeUndefined();
    expect(x.answer).toMatch(/^HTTP\/1\.1 417 /);
  });

  it('closes once the client stops sending (idle bound), with the answer delivered', async () => {
    const head = `POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n\r\n`;
    // 3 MB of an announced 12 MB: the client then waits, reading.
    const x = await sendWholeThenRead(port, head, 12_000_000, 3_000_000);
    expect(x.answer).toMatch(/^HTTP\/1\.1 413 /);
    // Closed by the 2 s idle bound, well before the 10 s bound and Node's own 60 s request timeout.
    expect(x.closedAfterMs).toBeLessThan(9_000);
  });
});

describe('the reference service: a lingering connection whose client never stops sending', () => {
  let server: { url: string; close(): Promise<void> };
  let port = 0;
  beforeAll(async () => {
    server = await listen(createService({ memory: true, rateLimitPerMinute: 0 }), 0, '127.0.0.1', { lingerMs: 2_000, lingerIdleMs: 5_000 });
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close());

  it('closes it once the whole bound is spent', async () => {
    // A client that reads the answer and the server's end, and sends on regardless.
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    socket.on('error', () => {});
    const started = performance.now();
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
    socket.write(`POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.agents}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const piece = Buffer.concat([Buffer.from('4000\r\n'), Buffer.alloc(16 * 1024, 0x61), Buffer.from('\r\n')]);
    const pump = setInterval(() => {
      if (!socket.destroyed) socket.write(piece);
    }, 20);
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    clearInterval(pump);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(1_900);
    expect(ms).toBeLessThan(10_000);
  });
});

describe('the reference service: how much a lingering connection reads', () => {
  let server: { url: string; close(): Promise<void> };
  let port = 0;
  beforeAll(async () => {
    server = await listen(createService({ memory: true, rateLimitPerMinute: 0 }), 0, '127.0.0.1', { lingerMs: 10_000, lingerIdleMs: 2_000, lingerMaxBytes: 4_000_000 });
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close());

  it('stops reading a chunked body sent as fast as it goes once the bound is read', async () => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    socket.on('error', () => {});
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
    socket.write(`POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.agents}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const piece = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(65_536, 0x61), Buffer.from('\r\n')]);
    let written = 0;
    const started = performance.now();
    const pump = () => {
      while (!socket.destroyed) {
        written += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    pump();
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    // The bound, and what the kernel's buffers on both sides hold besides.
    expect(written).toBeLessThan(4_000_000 + 32_000_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('does not wait for a body announced over the bound', async () => {
    const x = await sendWholeThenRead(
      port,
      `POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n\r\n`,
      12_000_000,
    );
    // Closed at once after the answer, as before lingering: this client is reset.
    expect(x.sentWhole).toBe(false);
    expect(x.writeError).toMatch(/EPIPE|ECONNRESET/);
  });
});

describe('the reference service: what is pipelined behind a refused body is not served', () => {
  it('leaves a schema PUT sent after a refused body undone (its answer could never be sent)', async () => {
    const service = createService({ memory: true, rateLimitPerMinute: 0 });
    const server = await listen(service, 0, '127.0.0.1', { lingerMs: 10_000, lingerIdleMs: 2_000 });
    try {
      const port = Number(new URL(server.url).port);
      const schema = JSON.stringify({ metadataKeys: [{ name: 'piped', propertyType: 'TEXT' }] });
      const put = `PUT /rest/api/index/custom-metadata/schema/piped HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.everything}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(schema)}\r\n\r\n${schema}`;
      const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
      let answer = '';
      socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
      socket.on('error', () => {});
      const body = Buffer.alloc(3_000_000, 0x61);
      socket.write(`POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.everything}\r\nContent-Length: ${body.length}\r\n\r\n`);
      // The body's end and the next request leave in one write, as a pipelining client's would.
      socket.write(Buffer.concat([body, Buffer.from(put)]));
      socket.end();
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      expect(answer.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 413']);
      const read = await fetch(`${server.url}/rest/api/index/custom-metadata/schema/piped`, { headers: { authorization: `Bearer ${TOKENS.everything}` } });
      expect(read.status).toBe(404);
    } finally {
      await server.close();
    }
  });

  /** Sends `first` and a schema PUT for `group` in one write; the statuses answered, and whether the schema exists after. */
  async function pipelinePut(first: string, group: string): Promise<{ statuses: string[]; schemaAfter: number }> {
    const server = await listen(createService({ memory: true, rateLimitPerMinute: 0 }), 0, '127.0.0.1', { lingerMs: 10_000, lingerIdleMs: 2_000 });
    try {
      const schema = JSON.stringify({ metadataKeys: [{ name: 'piped', propertyType: 'TEXT' }] });
      const put = `PUT /rest/api/index/custom-metadata/schema/${group} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.everything}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(schema)}\r\n\r\n${schema}`;
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(server.url).port), allowHalfOpen: true });
      let answer = '';
      socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
      socket.on('error', () => {});
      socket.end(first + put);
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const read = await fetch(`${server.url}/rest/api/index/custom-metadata/schema/${group}`, { headers: { authorization: `Bearer ${TOKENS.everything}` } });
      return { statuses: answer.match(/HTTP\/1\.1 \d+/g) ?? [], schemaAfter: read.status };
    } finally {
      await server.close();
    }
  }

  it('serves a PUT pipelined behind a refusal that keeps the connection, and answers it', async () => {
    // An unknown token, a small chunked body: read and dropped, and the connection kept.
    const refused = `POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`;
    expect(await pipelinePut(refused, 'kept')).toEqual({ statuses: ['HTTP/1.1 401', 'HTTP/1.1 200'], schemaAfter: 200 });
  });

  it('leaves a PUT pipelined behind a refusal that closes the connection undone, even with the refused body whole', async () => {
    // Expect other than 100-continue: 417 and the connection closed, decided from the head.
    const refused = `POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}`;
    expect(await pipelinePut(refused, 'closed')).toEqual({ statuses: ['HTTP/1.1 417'], schemaAfter: 404 });
  });
});

describe("the console's server: an upstream's early answer reaches a client still sending", () => {
  let upstream: { url: string; close(): Promise<void> };
  let proxy: Server;
  let proxyPort = 0;
  let upstreamHost = '';
  beforeAll(async () => {
    upstream = await listen(createService({ memory: true, rateLimitPerMinute: 0 }), 0, '127.0.0.1', { lingerMs: 10_000, lingerIdleMs: 2_000 });
    upstreamHost = new URL(upstream.url).host;
    const middleware = upstreamProxy([upstream.url], { timeoutMs: 5_000 });
    proxy = createServer((req, res) => middleware(req, res, () => res.writeHead(404).end()));
    hardenServer(proxy, { lingerMs: 10_000, lingerIdleMs: 2_000 });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyPort = (proxy.address() as AddressInfo).port;
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await upstream.close();
  });

  it("passes on the upstream's 413 to a 12 MB run body, read by a client that sent all of it first", async () => {
    const head = `POST /upstream/${upstreamHost}${RUN_PATH} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n\r\n`;
    const x = await sendWholeThenRead(proxyPort, head, 12_000_000);
    expect(x.writeError, x.answer).toBeUndefined();
    expect(x.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(x.answer).toMatch(/connection: close/i);
  });

  it('keeps the connection of a forwarded request whose body the upstream took whole', async () => {
    const body = JSON.stringify({ agent_id: 'echo-assistant', messages: [{ role: 'USER', content: [{ type: 'text', text: 'hi' }] }] });
    const socket = connect({ host: '127.0.0.1', port: proxyPort });
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
    const request = `POST /upstream/${upstreamHost}${RUN_PATH} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    socket.write(request);
    // Until the answer is whole: its Content-Length's worth of body, or a chunked body's last chunk.
    const whole = () => {
      const at = answer.indexOf('\r\n\r\n');
      if (at < 0) return false;
      const length = /^content-length: (\d+)/im.exec(answer.slice(0, at))?.[1];
      return length !== undefined ? Buffer.byteLength(answer.slice(at + 4)) >= Number(length) : answer.endsWith('\r\n0\r\n\r\n');
    };
    for (const end = Date.now() + 5_000; !whole() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
    expect(whole(), answer).toBe(true);
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).not.toMatch(/connection: close/i);
  });
});
