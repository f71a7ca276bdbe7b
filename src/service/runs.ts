import type { Context } from 'hono';
import type { Message } from '../contract/agents.ts';
import { MESSAGE_EVENT, RUN_FAILED_EVENT, type MessageEventData, type RunFailedEventData } from '../contract/sse.ts';
import { planRun, sleep, type AgentDefinition, type AgentFailure } from './agents.ts';
import type { SandboxFault } from '../contract/sandbox-fault.ts';
import { problemBodyOf, type Env } from './http.ts';
import { streamSse, type SseOptions, type SseStream } from './sse.ts';
import { Slice } from './turns.ts';

export type Flavour = 'legacy' | 'platform';

export interface RunRequest {
  agent: AgentDefinition;
  input?: Record<string, unknown>;
  messages?: Message[];
  metadata?: Record<string, unknown>;
}

export interface RunOptions {
  keepAliveMs: number;
  observer?: RunObserver;
}

/**
 * How many runs one token may have going at once. Past that a run is refused (429) rather
 * than queued: a client that opens runs faster than they end learns so at once.
 */
export class RunSlots {
  private readonly held = new Map<string, number>();
  private total = 0;

  /** `perToken` 0: no limit. */
  constructor(readonly perToken: number) {}

  /** Slots held now, all tokens together: what a benchmark or a test watches come back. */
  get inUse(): number {
    return this.total;
  }

  /** Takes one of the token's slots: the release to call when the run ends, or undefined when none is free. */
  take(tokenKey: string): (() => void) | undefined {
    const n = this.held.get(tokenKey) ?? 0;
    if (this.perToken > 0 && n >= this.perToken) return undefined;
    this.held.set(tokenKey, n + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.held.get(tokenKey) ?? 1) - 1;
      if (left > 0) this.held.set(tokenKey, left);
      else this.held.delete(tokenKey);
    };
  }
}

/** When a token at its run limit may try again: runs end on their own, often within seconds. */
export const RUN_LIMIT_RETRY_AFTER_S = 5;

/** Why a token past its run cap is refused; a request held by a fault counts as a run. */
export function runCapText(perToken: number): string {
  return `This token already has ${perToken} runs going (a request held by X-Sandbox-Fault counts as one), the most one token may run at once; retry when one has ended.`;
}

export interface RunStarted {
  /** The request id of the POST that started the run. */
  requestId: string;
  flavour: Flavour;
  agentId: string;
  mode: 'stream' | 'wait';
}

export interface RunEnded extends RunStarted {
  /** Message and failure events written (stream) or fragments produced (wait). */
  events: number;
  outcome: 'completed' | 'failed' | 'client-closed' | 'dropped';
}

/** Watches runs: tests count POSTs that started runs and check that work stops on disconnect. */
export interface RunObserver {
  started?(run: RunStarted): void;
  ended?(run: RunEnded): void;
}

function aiMessage(text: string): Message {
  return { role: 'GLEAN_AI', content: [{ type: 'text', text }] };
}

/** One AI message as JSON around its text's JSON, split once like the event data below. */
const [AI_MESSAGE_JSON_HEAD, AI_MESSAGE_JSON_TAIL] = JSON.stringify(aiMessage('\u0000')).split(JSON.stringify('\u0000')) as [string, string];

/**
 * A `message` event's data, `{"messages":[<one AI message>]}`, as JSON. Only the text is
 * serialized per event; the rest is JSON.stringify's own output for that shape, split once.
 */
const [MESSAGE_JSON_HEAD, MESSAGE_JSON_TAIL] = JSON.stringify({ messages: [aiMessage('\u0000')] } satisfies MessageEventData).split(
  JSON.stringify('\u0000'),
) as [string, string];

export function messageEventJson(text: string): string {
  return MESSAGE_JSON_HEAD + JSON.stringify(text) + MESSAGE_JSON_TAIL;
}

/** The text a legacy stream carries when the run fails: that family has no error event. */
export function legacyFailureText(f: AgentFailure): string {
  return `Error: ${f.title}: ${f.detail} (${f.code})`;
}

/** Streams a run; `release` is called once it has ended, however it ended. */
export function streamRun(c: Context<Env>, flavour: Flavour, run: RunRequest, options: RunOptions, release: () => void = () => {}): Response {
  let response!: Response;
  runStream(c.get('requestId'), c.get('fault'), flavour, run, options, release, (sseOptions, produce) => {
    response = streamSse(c, sseOptions, produce);
  });
  return response;
}

/** Opens the stream a run writes to (its head goes out) and runs `produce` against it. */
export type SseOpener = (options: SseOptions, produce: (stream: SseStream) => Promise<void>) => void;

