/**
 * X-Sandbox-Fault on the reference service (contract/sandbox-fault.ts): asked per request
 * by a client's developer, to see their code meet a 429, a slow first event or a broken
 * stream. Only the API paths honour it; the sandbox routes do not.
 *
 * - A malformed value answers 400 in the path's API family, saying why; nothing runs.
 * - `status` alone answers that error at once (before the token is read), `Retry-After` with
 *   it: an answer at once costs the service nothing, whoever asks.
 * - The stream settings (drop-after, delay-first, stall-after, slow-bytes) go to the event
 *   stream the request opens (sse.ts); on a JSON answer, delay-first holds the answer and
 *   slow-bytes paces its bytes, and the others do nothing: there are no events to count.
 *
 * delay-first and slow-bytes hold an answer, and so a connection and its memory, for as long
 * as asked: they apply only to a request that is admitted (its token known, its scope and rate
 * limit passed: `admitFault` behind each family's checks), and each such request holds one of
 * its token's run slots until its answer has ended or its client has left. A refusal (401,
 * 403, 413, 429, a 400 of the route) is answered at once, as without the header. A wait run
 * waits before it runs, so nothing of its answer is held meanwhile.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { STATUS_CODES } from 'node:http';
import { PROBLEM_CODES, type ProblemCode } from '../contract/problem.ts';
import { parseSandboxFault, SANDBOX_FAULT_HEADER, type SandboxFault } from '../contract/sandbox-fault.ts';
import { SSE_CONTENT_TYPE } from '../contract/sse.ts';
import { familyOf, refusalBody, type Refusal } from './families.ts';
import { nodeResponseOf, type Env, type HeldFault } from './http.ts';
import type { RunSlots } from './runs.ts';
import { sleepUnless } from './sse.ts';
import { throttledBody } from './throttle.ts';

/** The platform code a status fault answers with; statuses the vendor names no code for get the service's own. */
const CODE_OF_STATUS: Record<number, ProblemCode> = {
  400: 'invalid_request',
  401: 'authentication_required',
  403: 'insufficient_permissions',
  404: 'resource_not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'request_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** The code of a status fault with no code of its own in the vendor's list (REFERENCE_ONLY_CODES). */
export const SANDBOX_FAULT_CODE = 'sandbox_fault';

export function isApiPath(path: string): boolean {
  return path.startsWith('/rest/') || path.startsWith('/api/');
}

/** The refusal a status fault answers: the status's own code and title, in every family. */
export function statusFaultRefusal(status: number, text: string): Refusal {
  const code = CODE_OF_STATUS[status];
  const reason = STATUS_CODES[status] ?? 'Error';
  return {
    status,
    code: code ?? SANDBOX_FAULT_CODE,
    title: code ? PROBLEM_CODES[code].title : reason,
    error: reason.toLowerCase(),
    detail: text,
  };
}

function answer(c: Context<Env>, rawPath: string, r: Refusal): Response {
  const { contentType, body } = refusalBody(familyOf(rawPath), r, c.get('requestId'));
  return c.body(body, r.status as 400, { 'content-type': contentType });
}

/** Settings that hold an answer for a time: only an admitted request gets them. */
export function holdsAnswer(fault: SandboxFault): boolean {
  return (fault.delayFirst ?? 0) > 0 || fault.slowBytes !== undefined;
}

/** The answer a status fault asks for, `Retry-After` and `WWW-Authenticate` with it. */
function statusAnswer(c: Context<Env>, rawPath: string, fault: SandboxFault & { status: number }): Response {
  if (fault.retryAfter !== undefined) c.header('Retry-After', String(fault.retryAfter));
  if (fault.status === 401) c.header('WWW-Authenticate', 'Bearer');
  const text = `Sandbox fault: ${SANDBOX_FAULT_HEADER} asked for status ${fault.status}${fault.retryAfter !== undefined ? ` with Retry-After: ${fault.retryAfter}` : ''}; nothing was run.`;
  return answer(c, rawPath, statusFaultRefusal(fault.status, text));
}

/**
 * The request's fault, or the answer it gets at once: a 400 for a malformed value, the error
 * a `status` alone asks for. A `status` with delay-first or slow-bytes is answered once the
 * request is admitted (`admitFault`).
 */
export function readFault(c: Context<Env>, rawPath: string): { fault?: SandboxFault; response?: Response } {
  const value = c.req.header(SANDBOX_FAULT_HEADER);
  if (value === undefined || !isApiPath(rawPath)) return {};
  const parsed = parseSandboxFault(value);
  if (!parsed.ok) {
    return { response: answer(c, rawPath, { status: 400, code: 'invalid_request', title: PROBLEM_CODES.invalid_request.title, error: 'invalid sandbox fault', detail: parsed.problem }) };
  }
  const fault = parsed.fault;
  if (fault.status === undefined || holdsAnswer(fault)) return { fault };
  return { fault, response: statusAnswer(c, rawPath, { ...fault, status: fault.status }) };
}

/**
 * What an admitted request with a holding fault holds: one of its token's run slots, given back
 * once (`release`) when its answer has ended or its client has left.
 */
export class FaultHold implements HeldFault {
  private delayed = false;
  private released = false;
  /** The answer is the status the fault asked for, not a refusal of the service's own. */
  statusAnswer = false;

  constructor(
    readonly fault: SandboxFault,
    private readonly free: () => void,
  ) {}

  /**
   * Waits delay-first, once per request: a wait run calls it before it runs (nothing of its
   * answer is made meanwhile), any other answer after its route. Ends early when `signal`
   * aborts (the client left), its timer cleared.
   */
  async delay(signal: AbortSignal): Promise<void> {
    if (this.delayed) return;
    this.delayed = true;
    await sleepUnless(this.fault.delayFirst ?? 0, signal);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.free();
  }
}

/**
 * Behind a family's token, scope and rate-limit checks: a request whose fault holds its
 * answer takes one of its token's run slots (a run that follows runs in it), or is refused as
 * a run past the cap would be, at once; a `status` with delay-first or slow-bytes is answered
 * here, held like any other answer.
 */
export function admitFault(slots: RunSlots, refuseFull: (c: Context<Env>) => Response): MiddlewareHandler<Env> {
  return async (c, next) => {
    const fault = c.get('fault');
    if (!fault || !holdsAnswer(fault)) return next();
    const release = slots.take(c.get('tokenKey'));
    if (!release) return refuseFull(c);
    const hold = new FaultHold(fault, release);
    c.set('faultHold', hold);
    if (fault.status !== undefined) {
      hold.statusAnswer = true;
      return statusAnswer(c, new URL(c.req.url).pathname, { ...fault, status: fault.status });
    }
    await next();
  };
}

/** The header of @hono/node-server's marker for an answer a handler wrote to the socket itself (a stream). */
const ALREADY_SENT_HEADER = 'x-hono-already-sent';

/**
 * Runs the request with its fault (the stream settings are read by the SSE writer through the
 * context), then shapes the answer of an admitted request: delay-first holds a JSON answer
 * (unless a wait run waited already), slow-bytes paces its bytes, and its slot is given back
 * when the answer has ended. The answer is left in `c.res`.
 */
export async function withFault(c: Context<Env>, rawPath: string, next: Next): Promise<void> {
  const { fault, response } = readFault(c, rawPath);
  if (response) {
    c.res = response;
    return;
  }
  if (fault) c.set('fault', fault);
  try {
    await next();
  } catch (err) {
    c.get('faultHold')?.release();
    throw err;
  }
  // Not admitted (refused before, or nothing to hold): the answer goes as the routes made it.
  const hold = c.get('faultHold');
  if (!hold) return;
  const res = c.res;
  const outgoing = nodeResponseOf(c);
  // A stream shapes itself (sse.ts); on Node it has already gone out.
  const stream = outgoing?.headersSent === true || res.headers.has(ALREADY_SENT_HEADER) || (res.headers.get('content-type') ?? '').startsWith(SSE_CONTENT_TYPE);
  if (!stream) {
    const signal = c.req.raw.signal;
    // The route's own refusal (a bad body, an unknown agent, the run cap): at once, as without the fault.
    if ((res.status >= 400 && !hold.statusAnswer) || signal.aborted) return hold.release();
    await hold.delay(signal);
    if (signal.aborted) return hold.release();
    if (hold.fault.slowBytes !== undefined && res.body) {
      c.res = new Response(throttledBody(res.body, hold.fault.slowBytes), { status: res.status, headers: res.headers });
    }
  }
  releaseWhenAnswered(c, hold);
}

/** Gives the slot back once the answer has left (or its client has): on Node when the response closes. */
function releaseWhenAnswered(c: Context<Env>, hold: HeldFault): void {
  const outgoing = nodeResponseOf(c);
  if (outgoing) {
    if (outgoing.closed) hold.release();
    else outgoing.once('close', () => hold.release());
    return;
  }
  // In process (`app.request`): when the body has been read, or its reader gave up.
  const body = c.res.body;
  if (!body) return hold.release();
  const reader = body.getReader();
  c.res = new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            hold.release();
            controller.close();
          } else controller.enqueue(value);
        } catch (err) {
          hold.release();
          controller.error(err);
        }
      },
      cancel(reason) {
        hold.release();
        return reader.cancel(reason);
      },
    }),
    { status: c.res.status, headers: c.res.headers },
  );
}
