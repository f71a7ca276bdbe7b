import type { Context } from 'hono';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { SandboxFault } from '../contract/sandbox-fault.ts';
import { PROBLEM_CODES, problemType, type ProblemCode, type ProblemDetail, type ProblemFieldError } from '../contract/problem.ts';
import { clip, type FieldProblem, type ProblemList } from './problem-list.ts';
import type { TokenRecord } from './store.ts';

/** Variables every route can read from the context. */
export interface Env {
  Variables: {
    requestId: string;
    token: TokenRecord;
    tokenKey: string;
    /** A run POST's `messages` as it arrived, for the sandbox's log of run POSTs. */
    runMessages?: unknown;
    /** What the request's X-Sandbox-Fault asks of its answer (faults.ts). */
    fault?: SandboxFault;
    /** The run slot an admitted request with a delay-first or slow-bytes fault holds until its answer ends (faults.ts). */
    faultHold?: HeldFault;
  };
}

/** What an admitted request with a holding fault keeps until its answer ends: one run slot (faults.ts's FaultHold). */
export interface HeldFault {
  readonly fault: SandboxFault;
  /** The answer is the status the fault asked for, not a refusal of the service's own. */
  statusAnswer: boolean;
  /** Waits delay-first, once per request, ending early when `signal` aborts. */
  delay(signal: AbortSignal): Promise<void>;
  /** Gives the slot back (once). */
  release(): void;
}

export const MAX_BODY_BYTES = 1024 * 1024;

/** Deeper JSON is refused: echoing or storing it would overflow the stack (a 500). */
export const MAX_JSON_DEPTH = 64;

/**
 * True when JSON `text` nests objects or arrays more than `limit` levels deep. It reads the
 * text, before any parse: JSON.parse of a 1 MB body nested half a million levels deep took
 * a quarter of a second or more, and walking what it built as long again. One pass over the
 * characters, strings skipped; for text that is not JSON the answer does not matter, as the
 * body is refused either way.
 */
export function jsonNestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: past escapes, whose second character may be a quote.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
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

/**
 * The Node response under a request, when it came through node-server (the console's server,
 * `npm run service`); undefined in process (`app.request`). An answer written on it directly
 * (a stream, a replay that breaks off) is not the Response Hono holds.
 */
export function nodeResponseOf(c: Context): ServerResponse | undefined {
  return (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
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
  if (jsonNestedDeeperThan(text, MAX_JSON_DEPTH)) {
    return { ok: false, status: 400, message: `The body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, status: 400, message: `The body is not valid JSON: ${(err as Error).message}` };
  }
  return { ok: true, value };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The keys of `obj` not in `allowed`, in order: one pass, whatever the number of keys. */
export function unknownKeys(obj: Record<string, unknown>, allowed: readonly string[]): string[] {
  const out: string[] = [];
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) out.push(k);
  return out;
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
  return problemBodyOf(c.get('requestId'), code, detail, extra);
}

/** `problemBody` for a request known by its id alone. */
export function problemBodyOf(
  requestId: string,
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
    request_id: requestId,
    documentation_url: problemType(code),
    ...extra,
  };
}

/** Characters of a listed problem's pointer or detail: 100 of them stay well under 256 kB. */
const MAX_PROBLEM_TEXT = 500;

/**
 * A problem's `errors` member for `problems`: the listed ones, and `errors_omitted`, how many
 * more were found (an extension member of this service; absent when none were left out).
 */
export function problemListMembers(problems: ProblemList<FieldProblem>): { errors: ProblemFieldError[]; errors_omitted?: number } {
  const errors = problems.listed.map(({ pointer, detail, code }) => ({
    pointer: clip(pointer, MAX_PROBLEM_TEXT),
    detail: clip(detail, MAX_PROBLEM_TEXT),
    ...(code !== undefined && { code }),
  }));
  return problems.omitted > 0 ? { errors, errors_omitted: problems.omitted } : { errors };
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
