import type { Context } from 'hono';
import { randomBytes } from 'node:crypto';
import { PROBLEM_CODES, problemType, type ProblemCode, type ProblemDetail } from '../contract/problem.ts';
import type { TokenRecord } from './store.ts';

/** Variables every route can read from the context. */
export interface Env {
  Variables: {
    requestId: string;
    token: TokenRecord;
    tokenKey: string;
    /** A run POST's `messages` as it arrived, for the sandbox's log of run POSTs. */
    runMessages?: unknown;
  };
}

export const MAX_BODY_BYTES = 1024 * 1024;

/** Deeper JSON is refused: echoing or storing it would overflow the stack (a 500). */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests objects or arrays more than `limit` levels deep; no recursion. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Marks a 413 answer to close the connection: the unread rest of the body would otherwise
 * stay on a kept-alive socket, and the client's next request on it could fail.
 */
export function closeAfterTooLarge(c: Context): void {
  c.header('Connection', 'close');
}

// Request ids take their random bytes from a block drawn 512 ids at a time: a
// randomBytes call per request was a visible share of a small GET's cost.
let idBytes = Buffer.alloc(0);
let idOffset = 0;

export function newRequestId(): string {
  if (idOffset + 8 > idBytes.length) {
    idBytes = randomBytes(4096);
    idOffset = 0;
  }
  idOffset += 8;
  return `req_${idBytes.toString('hex', idOffset - 8, idOffset)}`;
}

export type BodyResult =
  | { ok: true; value: unknown }
  | { ok: false; status: 400 | 415; message: string };

/**
 * Reads a JSON body. An absent body is `undefined` (callers decide if that is allowed);
 * anything but JSON is 415 and malformed JSON is 400, never a 500.
 */
export async function readJson(c: Context): Promise<BodyResult> {
  const text = await c.req.text();
  if (text.trim() === '') return { ok: true, value: undefined };
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    return {
      ok: false,
      status: 415,
      message: `The body must be JSON, sent with Content-Type: application/json (got ${type ? `"${type}"` : 'no content type'}).`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, status: 400, message: `The body is not valid JSON: ${(err as Error).message}` };
  }
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) {
    return { ok: false, status: 400, message: `The body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.` };
  }
  return { ok: true, value };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function unknownKeys(obj: Record<string, unknown>, allowed: readonly string[]): string[] {
  return Object.keys(obj).filter((k) => !allowed.includes(k));
}

// --- The three error families of docs/api.md--------------------------------------------

/** Custom metadata: `{ error, message? }`. */
export function metadataError(c: Context, status: number, error: string, message?: string): Response {
  return c.json(message === undefined ? { error } : { error, message }, status as 400);
}

/** Client API: a plain JSON string. */
export function legacyError(c: Context, status: number, text: string): Response {
  return c.json(text, status as 400);
}

export function problemBody(
  c: Context<Env>,
  code: ProblemCode | string,
  detail: string,
  extra: Partial<ProblemDetail> & Record<string, unknown> = {},
): ProblemDetail {
  const known = PROBLEM_CODES[code as ProblemCode] as { status: number; title: string } | undefined;
  return {
    type: problemType(code),
    title: known?.title ?? 'Error',
    status: known?.status ?? 500,
    detail,
    code,
    request_id: c.get('requestId'),
    documentation_url: problemType(code),
    ...extra,
  };
}

/** Platform API: RFC 9457 problem details. */
export function problem(
  c: Context<Env>,
  code: ProblemCode | string,
  detail: string,
  extra: Partial<ProblemDetail> & Record<string, unknown> = {},
): Response {
  const body = problemBody(c, code, detail, extra);
  return c.body(JSON.stringify(body), body.status as 400, { 'content-type': 'application/problem+json' });
}
