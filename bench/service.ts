/**
 * `npm run bench:service`: the reference service against a bare `node:http` server, on
 * 127.0.0.1 only, in one run of well under two minutes.
 *
 *   (a) schema GET throughput: autocannon, 50 connections, pipelining 1, a short warm-up
 *       then 10 s per target, on GET /rest/api/index/custom-metadata/schema/sales; the
 *       bare server answers the very body and content type the service answered.
 *   (b) SSE throughput: one client reads the firehose agent's N events (POST
 *       /api/agents/firehose/runs) and a bare writer's N events of the same framing, one
 *       res.write per event, with back-pressure; 3 alternating runs each, median shown.
 *
 * Each server runs in its own child process (this file, `--serve service|bare`, under
 * tsx), started the same way, so the load generator here never shares their event loop.
 * This is a report: it exits 0 when a target is missed, and 1 only when something broke
 * (a lost or malformed event, a non-2xx answer, a server that died, a timeout).
 *
 * Environment knobs: BENCH_SSE_EVENTS (default 200000), BENCH_DURATION_S (default 10),
 * BENCH_CHILD_NODE_ARGS (extra node flags for both server children, e.g. `--cpu-prof`),
 * BENCH_ONLY=get|sse (one part alone, for profiling).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Instance, Result } from 'autocannon';

const HOST = '127.0.0.1';
const SCHEMA_PATH = '/rest/api/index/custom-metadata/schema/sales';
const SALES_TOKEN = 'sandbox-sales-8b1e6d0c93a2f457';
const RUN_PATH = '/api/agents/firehose/runs';
const AGENTS_TOKEN = 'sandbox-agents-1d6f3b9e0a7c2548';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = 2;
const SSE_EVENTS = Number(process.env.BENCH_SSE_EVENTS ?? 200_000);
const SSE_WARMUP_EVENTS = 20_000;
const SSE_ROUNDS = 3;
const SSE_RUN_TIMEOUT_MS = 30_000;
const WHOLE_RUN_TIMEOUT_MS = 150_000;

const ONLY = process.env.BENCH_ONLY;

const GET_TARGET = 0.5;
const SSE_TARGET = 0.8;

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** The firehose's event `n`, byte for byte as the service frames it. */
function frame(n: number): string {
  return `id: ${n}\nevent: message\ndata: {"messages":[{"role":"GLEAN_AI","content":[{"type":"text","text":"token ${n} "}]}]}\n\n`;
}
const FRAME_BASE_LENGTH = frame(0).length - 2; // without the two "0"s

type Kind = 'service' | 'bare';
type ToChild = { type: 'bare-config'; body: string; contentType: string } | { type: 'cpu' };
type FromChild = { type: 'listening'; port: number } | { type: 'cpu'; usage: NodeJS.CpuUsage };

// --- Server children ----------------------------------------------------------------

function send(msg: FromChild): void {
  process.send?.(msg);
}

async function serveService(): Promise<void> {
  const { createService } = await import('../src/service/app.ts');
  const { listen } = await import('../src/service/node.ts');
  const service = createService({ memory: true, rateLimitPerMinute: 0 });
  const { url } = await listen(service, 0, HOST);
  send({ type: 'listening', port: Number(new URL(url).port) });
}

function serveBare(body: Buffer, contentType: string): void {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === SCHEMA_PATH) {
      if (req.headers.authorization !== `Bearer ${SALES_TOKEN}`) {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
      res.end(body);
      return;
    }
    if (req.method === 'POST' && req.url === RUN_PATH) {
      const parts: Buffer[] = [];
      req.on('data', (b: Buffer) => parts.push(b));
      req.on('end', () => {
        const count = Number((JSON.parse(Buffer.concat(parts).toString()) as { input: { count: number } }).input.count);
        res.writeHead(200, SSE_HEADERS);
        res.flushHeaders();
        let n = 1;
        let closed = false;
        res.on('close', () => (closed = true));
        const pump = () => {
          while (n <= count && !closed) {
            if (!res.write(frame(n++))) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
      });
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, HOST, () => send({ type: 'listening', port: (server.address() as { port: number }).port }));
}

function runChild(kind: Kind): void {
  process.on('disconnect', () => process.exit(0));
  process.on('message', (msg: ToChild) => {
    if (msg.type === 'cpu') send({ type: 'cpu', usage: process.cpuUsage() });
    else if (msg.type === 'bare-config') serveBare(Buffer.from(msg.body, 'utf8'), msg.contentType);
  });
  if (kind === 'service') void serveService();
}

// --- Orchestrator -------------------------------------------------------------------

class Broken extends Error {}

interface Server {
  kind: Kind;
  port: number;
  child: ChildProcess;
  /** Server CPU time (user + system) in ms since the child started. */
  cpuMs(): Promise<number>;
}

const children: ChildProcess[] = [];
let finishing = false;

function killChildren(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

/** Lets the children exit on their own (so `--cpu-prof` can write), then kills what is left. */
async function stopChildren(): Promise<void> {
  finishing = true;
  const exits = children.map((c) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r))));
  for (const c of children) if (c.connected) c.disconnect();
  await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 3_000).unref())]);
  killChildren();
}