/** `streamRun` for any way in: `open` writes the head and hands over the stream. */
export function runStream(
  requestId: string,
  fault: SandboxFault | undefined,
  flavour: Flavour,
  run: RunRequest,
  options: RunOptions,
  release: () => void,
  open: SseOpener,
): void {
  const keepAliveMs = run.agent.behaviour.keepAliveMs ?? options.keepAliveMs;
  const info: RunStarted = { requestId, flavour, agentId: run.agent.agent_id, mode: 'stream' };
  options.observer?.started?.(info);
  let events = 0;
  let outcome: RunEnded['outcome'] = 'completed';
  open({ keepAliveMs, fault }, async (sse) => {
    try {
      outcome = await produce(sse);
      // Ended here rather than by the writer afterwards: a fault may break the stream at its end.
      sse.end();
    } finally {
      release();
      if (sse.faulted === 'dropped') outcome = 'dropped';
      options.observer?.ended?.({ ...info, events, outcome: outcome === 'dropped' || !sse.closed ? outcome : 'client-closed' });
    }
  });

  async function produce(sse: SseStream): Promise<RunEnded['outcome']> {
    const slice = new Slice();
    for (const step of planRun(run.agent, run.input, run.messages)) {
      if (step.delayMs > 0) {
        await sleep(step.delayMs, sse.signal);
        slice.restart();
      } else if (slice.spent) {
        await slice.yield();
      }
      if (sse.closed) return 'client-closed';
      if (step.drop) {
        sse.drop();
        return 'dropped';
      }
      events++;
      if (step.failure) {
        if (flavour === 'platform') {
          const { documentation_url, ...error } = problemBodyOf(requestId, step.failure.code, step.failure.detail, {
            title: step.failure.title,
            status: step.failure.status,
          });
          const data: RunFailedEventData = { error: { ...error, documentation_url } };
          await sse.send(RUN_FAILED_EVENT, data);
        } else {
          await sse.sendJson(MESSAGE_EVENT, messageEventJson(legacyFailureText(step.failure)));
        }
        return 'failed';
      }
      // Awaited only under back-pressure: a fast run writes a burst of events per tick.
      const paused = sse.sendJson(MESSAGE_EVENT, messageEventJson(step.text ?? ''));
      // A drain is no turn of the loop: it fires from the socket's write callback, and
      // the run would go on writing in that same I/O phase, drain after drain. So the
      // time spent here still counts towards the slice.
      if (paused) await paused;
    }
    return 'completed';
  }
}

/**
 * The answer text of a wait-mode run, kept as JSON-escaped pieces: each slice of work
 * escapes what it produced, so the answer is never one long escape of a million fragments.
 */
class EscapedText {
  private readonly escaped: string[] = [];
  private pending: string[] = [];
  /** A high surrogate whose pair may come with the next fragment; escaped apart it would become \udxxx. */
  private carry = '';

  get empty(): boolean {
    return !this.carry && !this.pending.length && !this.escaped.length;
  }

  add(fragment: string): void {
    if (fragment) this.pending.push(fragment);
  }

  /** Escapes what was added since the last flush. */
  flush(): void {
    if (!this.pending.length) return;
    let text = this.carry + this.pending.join('');
    this.pending = [];
    this.carry = '';
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.carry = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text) this.escaped.push(JSON.stringify(text).slice(1, -1));
  }

  /** The text as a JSON string literal; resets. */
  take(): string {
    this.flush();
    if (this.carry) this.escaped.push(JSON.stringify(this.carry).slice(1, -1));
    const json = `"${this.escaped.join('')}"`;
    this.escaped.length = 0;
    this.carry = '';
    return json;
  }
}

/**
 * Runs to the end and answers once; stops early, answering nothing, if the client leaves.
 * `release` is called once the run has ended, however it ended.
 */
export async function waitRun(
  c: Context<Env>,
  flavour: Flavour,
  run: RunRequest,
  options: RunOptions,
  release: () => void = () => {},
): Promise<Response> {
  try {
    return await assembleWaitAnswer(c, flavour, run, options);
  } finally {
    release();
  }
}

async function assembleWaitAnswer(c: Context<Env>, flavour: Flavour, run: RunRequest, options: RunOptions): Promise<Response> {
  const signal = c.req.raw.signal;
  // delay-first: the run starts after it, so no answer is held in memory meanwhile.
  const hold = c.get('faultHold');
  if (hold) {
    await hold.delay(signal);
    if (signal.aborted) return new Response(null, { status: 499 });
  }
  const info: RunStarted = { requestId: c.get('requestId'), flavour, agentId: run.agent.agent_id, mode: 'wait' };
  options.observer?.started?.(info);
  const text = new EscapedText();
  let events = 0;
  let status: 'success' | 'error' = 'success';
  const messages: string[] = [];
  const slice = new Slice();
  for (const step of planRun(run.agent, run.input, run.messages)) {
    if (step.delayMs > 0) {
      await sleep(step.delayMs, signal);
      slice.restart();
    } else if (slice.spent) {
      text.flush();
      await slice.yield();
    }
    if (signal.aborted) {
      options.observer?.ended?.({ ...info, events, outcome: 'client-closed' });
      return new Response(null, { status: 499 });
    }
    // Waiting has no connection to break mid-answer: it answers with what came before.
    if (step.drop) break;
    events++;
    if (step.failure) {
      status = 'error';
      if (!text.empty) messages.push(AI_MESSAGE_JSON_HEAD + text.take() + AI_MESSAGE_JSON_TAIL);
      messages.push(JSON.stringify(aiMessage(legacyFailureText(step.failure))));
      break;
    }
    text.add(step.text ?? '');
  }
  if (!text.empty) messages.push(AI_MESSAGE_JSON_HEAD + text.take() + AI_MESSAGE_JSON_TAIL);
  options.observer?.ended?.({ ...info, events, outcome: status === 'success' ? 'completed' : 'failed' });
  const echoed = {
    agent_id: run.agent.agent_id,
    ...(run.input !== undefined && { input: run.input }),
    ...(run.messages !== undefined && { messages: run.messages }),
    ...(run.metadata !== undefined && { metadata: run.metadata }),
    status,
  };
  // What c.json({ run, messages, request_id? }) would write, with the messages already JSON.
  const requestId = flavour === 'platform' ? `,"request_id":${JSON.stringify(c.get('requestId'))}` : '';
  const json = `{"run":${JSON.stringify(echoed)},"messages":[${messages.join(',')}]${requestId}}`;
  return c.body(json, 200, { 'content-type': 'application/json' });
}
