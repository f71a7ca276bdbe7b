/**
 * A hostile stand-in for a production instance: a bare `node:http` server on a free port of
 * 127.0.0.1 that answers the paths the console asks for (agent search, agent, schemas, runs,
 * a metadata group's schema) with bodies that are valid JSON and valid event streams, but
 * cost the page as much as an instance can make them cost. The e2e tests (e2e/hostile.spec.ts)
 * and `bench:stream` start it, and reach it through the console's server (`--upstream`).
 *
 * Every answer is bounded here too: the endless line stops after ENDLESS_LINE_LIMIT bytes or
 * when the client goes away, whichever comes first.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const HOSTILE_TOKEN = 'hostile-instance-token';
/**
 * A second token the instance takes, and echoes (agent `token-echo`): it holds characters each
 * encoding writes differently (`/`, `+`, `=`, `&`, `"`, a space), as a real token may.
 */
export const ECHO_TOKEN = 'echo/this+token=with&odd"chars and spaces';
/** How long a keep-alive-only stream waits between its comments. */
export const KEEP_ALIVE_MS = 500;
/** Message events an endless stream writes at a time (it writes until the client goes away). */
const ENDLESS_BATCH = 200;

/** The catastrophic pattern of issue 27, and what makes it backtrack. */
export const CATASTROPHIC_PATTERN = '^(a+)+$';
export const CATASTROPHIC_INPUT = `${'a'.repeat(40)}!`;
/** A pattern a linear-time engine does not take (a lookahead): the page cannot check it. */
export const LOOKAHEAD_PATTERN = '^(?=.*\\d).+$';

export const WIDE_FORM_FIELDS = 20_000;
export const HUGE_ENUM_VALUES = 50_000;
export const DEEP_SCHEMA_LEVELS = 2_000;
export const WIDE_GROUP_KEYS = 5_001;
export const MANY_MESSAGES = 100_000;
export const MEGABYTE_EVENTS = 200;
export const EVENT_BYTES = 1024 * 1024;
export const ENDLESS_LINE_LIMIT = 512 * 1024 * 1024;

interface HostileAgent {
  agent_id: string;
  name: string;
  description: string;
  messages: boolean;
  schema: () => Record<string, unknown>;
}

function wideForm(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  properties.choice = { type: 'string', title: 'Choice', enum: Array.from({ length: HUGE_ENUM_VALUES }, (_, i) => `value-${i}`) };
  for (let i = 1; i < WIDE_FORM_FIELDS; i++) properties[`field${i}`] = { type: 'string', title: `Field ${i}` };
  return { type: 'object', properties, required: ['choice', 'field1'] };
}

function deepSchema(): Record<string, unknown> {
  let inner: Record<string, unknown> = { type: 'object', properties: { leaf: { type: 'string' } } };
  for (let i = DEEP_SCHEMA_LEVELS - 1; i > 0; i--) inner = { type: 'object', properties: { [`level${i}`]: inner } };
  return inner;
}

export const HOSTILE_AGENTS: HostileAgent[] = [
  {
    agent_id: 'pattern-trap',
    name: 'Pattern trap',
    description: 'A form whose pattern backtracks catastrophically.',
    messages: false,
    schema: () => ({
      type: 'object',
      properties: {
        code: { type: 'string', title: 'Code', pattern: CATASTROPHIC_PATTERN },
        pin: { type: 'string', title: 'PIN', pattern: LOOKAHEAD_PATTERN },
      },
      required: ['code'],
    }),
  },
  { agent_id: 'wide-form', name: 'Wide form', description: `${WIDE_FORM_FIELDS} fields, one with ${HUGE_ENUM_VALUES} values.`, messages: false, schema: wideForm },
  { agent_id: 'deep-form', name: 'Deep form', description: `${DEEP_SCHEMA_LEVELS} nested objects.`, messages: false, schema: deepSchema },
  { agent_id: 'megabyte-events', name: 'Megabyte events', description: `${MEGABYTE_EVENTS} events of 1 MB.`, messages: true, schema: () => ({ type: 'object', properties: {} }) },
  { agent_id: 'endless-line', name: 'Endless line', description: 'An event line that never ends.', messages: true, schema: () => ({ type: 'object', properties: {} }) },
  { agent_id: 'many-messages', name: 'Many messages', description: `A wait answer of ${MANY_MESSAGES} messages.`, messages: true, schema: () => ({ type: 'object', properties: {} }) },
  { agent_id: 'endless-events', name: 'Endless events', description: 'A stream of message events that never ends.', messages: true, schema: () => ({ type: 'object', properties: {} }) },
  { agent_id: 'keep-alive-only', name: 'Keep-alive only', description: 'A stream that sends only keep-alive comments, for ever.', messages: true, schema: () => ({ type: 'object', properties: {} }) },
  { agent_id: 'token-echo', name: 'Token echo', description: 'Echoes the token it was sent, in every encoding: refuses a wait, streams it.', messages: true, schema: () => ({ type: 'object', properties: {} }) },
  { agent_id: 'long-answer', name: 'Long answer', description: 'A wait answer of as many characters as input.chars says.', messages: true, schema: () => ({ type: 'object', properties: {} }) },
];