function startServer(kind: Kind, bareConfig?: { body: string; contentType: string }): Promise<Server> {
  const extra = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...extra, '--import', 'tsx', fileURLToPath(import.meta.url), '--serve', kind], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  child.on('exit', (code, signal) => {
    if (finishing) return;
    console.error(`\nBROKEN: the ${kind} server exited (code ${code}, signal ${signal}) during the bench.`);
    killChildren();
    process.exit(1);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Broken(`the ${kind} server did not start within 20 s`)), 20_000);
    const onMessage = (msg: FromChild) => {
      if (msg.type !== 'listening') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve({
        kind,
        port: msg.port,
        child,
        cpuMs: () =>
          new Promise((done) => {
            const onCpu = (m: FromChild) => {
              if (m.type !== 'cpu') return;
              child.off('message', onCpu);
              done((m.usage.user + m.usage.system) / 1000);
            };
            child.on('message', onCpu);
            child.send({ type: 'cpu' } satisfies ToChild);
          }),
      });
    };
    child.on('message', onMessage);
    if (bareConfig) child.send({ type: 'bare-config', ...bareConfig } satisfies ToChild);
  });
}

function get(port: number, path: string, token: string): Promise<{ status: number; contentType: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: HOST, port, path, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.setTimeout(5_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

// (a) schema GET ----------------------------------------------------------------------

interface GetResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  serverCpuUsPerReq: number;
  clientCpuPct: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function cannon(server: Server, seconds: number, record: boolean): Promise<{ result: Result; latencies: Float64Array }> {
  const { default: autocannon } = await import('autocannon');
  let latencies = new Float64Array(1 << 18);
  let n = 0;
  const result = await new Promise<Result>((resolve, reject) => {
    const instance: Instance = autocannon(
      {
        url: `http://${HOST}:${server.port}${SCHEMA_PATH}`,
        method: 'GET',
        headers: { authorization: `Bearer ${SALES_TOKEN}` },
        connections: CONNECTIONS,
        pipelining: 1,
        duration: seconds,
        timeout: 5,
      },
      (err, res) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(res)),
    );
    if (record) {
      // autocannon's own histogram keeps whole milliseconds; keep the exact times too.
      instance.on('response', (_client, _status, _bytes, responseTime) => {
        if (n === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[n++] = responseTime;
      });
    }
  });
  const sorted = latencies.slice(0, n).sort();
  const bad = result.errors + result.timeouts + result.non2xx;
  if (bad > 0) {
    throw new Broken(`${server.kind}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers under load`);
  }
  return { result, latencies: sorted };
}

async function measureGet(server: Server): Promise<GetResult> {
  await cannon(server, WARMUP_S, false);
  const cpu0 = await server.cpuMs();
  const client0 = process.cpuUsage();
  const { result, latencies } = await cannon(server, DURATION_S, true);
  const client = process.cpuUsage(client0);
  const cpu = (await server.cpuMs()) - cpu0;
  const requests = result.requests.total;
  return {
    rps: requests / (result.duration || DURATION_S),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    requests,
    serverCpuUsPerReq: (cpu * 1000) / requests,
    clientCpuPct: ((client.user + client.system) / 1000 / (result.duration * 1000)) * 100,
  };
}

// (b) SSE -----------------------------------------------------------------------------

interface SseResult {
  events: number;
  ms: number;
  eventsPerSec: number;
  serverCpuUsPerEvent: number;
  clientCpuPct: number;
}

const TERMINATOR = Buffer.from('\n\n');
const ID_PREFIX = Buffer.from('id: ');

function digits(n: number): number {
  return n < 10 ? 1 : Math.floor(Math.log10(n)) + 1;
}

/**
 * Reads one SSE answer and checks it on the fly: ids 1..count in order, none lost, each
 * event as long as its expected frame, and a sample compared byte for byte.
 */
function readSse(port: number, count: number): Promise<{ events: number; ms: number }> {
  const payload = JSON.stringify({ stream: true, input: { count } });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let expected = 1;
    let pending: Buffer | undefined;
    let failed = false;
    const fail = (why: string) => {
      if (failed) return;
      failed = true;
      req.destroy();
      reject(new Broken(why));
    };
    const timer = setTimeout(() => fail(`SSE run of ${count} events did not finish within ${SSE_RUN_TIMEOUT_MS / 1000} s (got ${expected - 1})`), SSE_RUN_TIMEOUT_MS);
    const req = http.request(
      {
        host: HOST,
        port,
        path: RUN_PATH,
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${AGENTS_TOKEN}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const type = String(res.headers['content-type'] ?? '');
        if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
          return fail(`SSE answer was ${res.statusCode} ${type}, not 200 text/event-stream`);
        }
        res.on('data', (chunk: Buffer) => {
          if (failed) return;
          const buf = pending ? Buffer.concat([pending, chunk]) : chunk;
          let pos = 0;
          for (let end = buf.indexOf(TERMINATOR, pos); end !== -1; end = buf.indexOf(TERMINATOR, pos)) {
            if (buf[pos] !== 0x3a /* ':' comment */) {
              if (buf.compare(ID_PREFIX, 0, 4, pos, pos + 4) !== 0) return fail(`event ${expected} does not start with "id: "`);
              let id = 0;
              for (let i = pos + 4; buf[i]! >= 0x30 && buf[i]! <= 0x39; i++) id = id * 10 + buf[i]! - 0x30;
              if (id !== expected) {
                return fail(id > expected ? `lost events ${expected}..${id - 1}` : `event id ${id} after ${expected - 1}: out of order`);
              }
              if (end + 2 - pos !== FRAME_BASE_LENGTH + 2 * digits(id)) return fail(`event ${id} is not framed as expected`);
              if ((id & 0x3fff) === 1 || id === count) {
                if (buf.toString('utf8', pos, end + 2) !== frame(id)) return fail(`event ${id} differs from the expected frame`);
              }
              expected++;
            }
            pos = end + 2;
          }
          pending = pos < buf.length ? buf.subarray(pos) : undefined;
        });
        res.on('end', () => {
          clearTimeout(timer);
          if (failed) return;
          const ms = performance.now() - started;
          if (pending?.length) return fail(`stream ended inside an event (after id ${expected - 1})`);
          if (expected - 1 !== count) return fail(`stream ended after ${expected - 1} of ${count} events: events lost`);
          resolve({ events: count, ms });
        });
        res.on('error', (err) => fail(`SSE read failed: ${err.message}`));
      },
    );
    req.on('error', (err) => fail(`SSE request failed: ${err.message}`));
    req.end(payload);
  });
}

