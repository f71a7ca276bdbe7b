/**
 * The work a refused request buys grows in proportion to its body, never faster: each
 * hostile body is handled at a sixteenth of the 1 MB limit and at the limit, and the CPU
 * time (of this process, where the service runs in process) may grow at most sixteenfold,
 * not 256-fold. The duplicate check of interaction ids compared every id with every other
 * (indexOf inside find): 23,000 ids held the event loop for up to 1.65 s.
 *
 * A ratio, not a time: it holds on a loaded machine, as both sizes are measured in the same
 * run. Linear work gives about 16 (less with the fixed cost of a request, a little more with
 * the garbage collector: up to 19 measured here); the quadratic check gave 55, the fixed
 * cost hiding most of its growth at the small size. The bound sits between them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Service } from './app.ts';
import { MAX_BODY_BYTES } from './http.ts';
import { call, freshService, TOKENS } from './test-http.ts';

const MAX_RATIO = 32;

let service: Service;
let pausedRun = '';

beforeAll(async () => {
  service = freshService();
  const created = await call(service, 'POST', '/api/agents/expense-filer/runs', {
    token: TOKENS.agents,
    body: { execution_mode: 'DURABLE', messages: [{ role: 'USER', content: [{ type: 'text', text: 'file it' }] }] },
  });
  pausedRun = (created.json as { run: { run_id: string } }).run.run_id;
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    const got = await call(service, 'GET', `/api/agents/expense-filer/runs/${pausedRun}`, { token: TOKENS.agents });
    if ((got.json as { run: { state: string } }).run.state === 'REQUIRES_INPUT') return;
  }
  throw new Error('the run never paused for its approval');
});
afterAll(() => service.close());

/** `head`, as many `item(i)` as fit in `bytes` (comma-separated), then `tail`. */
function filled(bytes: number, head: string, item: (i: number) => string, tail: string): string {
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const s = item(i);
    if (size + s.length + 1 > bytes) break;
    parts.push(s);
    size += s.length + 1;
  }
  return `${head}${parts.join(',')}${tail}`;
}

interface Case {
  name: string;
  path: string;
  status: number;
  body: (bytes: number) => string;
}

const CASES: Case[] = [
  {
    name: 'unique interaction ids (the duplicate check)',
    path: '/api/agents/expense-filer/responses',
    status: 409,
    body: (n) => filled(n, `{"run_id":"${pausedRun}","responses":[`, (i) => `{"interaction_id":"${i}","decision":"REJECT"}`, ']}'),
  },
  {
    name: 'invalid response items',
    path: '/api/agents/expense-filer/responses',
    status: 400,
    body: (n) => filled(n, `{"run_id":"${pausedRun}","responses":[`, () => '{"x":1}', ']}'),
  },
  { name: 'invalid messages', path: '/api/agents/echo-assistant/runs', status: 400, body: (n) => filled(n, '{"messages":[', () => '{"role":"X"}', ']}') },
  {
    name: 'invalid content blocks',
    path: '/api/agents/echo-assistant/runs',
    status: 400,
    body: (n) => filled(n, '{"messages":[{"role":"USER","content":[', () => '{"type":"x"}', ']}]}'),
  },
  { name: 'unknown keys', path: '/api/agents/echo-assistant/runs', status: 400, body: (n) => filled(n, '{"messages":[],', (i) => `"k${i}":1`, '}') },
  {
    name: 'unknown keys in the client API',
    path: '/rest/api/v1/agents/runs/wait',
    status: 400,
    body: (n) => filled(n, '{"agent_id":"echo-assistant",', (i) => `"k${i}":1`, '}'),
  },
];

/**
 * CPU milliseconds this process spends on one request with `body`: the least of seven. The
 * process's CPU time counts its other threads too (the collector's), which a loaded machine
 * delays into whichever request comes next; the least is the request's own work.
 */
async function cpuMs(path: string, body: string, status: number): Promise<number> {
  const times: number[] = [];
  for (let k = 0; k < 7; k++) {
    const start = process.cpuUsage();
    const a = await call(service, 'POST', path, { token: TOKENS.agents, body });
    const used = process.cpuUsage(start);
    expect(a.status).toBe(status);
    times.push((used.user + used.system) / 1000);
  }
  return Math.min(...times);
}

describe('work per request grows with the body, not faster', { timeout: 60_000 }, () => {
  test.each(CASES)('$name', async (c) => {
    const small = c.body(MAX_BODY_BYTES / 16);
    const large = c.body(MAX_BODY_BYTES);
    // The first requests compile the code on their path: not part of either figure.
    await cpuMs(c.path, small, c.status);
    const smallMs = await cpuMs(c.path, small, c.status);
    const largeMs = await cpuMs(c.path, large, c.status);
    expect(largeMs / Math.max(smallMs, 1), `${smallMs.toFixed(1)} ms at 64 kB, ${largeMs.toFixed(1)} ms at 1 MB`).toBeLessThan(MAX_RATIO);
  });
});