const agentOf = (a: HostileAgent) => ({
  agent_id: a.agent_id,
  name: a.name,
  description: a.description,
  capabilities: { 'ap.io.messages': a.messages, 'ap.io.streaming': true },
});

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Writes `chunk`, waiting for the socket to drain when it is full; false once the client is gone. */
function write(res: http.ServerResponse, chunk: string | Buffer): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise((ok) => {
    const done = (v: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      ok(v);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

function openStream(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform' });
  res.flushHeaders();
}

/** 200 message events whose data is 1 MB each: one text block of words, numbered. */
async function megabyteEvents(res: http.ServerResponse, count = MEGABYTE_EVENTS): Promise<void> {
  openStream(res);
  const words = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(EVENT_BYTES / 27));
  for (let i = 1; i <= count; i++) {
    const head = `Event ${i} begins. `;
    const tail = ` Event ${i} ends.`;
    const envelope = JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: '' }] }] });
    const room = EVENT_BYTES - envelope.length - head.length - tail.length;
    const text = head + words.slice(0, room) + tail;
    const data = JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text }] }] });
    if (!(await write(res, `id: ${i}\nevent: message\ndata: ${data}\n\n`))) return;
  }
  res.end();
}

/** `data: xxxx…` with no end of line, until the client leaves or ENDLESS_LINE_LIMIT bytes. */
async function endlessLine(res: http.ServerResponse): Promise<void> {
  openStream(res);
  if (!(await write(res, `id: 1\nevent: message\ndata: {"messages":[{"role":"GLEAN_AI","content":[{"type":"text","text":"Before the line. "}]}]}\n\nid: 2\nevent: message\ndata: `))) return;
  const piece = Buffer.alloc(64 * 1024, 'x');
  for (let sent = 0; sent < ENDLESS_LINE_LIMIT; sent += piece.length) {
    if (!(await write(res, piece))) return;
  }
  res.end();
}

/** Message events, a batch at a time, until the client goes away: nothing else ends it. */
async function endlessEvents(res: http.ServerResponse): Promise<void> {
  openStream(res);
  for (let i = 1; ; i += ENDLESS_BATCH) {
    let batch = '';
    for (let j = i; j < i + ENDLESS_BATCH; j++) batch += `id: ${j}\nevent: message\ndata: {"messages":[{"role":"GLEAN_AI","content":[{"type":"text","text":"word${j} "}]}]}\n\n`;
    if (!(await write(res, batch))) return;
  }
}

/** A stream that opens, then sends only keep-alive comments, until the client goes away. */
async function keepAliveOnly(res: http.ServerResponse): Promise<void> {
  openStream(res);
  while (await write(res, ': keep-alive\n\n')) await new Promise((r) => setTimeout(r, KEEP_ALIVE_MS));
}