async function measureSse(server: Server, count: number): Promise<SseResult> {
  const cpu0 = await server.cpuMs();
  const client0 = process.cpuUsage();
  const { events, ms } = await readSse(server.port, count);
  const client = process.cpuUsage(client0);
  const cpu = (await server.cpuMs()) - cpu0;
  return {
    events,
    ms,
    eventsPerSec: (events / ms) * 1000,
    serverCpuUsPerEvent: (cpu * 1000) / events,
    clientCpuPct: ((client.user + client.system) / 1000 / ms) * 100,
  };
}

// Report ------------------------------------------------------------------------------

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function verdict(ratio: number, target: number): string {
  return ratio >= target ? 'met' : `missed by ${fmt((1 - ratio / target) * 100, 1)}%`;
}

function cpuRow(label: string, service: number, bare: number, digits: number): string[] {
  return [label, fmt(service, digits), fmt(bare, digits), `${fmt(bare / service, 2)}x`, '', ''];
}

/** Other work on the machine skews every rate here; say how busy it was. */
function machineLoad(when: string): string {
  const cpus = os.availableParallelism();
  const [one] = os.loadavg();
  const busy = one! > cpus * 0.75 ? `: busy, other processes compete for the ${cpus} CPUs and the rates are noisy` : '';
  return `load average ${when}: ${one!.toFixed(2)} on ${cpus} CPUs${busy}`;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}

