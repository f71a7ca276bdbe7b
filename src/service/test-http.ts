/**
 * Helpers for the service's tests: requests in process or over real HTTP, and checks of
 * the three error-body families of docs/api.md. Test-only; nothing in the service imports it.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect } from 'vitest';
import { AgentCatalog } from './agents.ts';
import { assembleService, createService, type Service, type ServiceOptions } from './app.ts';
import { listen } from './node.ts';
import type { ProblemDetail } from '../contract/problem.ts';
import { DEMO_TOKENS, seedIfEmpty } from './seed.ts';
import { Store } from './store.ts';

function demoToken(label: string): string {
  const found = DEMO_TOKENS.find((t) => t.label === label);
  if (!found) throw new Error(`No demo token labelled ${label}`);
  return found.token;
}

/** The seeded tokens by role. */
export const TOKENS = {
  global: demoToken('Demo: global metadata'),
  sales: demoToken('Demo: group sales'),
  hr: demoToken('Demo: group hr'),
  agents: demoToken('Demo: agents'),
  everything: demoToken('Demo: global metadata and agents'),
} as const;

let catalog: AgentCatalog | undefined;

/**
 * What `createService` builds (a seeded store and the app), but sharing one agent catalog
 * across tests: compiling the agents' schemas is most of a service's start-up time, and
 * the catalog holds no state a request changes.
 */
export function freshService(options: ServiceOptions = { memory: true, rateLimitPerMinute: 0 }): Service {
  catalog ??= new AgentCatalog();
  const store = new Store(options);
  seedIfEmpty(store);
  // The ways in ahead of the app too (prepared reads and runs), as `npm run service` has them.
  return assembleService(store, catalog, options);
}

export const bearer = (token: string) => `Bearer ${token}`;

export interface Answer {
  status: number;
  headers: Headers;
  contentType: string;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface CallOptions {
  /** The whole Authorization header; `token` builds a Bearer one. */
  authorization?: string;
  token?: string;
  /** A value is sent as JSON; a string is sent as is. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /** rawCall only: ask to keep the connection open, as browsers and fetch do (Node's default without an agent is `Connection: close`). */
  keepAlive?: boolean;
}

function headersOf(options: CallOptions): Record<string, string> {
  const headers: Record<string, string> = { ...options.headers };
  const auth = options.authorization ?? (options.token !== undefined ? bearer(options.token) : undefined);
  if (auth !== undefined) headers.authorization = auth;
  if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  return headers;
}

function bodyOf(options: CallOptions): string | undefined {
  if (options.body === undefined) return undefined;
  return typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
}

/** A fetch Response read whole into an Answer. */
export async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, contentType: res.headers.get('content-type') ?? '', text, json: parse(text) };
}

/** One request through `service.app.request`, without a socket. */
export async function call(service: Service, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  return answerOf(await service.app.request(path, { method, headers: headersOf(options), body: bodyOf(options) }));
}

/**
 * One request over a fresh TCP connection (no pooling), with full control of Host,
 * Origin and Sec-Fetch-* headers, which fetch may rewrite or add.
 */
export function rawCall(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const url = new URL(path, baseUrl);
  const body = bodyOf(options);
  const headers: Record<string, string> = headersOf(options);
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  if (options.keepAlive) headers.connection = 'keep-alive';
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          }
          const text = Buffer.concat(chunks).toString('utf8');
          // Without an agent nothing reuses the socket; do not wait for the server's idle timeout.
          if (options.keepAlive) res.socket?.destroy();
          resolve({ status: res.statusCode ?? 0, headers: h, contentType: h.get('content-type') ?? '', text, json: parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// --- The error families of docs/api.md ----------------------------------------------------

/** Custom metadata: `{ "error": string, "message"?: string }`, JSON. */
export function expectMetadataError(a: Answer, status: number): void {
  expect({ status: a.status, text: a.text }).toMatchObject({ status });
  expect(a.contentType).toMatch(/^application\/json/);
  const body = a.json as Record<string, unknown>;
  expect(body).toBeTypeOf('object');
  expect(body).not.toBeNull();
  expect(Array.isArray(body)).toBe(false);
  expect(body.error).toBeTypeOf('string');
  expect((body.error as string).length).toBeGreaterThan(0);
  if ('message' in body) expect(body.message).toBeTypeOf('string');
  expect(Object.keys(body).every((k) => k === 'error' || k === 'message')).toBe(true);
}

/** Client API: the body is one JSON string. Returns it. */
export function expectLegacyError(a: Answer, status: number): string {
  expect({ status: a.status, text: a.text }).toMatchObject({ status });
  expect(a.contentType).toMatch(/^application\/json/);
  expect(a.json).toBeTypeOf('string');
  expect((a.json as string).length).toBeGreaterThan(0);
  return a.json as string;
}

export type ProblemBody = ProblemDetail;

/** Platform API: RFC 9457 `application/problem+json` with a code. Returns the body. */
export function expectProblem(a: Answer, status: number, code?: string): ProblemBody {
  expect({ status: a.status, text: a.text }).toMatchObject({ status });
  expect(a.contentType).toMatch(/^application\/problem\+json/);
  const body = a.json as ProblemBody;
  expect(body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    code: expect.any(String),
    request_id: expect.any(String),
  });
  if (code !== undefined) expect(body.code).toBe(code);
  const requestId = a.headers.get('x-request-id');
  if (requestId) expect(body.request_id).toBe(requestId);
  return body;
}

export type Family = 'metadata' | 'legacy' | 'platform';

/** Checks the family's error body for `status`. */
export function expectFamilyError(family: Family, a: Answer, status: number): void {
  if (family === 'metadata') expectMetadataError(a, status);
  else if (family === 'legacy') expectLegacyError(a, status);
  else expectProblem(a, status);
}

export function pointersOf(body: ProblemBody): string[] {
  return (body.errors ?? []).map((e) => e.pointer);
}

/**
 * One service on a real port for a whole test file: registers the start and stop hooks
 * and gives the running instance to the tests.
 */
export function listeningService(options: ServiceOptions = { memory: true, rateLimitPerMinute: 0 }) {
  const state: { service?: Service; server?: { url: string; close(): Promise<void> } } = {};
  beforeAll(async () => {
    state.service = createService(options);
    state.server = await listen(state.service, 0);
  });
  afterAll(async () => {
    await state.server?.close();
    state.service?.close();
  });
  return {
    get service(): Service {
      return state.service!;
    },
    get url(): string {
      return state.server!.url;
    },
  };
}
