/**
 * What a lingering connection costs the rest of the service, and what other early-closed
 * connections do (from an attack on the linger: a body of 1-byte chunks, a pipelined PUT
 * behind a 417, a body sent a byte at a time past Node's request timeout).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from './app.ts';
import { listen } from './node.ts';
import { TOKENS } from './test-http.ts';

const RUN_PATH = '/rest/api/v1/agents/runs/wait';

/**
 * A client in a process of its own: a chunked run POST whose first chunk is one byte over the
 * limit (413 at once, then the connection lingers), then 1-byte chunks as fast as it can.
 */
const TINY_CHUNK_CLIENT = `
const net = require('node:net');
const [port, token] = process.argv.slice(1);
const s = net.connect({ host: '127.0.0.1', port: +port, allowHalfOpen: true });
s.on('error', () => {});
s.on('data', () => {});
s.write('POST ${RUN_PATH} HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAuthorization: Bearer ' + token + '\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n');
s.write('100001\\r\\n'); s.write(Buffer.alloc(0x100001, 97)); s.write('\\r\\n');
const piece = Buffer.from('1\\r\\na\\r\\n'.repeat(10000));
const pump = () => { while (!s.destroyed && s.writable) { if (!s.write(piece)) return void s.once('drain', pump); } };
pump();
`;

describe('a lingering connection fed 1-byte chunks', () => {
  let server: { url: string; close(): Promise<void> };
  let client: ChildProcess | undefined;
  beforeAll(async () => {
    server = await listen(createService({ memory: true, rateLimitPerMinute: 0 }), 0, '127.0.0.1', { lingerMs: 4_000, lingerIdleMs: 1_000 });
  });
  afterAll(async () => {
    client?.kill();
    await server.close();
  });

  it('does not stall the service\'s event loop (GETs of other clients stay fast)', async () => {
    const port = new URL(server.url).port;
    client = spawn(process.execPath, ['-e', TINY_CHUNK_CLIENT, port, TOKENS.everything], { stdio: 'ignore' });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    // Let the 413 go and the linger begin.
    await new Promise((r) => setTimeout(r, 500));
    delay.enable();
    await new Promise((r) => setTimeout(r, 3_000));
    delay.disable();
    client.kill();
    const medianMs = delay.percentile(50) / 1e6;
    // A linger that parsed every 1-byte chunk it dropped (32 reads of 64 kB per wake-up) held
    // the loop for seconds at a time, its median wait over a second. The median, not the
    // longest: a loaded machine delays a turn now and then, not half of them.
    expect(medianMs, `event loop waited ${medianMs.toFixed(0)} ms at the median (longest ${(delay.max / 1e6).toFixed(0)} ms)`).toBeLessThan(200);
  });
});

describe('what is pipelined behind an early close that does not linger', () => {
  it('leaves a schema PUT sent after a 417 (Expect other than 100-continue, Connection: close) undone', async () => {
    const service = createService({ memory: true, rateLimitPerMinute: 0 });
    const server = await listen(service, 0, '127.0.0.1');
    try {
      const port = Number(new URL(server.url).port);
      const schema = JSON.stringify({ metadataKeys: [{ name: 'piped', propertyType: 'TEXT' }] });
      const put = `PUT /rest/api/index/custom-metadata/schema/piped417 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.everything}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(schema)}\r\n\r\n${schema}`;
      const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
      let answer = '';
      socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
      socket.on('error', () => {});
      socket.write(`POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: foo\r\nContent-Length: 7\r\n\r\n{"x":1}` + put);
      socket.end();
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      expect(answer.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 417']);
      const read = await fetch(`${server.url}/rest/api/index/custom-metadata/schema/piped417`, { headers: { authorization: `Bearer ${TOKENS.everything}` } });
      // The client was told only 417; the PUT must not have changed the schema.
      expect(read.status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe("Node's request timeout answered 408", () => {
  it('closes the connection even when the client keeps sending its body', async () => {
    const server = await listen(createService({ memory: true, rateLimitPerMinute: 0 }), 0, '127.0.0.1', {
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
      checkIntervalMs: 250,
      bodyIdleTimeoutMs: 1_000,
    });
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(server.url).port), allowHalfOpen: true });
    try {
      let answer = '';
      let closed = false;
      socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
      socket.on('error', () => {});
      socket.on('close', () => (closed = true));
      socket.write(`POST ${RUN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.everything}\r\nContent-Length: 1000000\r\n\r\n`);
      // A byte every 300 ms: never idle long enough for the body watch, never done.
      const pump = setInterval(() => socket.writable && socket.write('a'), 300);
      await new Promise((r) => setTimeout(r, 9_000));
      clearInterval(pump);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      // The 408 went (the server's FIN with it) but the socket is never destroyed: it reads on.
      expect(closed, 'connection still open 9 s in, long after its 408').toBe(true);
    } finally {
      socket.destroy();
      await server.close();
    }
  });
});