/** The token as a server may echo it: as it is, percent-encoded (either case), JSON-escaped, in Basic credentials. */
export function echoesOf(token: string): string[] {
  return [
    token,
    encodeURIComponent(token),
    encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    JSON.stringify(token).slice(1, -1).replace(/\//g, '\\/'),
    [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    `Basic ${Buffer.from(`someone:${token}`).toString('base64')}`,
  ];
}

const echoSentence = (token: string) => `The token ${token} is not valid here (as received: ${echoesOf(token).slice(1).join(' | ')}).`;

/** A wait: refused, the token in its problem. A stream: the token in its events and answer. */
async function tokenEcho(res: http.ServerResponse, token: string, stream: boolean): Promise<void> {
  if (!stream) return json(res, 403, { type: 'about:blank', title: 'Forbidden', status: 403, detail: echoSentence(token) });
  openStream(res);
  for (const [i, part] of [echoSentence(token), ` Again: ${token}.`].entries()) {
    if (!(await write(res, `id: ${i + 1}\nevent: message\ndata: ${JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: part }] }] })}\n\n`))) return;
  }
  res.end();
}

function longAnswer(res: http.ServerResponse, agentId: string, body: { input?: { chars?: unknown } } | undefined): void {
  const chars = typeof body?.input?.chars === 'number' ? Math.min(Math.max(0, Math.floor(body.input.chars)), 1_000_000) : 1_000;
  const text = 'The answer. '.repeat(Math.ceil(chars / 12)).slice(0, chars);
  json(res, 200, { run: { agent_id: agentId, status: 'success' }, messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text }] }] });
}

function manyMessages(res: http.ServerResponse, agentId: string): void {
  const messages = Array.from({ length: MANY_MESSAGES }, (_, i) => ({ role: 'GLEAN_AI', content: [{ type: 'text', text: `Message ${i + 1}. ` }] }));
  json(res, 200, { run: { agent_id: agentId, status: 'success' }, messages });
}

function wideGroup(): Record<string, unknown> {
  return { metadataKeys: Array.from({ length: WIDE_GROUP_KEYS }, (_, i) => ({ name: `key${i + 1}`, propertyType: i % 2 ? 'TEXT' : 'PICKLIST' })) };
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

async function answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const token = req.headers.authorization?.replace(/^Bearer /, '');
  if (token !== HOSTILE_TOKEN && token !== ECHO_TOKEN) return json(res, 401, { type: 'about:blank', title: 'Unauthorized', status: 401 });
  if (req.method === 'POST' && path === '/api/agents/search') {
    await readBody(req);
    return json(res, 200, { agents: HOSTILE_AGENTS.map(agentOf) });
  }
  const group = /^\/rest\/api\/index\/custom-metadata\/schema\/([^/]+)$/.exec(path);
  if (req.method === 'GET' && group) return group[1] === 'wide' ? json(res, 200, wideGroup()) : json(res, 404, { error: 'not found', message: 'No schema.' });
  const m = /^\/api\/agents\/([^/]+)(\/schemas|\/runs)?$/.exec(path);
  const agent = m && HOSTILE_AGENTS.find((a) => a.agent_id === decodeURIComponent(m[1]!));
  if (!m || !agent) return json(res, 404, { type: 'about:blank', title: 'Not found', status: 404 });
  if (req.method === 'GET' && !m[2]) return json(res, 200, { agent: agentOf(agent) });
  if (req.method === 'GET' && m[2] === '/schemas') return json(res, 200, { agent_id: agent.agent_id, name: agent.name, input_schema: agent.schema(), output_schema: {} });
  if (req.method === 'POST' && m[2] === '/runs') {
    const body = (await readBody(req)) as { stream?: boolean; input?: { chars?: unknown } } | undefined;
    if (agent.agent_id === 'many-messages') return manyMessages(res, agent.agent_id);
    if (agent.agent_id === 'token-echo') return tokenEcho(res, token, Boolean(body?.stream));
    if (agent.agent_id === 'long-answer') return longAnswer(res, agent.agent_id, body);
    if (body?.stream && agent.agent_id === 'endless-events') return endlessEvents(res);
    if (body?.stream && agent.agent_id === 'keep-alive-only') return keepAliveOnly(res);
    if (!body?.stream) return json(res, 200, { run: { agent_id: agent.agent_id, status: 'success' }, messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: 'Done.' }] }] });
    if (agent.agent_id === 'endless-line') return endlessLine(res);
    return megabyteEvents(res, agent.agent_id === 'megabyte-events' ? MEGABYTE_EVENTS : 1);
  }
  return json(res, 405, { type: 'about:blank', title: 'Method not allowed', status: 405 });
}

export interface HostileInstance {
  origin: string;
  close(): Promise<void>;
}

export async function startHostileInstance(): Promise<HostileInstance> {
  const server = http.createServer((req, res) => {
    answer(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
