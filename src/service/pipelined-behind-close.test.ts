/**
 * HTTP pipelining: a request sent behind one whose answer closes the connection (here a 417,
 * its body whole, so nothing lingers) is never answered, so it must not be served either,
 * even when a slower request before both keeps their answers queued (from a review).
 */
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { createService } from './app.ts';
import { listen } from './node.ts';
import { TOKENS } from './test-http.ts';

it('leaves a PUT pipelined behind a 417 undone when a slower request precedes the 417', async () => {
  const server = await listen(createService({ memory: true, rateLimitPerMinute: 0 }), 0, '127.0.0.1');
  try {
    const port = Number(new URL(server.url).port);
    const auth = `Authorization: Bearer ${TOKENS.everything}\r\n`;
    const run = JSON.stringify({ agent_id: 'echo-assistant', input: {} });
    const schema = JSON.stringify({ metadataKeys: [{ name: 'piped', propertyType: 'TEXT' }] });
    const first = `POST /rest/api/v1/agents/runs/wait HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(run)}\r\n\r\n${run}`;
    const refused = `POST /rest/api/v1/agents/runs/wait HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: foo\r\nContent-Length: 7\r\n\r\n{"x":1}`;
    const put = `PUT /rest/api/index/custom-metadata/schema/piped417 HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(schema)}\r\n\r\n${schema}`;
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
    socket.on('error', () => {});
    // All three in one write; the client keeps its side open (ending it would make Node
    // abandon the requests unanswered), and reads until the server ends the connection.
    socket.write(first + refused + put);
    await new Promise<void>((resolve) => socket.once('end', () => resolve()));
    socket.destroy();
    expect(answer.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 417']);
    const read = await fetch(`${server.url}/rest/api/index/custom-metadata/schema/piped417`, { headers: { authorization: `Bearer ${TOKENS.everything}` } });
    expect(read.status, 'the client was told 200 and 417 only, yet the PUT changed the schema').toBe(404);
  } finally {
    await server.close();
  }
});
