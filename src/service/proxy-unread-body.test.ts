/**
 * The proxy's 502 for an upstream that is not there, answered to a request whose body was not
 * all read (a review's proof): the connection must not be kept for the next request.
 */
import { Agent, createServer as createHttpServer, request, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hardenServer } from './node.ts';
import { upstreamProxy } from './upstream-proxy.ts';

let proxy: HttpServer;
let host = '';
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
beforeAll(async () => {
  const gone = createNetServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(gone.address() as AddressInfo).port}`;
  await new Promise((r) => gone.close(r));
  const middleware = upstreamProxy([`http://${host}`], { timeoutMs: 5_000 });
  proxy = createHttpServer((req, res) => middleware(req, res, () => res.writeHead(404).end()));
  hardenServer(proxy);
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  agent.destroy();
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
});

/** One PUT on the agent's single keep-alive connection; 'no answer' after 4 s. */
const put = (size: number) =>
  new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('no answer'), 4_000);
    const req = request(
      { agent, host: '127.0.0.1', port: (proxy.address() as AddressInfo).port, method: 'PUT', path: `/upstream/${host}/rest/api/index/custom-metadata/schema/sales`, headers: { host: 'localhost', 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => {
          clearTimeout(timer);
          resolve(String(res.statusCode));
        });
      },
    );
    req.on('error', (e) => {
      clearTimeout(timer);
      resolve(`error: ${e.message}`);
    });
    req.end(Buffer.alloc(size, 0x20));
  });

it('after a 502 for a 2 MB PUT to an upstream that refuses connections, the next request on that keep-alive connection is answered', async () => {
  expect(await put(2_000_000)).toBe('502');
  // The body's rest was never read and the 502 kept the connection: the next request waited behind it.
  expect(await put(10)).toBe('502');
});
