import type { Context } from 'hono';
import type { Message } from '../contract/agents.ts';
import { MESSAGE_EVENT, RUN_FAILED_EVENT, type MessageEventData, type RunFailedEventData } from '../contract/sse.ts';
import { planRun, sleep, type AgentDefinition, type AgentFailure } from './agents.ts';
import { problemBody, type Env } from './http.ts';
import { streamSse, type SseStream } from './sse.ts';

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

export function streamRun(c: Context<Env>, flavour: Flavour, run: RunRequest, options: RunOptions): Response {
  const keepAliveMs = run.agent.behaviour.keepAliveMs ?? options.keepAliveMs;
  const info: RunStarted = { requestId: c.get('requestId'), flavour, agentId: run.agent.agent_id, mode: 'stream' };
  options.observer?.started?.(info);
  let events = 0;
  let outcome: RunEnded['outcome'] = 'completed';
  return streamSse(c, { keepAliveMs }, async (sse) => {
    try {
      outcome = await produce(sse);
    } finally {
      options.observer?.ended?.({ ...info, events, outcome: outcome === 'dropped' || !sse.closed ? outcome : 'client-closed' });
    }
  });

  async function produce(sse: SseStream): Promise<RunEnded['outcome']> {
    for (const step of planRun(run.agent, run.input, run.messages)) {
      if (step.delayMs > 0) await sleep(step.delayMs, sse.signal);
      if (sse.closed) return 'client-closed';
      if (step.drop) {
        sse.drop();
        return 'dropped';
      }
      events++;
      if (step.failure) {
        if (flavour === 'platform') {
          const { documentation_url, ...error } = problemBody(c, step.failure.code, step.failure.detail, {
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
      if (paused) await paused;
    }
    return 'completed';
  }
}

/** Runs to the end and answers once; stops early, answering nothing, if the client leaves. */
export async function waitRun(c: Context<Env>, flavour: Flavour, run: RunRequest, options: RunOptions): Promise<Response> {
  const signal = c.req.raw.signal;
  const info: RunStarted = { requestId: c.get('requestId'), flavour, agentId: run.agent.agent_id, mode: 'wait' };
  options.observer?.started?.(info);
  let text = '';
  let events = 0;
  let status: 'success' | 'error' = 'success';
  const messages: Message[] = [];
  for (const step of planRun(run.agent, run.input, run.messages)) {
    if (step.delayMs > 0) await sleep(step.delayMs, signal);
    if (signal.aborted) {
      options.observer?.ended?.({ ...info, events, outcome: 'client-closed' });
      return new Response(null, { status: 499 });
    }
    // Waiting has no connection to break mid-answer: it answers with what came before.
    if (step.drop) break;
    events++;
    if (step.failure) {
      status = 'error';
      if (text) messages.push(aiMessage(text));
      messages.push(aiMessage(legacyFailureText(step.failure)));
      text = '';
      break;
    }
    text += step.text ?? '';
  }
  if (text) messages.push(aiMessage(text));
  options.observer?.ended?.({ ...info, events, outcome: status === 'success' ? 'completed' : 'failed' });
  const echoed = {
    agent_id: run.agent.agent_id,
    ...(run.input !== undefined && { input: run.input }),
    ...(run.messages !== undefined && { messages: run.messages }),
    ...(run.metadata !== undefined && { metadata: run.metadata }),
    status,
  };
  return c.json({ run: echoed, messages, ...(flavour === 'platform' && { request_id: c.get('requestId') }) });
}