async function main(): Promise<void> {
  const watchdog = setTimeout(() => {
    console.error(`\nBROKEN: the bench did not finish within ${WHOLE_RUN_TIMEOUT_MS / 1000} s.`);
    killChildren();
    process.exit(1);
  }, WHOLE_RUN_TIMEOUT_MS);
  watchdog.unref();

  console.log(`node ${process.version}; servers in child processes on ${HOST}; load generator in this process`);
  console.log(machineLoad('before'));
  const service = await startServer('service');
  const reference = await get(service.port, SCHEMA_PATH, SALES_TOKEN);
  if (reference.status !== 200) throw new Broken(`the service answered the schema GET with ${reference.status}`);
  const bare = await startServer('bare', { body: reference.body.toString('utf8'), contentType: reference.contentType });
  const check = await get(bare.port, SCHEMA_PATH, SALES_TOKEN);
  if (check.status !== 200 || !check.body.equals(reference.body) || check.contentType !== reference.contentType) {
    throw new Broken('the bare server does not answer the same bytes as the service');
  }
  console.log(`schema body: ${reference.body.length} bytes, ${reference.contentType}`);

  const rows: string[][] = [['measure', 'service', 'bare node:http', 'service/bare', 'target', 'verdict']];

  if (ONLY !== 'sse') {
    console.log(`\n(a) GET ${SCHEMA_PATH}: ${CONNECTIONS} connections, pipelining 1, ${WARMUP_S} s warm-up + ${DURATION_S} s each`);
    const g = {} as Record<Kind, GetResult>;
    for (const server of [service, bare]) {
      const r = await measureGet(server);
      g[server.kind] = r;
      console.log(
        `  ${server.kind.padEnd(7)} ${fmt(r.rps).padStart(7)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  ` +
          `(${fmt(r.requests)} requests; server ${fmt(r.serverCpuUsPerReq, 1)} µs CPU/request; load generator ${fmt(r.clientCpuPct)}% CPU)`,
      );
    }
    const ratio = g.service.rps / g.bare.rps;
    rows.push(
      ['schema GET requests/s', fmt(g.service.rps), fmt(g.bare.rps), `${fmt(ratio, 2)}x`, `>= ${GET_TARGET}x`, verdict(ratio, GET_TARGET)],
      ['schema GET p50 latency (ms)', fmt(g.service.p50, 2), fmt(g.bare.p50, 2), '', '', ''],
      ['schema GET p99 latency (ms)', fmt(g.service.p99, 2), fmt(g.bare.p99, 2), '', '', ''],
      // The cost per request, less swayed by a busy machine than a rate; ratio bare/service.
      cpuRow('schema GET server CPU µs/request', g.service.serverCpuUsPerReq, g.bare.serverCpuUsPerReq, 1),
    );
  }

  if (ONLY !== 'get') {
    console.log(`\n(b) SSE: ${fmt(SSE_EVENTS)} events per run, ${SSE_ROUNDS} alternating runs each (after a ${fmt(SSE_WARMUP_EVENTS)}-event warm-up)`);
    for (const server of [service, bare]) await readSse(server.port, SSE_WARMUP_EVENTS);
    const runs: Record<Kind, SseResult[]> = { service: [], bare: [] };
    for (let round = 1; round <= SSE_ROUNDS; round++) {
      for (const server of [service, bare]) {
        const r = await measureSse(server, SSE_EVENTS);
        runs[server.kind].push(r);
        console.log(
          `  run ${round} ${server.kind.padEnd(7)} ${fmt(r.eventsPerSec).padStart(9)} events/s  ${fmt(r.ms)} ms  ` +
            `(server ${fmt(r.serverCpuUsPerEvent, 2)} µs CPU/event; client ${fmt(r.clientCpuPct)}% CPU; all ${fmt(r.events)} ids in order)`,
        );
      }
    }
    const perSec = (kind: Kind) => median(runs[kind].map((r) => r.eventsPerSec));
    const ratio = perSec('service') / perSec('bare');
    rows.push(
      [`SSE events/s (median of ${SSE_ROUNDS})`, fmt(perSec('service')), fmt(perSec('bare')), `${fmt(ratio, 2)}x`, `>= ${SSE_TARGET}x`, verdict(ratio, SSE_TARGET)],
      cpuRow(
        `SSE server CPU µs/event (median)`,
        median(runs.service.map((r) => r.serverCpuUsPerEvent)),
        median(runs.bare.map((r) => r.serverCpuUsPerEvent)),
        2,
      ),
      // A lost event never gets here: readSse throws and the run exits 1.
      ['SSE events lost', '0', '0', '', '0', 'met'],
    );
  }

  console.log(`\n${machineLoad('after')}`);
  console.log('\nSummary (CPU rows: ratio is bare/service, the share of bare throughput the service would reach per core)');
  console.log(table(rows));
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt !== -1) {
  runChild(process.argv[serveAt + 1] as Kind);
} else {
  main()
    .then(async () => {
      await stopChildren();
      process.exit(0);
    })
    .catch((err: unknown) => {
      finishing = true;
      console.error(`\nBROKEN: ${err instanceof Error ? err.message : String(err)}`);
      killChildren();
      process.exit(1);
    });
}
